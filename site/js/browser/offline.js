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
function servedBuild(worker) {
  return new Promise((resolve) => {
    const reply = new MessageChannel();
    const timer = setTimeout(() => resolve(null), 5000);
    reply.port1.onmessage = (event) => {
      clearTimeout(timer);
      resolve(typeof event.data === "string" ? event.data : null);
    };
    worker.postMessage({ type: "which-build" }, [reply.port2]);
  });
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
