// Python's worker's copies in Cache Storage: the snapshot and the decoded module.
//
// This browser's own copies, kept by Python's worker in Cache Storage: the Python
// snapshot and the decoded WebAssembly module. None of them is ever needed: a copy
// that is missing, or storage that is blocked, only means doing the work again.

const SNAPSHOT_CACHE = "retrieval-workbench:python-snapshots";

/** This browser's copy kept under url by an earlier visit, or null (none, or storage blocked). */
export async function findSaved(/** @type {string} */ url) {
  try {
    const cache = await caches.open(SNAPSHOT_CACHE);
    return (await cache.match(url)) ?? null;
  } catch {
    return null;
  }
}

export async function forget(/** @type {string} */ url) {
  try {
    await (await caches.open(SNAPSHOT_CACHE)).delete(url);
  } catch {
    // storage blocked: there was nothing to forget
  }
}

/** Keep a copy under url and drop older builds' copies in the same folder of the site. */
export async function keep(/** @type {string} */ url, /** @type {Response} */ response) {
  try {
    const cache = await caches.open(SNAPSHOT_CACHE);
    const folder = new URL("./", url).href;
    for (const key of await cache.keys()) {
      if (key.url !== url && new URL("./", key.url).href === folder) await cache.delete(key);
    }
    await cache.put(url, response);
  } catch {
    // Storage blocked or full (or the download failed, which is reported where it is
    // read): the next visit does without this copy, as this one did.
  }
}
