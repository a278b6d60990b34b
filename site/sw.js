// Service worker: precaches exactly the files the build wrote, so the page and its
// Python runtime work offline after one visit. build.py writes `const BUILD = {…}`
// (the file list and a content hash) in front of this file.
/* global BUILD */

// Caches are shared by the whole origin, and several workbenches may live under one
// (user.github.io/course-a/, /course-b/): name them by scope as well as by build.
const PREFIX = `retrieval-workbench:${self.registration.scope}:`;
const CACHE = `${PREFIX}${BUILD.hash}`;

self.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      // Files under versioned paths never change, so the copy the page just
      // downloaded (HTTP cache) is reused; the rest is revalidated (a 304 costs no
      // body), so a new deploy never mixes with a stale script.
      await cache.addAll(
        BUILD.files.map((file) => new Request(file, { cache: BUILD.immutable.some((p) => file.startsWith(p)) ? "default" : "no-cache" })),
      );
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const key of await caches.keys()) {
        if (key.startsWith(PREFIX) && key !== CACHE) await caches.delete(key);
      }
      await self.clients.claim();
    })(),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET" || new URL(request.url).origin !== self.location.origin) return;
  event.respondWith(
    (async () => {
      const cache = await caches.open(CACHE);
      // The page's Retry asks past every cache (its copy may be the damaged one): the
      // network first, and a good answer replaces the copy; offline, the copy still serves.
      if (request.cache === "reload") {
        const fresh = await fetch(request).catch(() => null);
        if (fresh?.ok) {
          if (await cache.match(request)) event.waitUntil(cache.put(request, fresh.clone()));
          return fresh;
        }
        return (await cache.match(request)) ?? fresh ?? Response.error();
      }
      // Any link to the page (with its settings in the query) is the same document.
      const hit = request.mode === "navigate" ? await cache.match("./") : await cache.match(request);
      return hit ?? fetch(request);
    })(),
  );
});

// A page asks which build serves it: a page loaded before a new deploy took over then
// knows the next load brings the new version, however early the takeover happened.
self.addEventListener("message", (event) => {
  if (event.data?.type === "which-build") event.ports[0]?.postMessage(BUILD.hash);
});
