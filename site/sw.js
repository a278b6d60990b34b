// Service worker: precaches exactly the files the build wrote, so the page and its
// Python runtime work offline after one visit. build.py writes `const BUILD = {…}`
// (the file list and a content hash) in front of this file.
/* global BUILD */

// Caches are shared by the whole origin, and several workbenches may live under one
// (user.github.io/course-a/, /course-b/): name them by scope as well as by build.
const PREFIX = `retrieval-workbench:${self.registration.scope}:`;
const CACHE = `${PREFIX}${BUILD.hash}`;
// Files fetched only when the page asks for them (the embedding's vectors, megabytes
// that most visits never use, and their licence and notice) are not precached: each is
// kept the first time it is fetched, so it works offline from then on. Kept apart from the build's cache, under a
// name no build deletes, since a new deploy usually ships the same file (named by its
// content) and should not download it again.
const ON_DEMAND = `retrieval-workbench-on-demand:${self.registration.scope}`;
const ON_DEMAND_URLS = new Set(BUILD.onDemand.map((file) => new URL(file, self.registration.scope).href));
// An on-demand file being written into its cache, by URL: the page asking whether it is
// kept waits for the write rather than fetching it a second time.
const keeping = new Map();

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
      // Only this build's on-demand files stay kept.
      const onDemand = await caches.open(ON_DEMAND);
      for (const request of await onDemand.keys()) {
        if (!ON_DEMAND_URLS.has(request.url)) await onDemand.delete(request);
      }
      await self.clients.claim();
    })(),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET" || new URL(request.url).origin !== self.location.origin) return;
  if (ON_DEMAND_URLS.has(request.url)) {
    event.respondWith(onDemand(event));
    return;
  }
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

/**
 * An on-demand file: this browser's copy, else the network, whose good answer is kept
 * (streamed to the page and into the cache at once). A Retry (cache: "reload") goes to
 * the network first, as for the other files, and replaces the copy.
 * @param {FetchEvent} event
 */
async function onDemand(event) {
  const request = event.request;
  const cache = await caches.open(ON_DEMAND);
  if (request.cache !== "reload") {
    const hit = await cache.match(request);
    if (hit) return hit;
  }
  const fresh = await fetch(request).catch(() => null);
  if (!fresh?.ok) return (await cache.match(request)) ?? fresh ?? Response.error();
  event.waitUntil(keep(cache, request.url, fresh.clone()));
  return fresh;
}

/** Write an on-demand file's response into its cache, noted while it is written. */
function keep(cache, url, response) {
  const writing = cache.put(url, response).finally(() => keeping.delete(url));
  keeping.set(url, writing);
  return writing;
}

/**
 * Whether an on-demand file is kept for offline use, once any write of it is done. The
 * page asks after the file has loaded; one fetched before this worker controlled the
 * page (a first visit) is fetched again here, usually from the HTTP cache, and kept.
 * @param {string} url
 */
async function kept(url) {
  if (!ON_DEMAND_URLS.has(url)) return false;
  await keeping.get(url)?.catch(() => {});
  const cache = await caches.open(ON_DEMAND);
  if (await cache.match(url)) return true;
  const response = await fetch(url).catch(() => null);
  if (!response?.ok) return false;
  await keep(cache, url, response).catch(() => {});
  return Boolean(await cache.match(url));
}

self.addEventListener("message", (event) => {
  // A page asks which build serves it: a page loaded before a new deploy took over then
  // knows the next load brings the new version, however early the takeover happened.
  if (event.data?.type === "which-build") event.ports[0]?.postMessage(BUILD.hash);
  // A page asks whether an on-demand file is kept (and keeps it if it can).
  if (event.data?.type === "keep") event.waitUntil(kept(String(event.data.url)).then((answer) => event.ports[0]?.postMessage(answer)));
});
