// Offline use through the service worker, always optional.
//
// Offline support is an extra, never a dependency: if service workers are missing,
// blocked or sandboxed away, the page works online exactly the same.

const LAST_BUILD_KEY = "retrieval-workbench:build";

const NEW_VERSION_DOWNLOADED = "A new version of the workbench was downloaded; it is used from your next load.";

/**
 * Watch for a new deploy taking over this page, and return how to register the service
 * worker (which waits for the runtime to be in the HTTP cache). A new service worker can
 * install and claim the page before the page has set itself up, so rather than only
 * listening for the change, the page asks the worker in control which build it serves:
 * another build than this page's means the next load brings the new version.
 * @param {string} buildId  this page's build
 * @param {string} savedMessage  what is said once a first visit is saved for offline use
 * @param {(message: string) => void} notify
 * @returns {() => Promise<void>}
 */
export function watchOffline(buildId, savedMessage, notify) {
  let container;
  try {
    container = navigator.serviceWorker; // throws in a sandboxed iframe without same-origin
  } catch {
    return async () => {};
  }
  if (!container) return async () => {};
  const sw = container;
  // A first visit has no worker in control; the one it registers serves this build.
  const hadController = Boolean(sw.controller);
  const compare = async () => {
    if (!hadController || !sw.controller) return;
    const served = await servedBuild(sw.controller);
    if (served !== null && served !== buildId) notify(NEW_VERSION_DOWNLOADED);
  };
  sw.addEventListener("controllerchange", compare);
  compare();
  return async () => {
    try {
      await sw.register("sw.js");
    } catch {
      // e.g. blocked by the browser's settings: stay an online page, with no room kept
      // for a message that will not come (first-frames.js)
      delete document.documentElement.dataset.offlineSaving;
      return;
    }
    if (!hadController) {
      await sw.ready; // active means every file is precached
      notify(savedMessage);
    }
  };
}

/**
 * The build a service worker serves, or null when it does not say within a few seconds
 * (one from before builds could be asked).
 * @param {ServiceWorker} worker
 * @returns {Promise<string | null>}
 */
async function servedBuild(worker) {
  const answer = await ask(worker, { type: "which-build" }, 5000);
  return typeof answer === "string" ? answer : null;
}

/**
 * A service worker's answer to a message, or null when none comes within ms.
 * @param {ServiceWorker} worker @param {object} message @param {number} ms
 * @returns {Promise<unknown>}
 */
function ask(worker, message, ms) {
  return new Promise((resolve) => {
    const reply = new MessageChannel();
    const timer = setTimeout(() => resolve(null), ms);
    reply.port1.onmessage = (event) => {
      clearTimeout(timer);
      resolve(event.data);
    };
    worker.postMessage(message, [reply.port2]);
  });
}

// Keeping a file fetched before the service worker took over means fetching it again
// (usually from the HTTP cache): megabytes, on a slow link.
const KEEP_TIMEOUT_MS = 120_000;

/**
 * Whether this browser keeps a file fetched on demand (the embedding's vectors) for
 * offline use: the service worker keeps it the first time it passes, and is asked here
 * once it has loaded. null where there is no service worker (missing, blocked,
 * sandboxed) or it does not answer.
 * @param {string} url
 * @returns {Promise<boolean | null>}
 */
export async function keptOffline(url) {
  let container;
  try {
    container = navigator.serviceWorker; // throws in a sandboxed iframe without same-origin
  } catch {
    return null;
  }
  if (!container) return null;
  const registered = await Promise.race([container.ready, new Promise((resolve) => setTimeout(() => resolve(null), 5000))]);
  const worker = container.controller ?? /** @type {ServiceWorkerRegistration | null} */ (registered)?.active ?? null;
  if (!worker) return null;
  const answer = await ask(worker, { type: "keep", url }, KEEP_TIMEOUT_MS);
  return typeof answer === "boolean" ? answer : null;
}

/** Tell the learner when this load runs a different build than their last visit. */
export function announceNewVersion(/** @type {string} */ buildId, /** @type {(message: string) => void} */ notify) {
  try {
    const last = localStorage.getItem(LAST_BUILD_KEY);
    if (last && last !== buildId) notify("A new version of the workbench is active since your last visit.");
    localStorage.setItem(LAST_BUILD_KEY, buildId);
  } catch {
    // storage blocked: nothing to compare against
  }
}
