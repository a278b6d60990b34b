// Offline support is an extra, never a dependency: if service workers are missing,
// blocked or sandboxed away, the page works online exactly the same.

const LAST_BUILD_KEY = "retrieval-workbench:build";

/**
 * Register the service worker and report what the learner should know.
 * @param {(message: string) => void} notify
 */
export async function registerOffline(notify) {
  let container;
  try {
    container = navigator.serviceWorker; // throws in a sandboxed iframe without same-origin
  } catch {
    return;
  }
  if (!container) return;
  const hadController = Boolean(container.controller);
  try {
    await container.register("sw.js");
  } catch {
    return; // e.g. blocked by the browser's settings: stay an online page
  }
  container.addEventListener("controllerchange", () => {
    if (hadController) notify("A new version of the workbench was downloaded; it is used from your next load.");
  });
  if (!hadController) {
    await container.ready; // active means every file is precached
    notify("Saved for offline use: this page now works offline too, Python included.");
  }
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
