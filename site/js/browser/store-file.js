// An instructor's store file, read in this browser and kept for this tab.
//
// Opening an instructor's store file in the page: read locally (nothing is
// uploaded), parsed here, validated by the engine itself, kept for this tab.

const SESSION_KEY = "retrieval-workbench:store";
const MAX_BYTES = 20 * 1024 * 1024;

/**
 * Read and parse a store file. Structural validation is the engine's job; this only
 * turns unreadable files into problems with a path, like the engine's.
 * @param {File} file
 * @returns {Promise<{ok: true, data: any, text: string} | {ok: false, problems: {path: string, message: string}[]}>}
 */
export async function readStoreFile(file) {
  if (file.size > MAX_BYTES) {
    return { ok: false, problems: [{ path: file.name, message: `is ${(file.size / 1e6).toFixed(1)} MB; a store file may be at most 20 MB` }] };
  }
  let text;
  try {
    text = await file.text();
  } catch (error) {
    return { ok: false, problems: [{ path: file.name, message: `could not be read (${error instanceof Error ? error.message : error})` }] };
  }
  try {
    return { ok: true, data: JSON.parse(text), text };
  } catch (error) {
    return { ok: false, problems: [{ path: file.name, message: `is not valid JSON (${error instanceof Error ? error.message : error})` }] };
  }
}

/** The text of the store opened last, as read: what a package is made from. @type {string | null} */
let opened = null;

/** Keep an opened store for this tab, so a reload keeps it; false if it did not fit. */
export function rememberStore(/** @type {string} */ text) {
  opened = text;
  try {
    sessionStorage.setItem(SESSION_KEY, text);
    return true;
  } catch {
    return false;
  }
}

/** @returns {any | null} the store opened earlier in this tab */
export function rememberedStore() {
  try {
    const text = sessionStorage.getItem(SESSION_KEY);
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

/**
 * The opened store's text as it was read (a package made from JSON.stringify of the parsed
 * store could differ: a float's ".0" is lost), or null when none is open.
 * @returns {string | null}
 */
export function openedStoreText() {
  try {
    return opened ?? sessionStorage.getItem(SESSION_KEY);
  } catch {
    return opened;
  }
}

export function forgetStore() {
  opened = null;
  try {
    sessionStorage.removeItem(SESSION_KEY);
  } catch {
    // nothing was kept
  }
}
