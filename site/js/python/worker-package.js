// Packages made in Python's worker: the site, a SCORM 1.2 or a cmi5 zip around a store,
// by sitebuild/assemble.py, the very code build.py runs.
//
// Loaded (as is the packaging zip: assemble.py, Jinja2, MarkupSafe and the few standard
// library modules they need beyond the page's trimmed stdlib) only when a learner first
// asks for a package. The zip is unpacked into Python's file system beside the engine;
// the site's files are fetched from this site (the service worker's copies, offline too)
// into Python's file system, read by assemble.py there, and removed once the zip is made.
// Protocol: protocol.js (rw:package-check, rw:package).

import { MSG, postableError } from "./protocol.js";

/** @typedef {import("./worker-state.js").WorkerState} WorkerState */
/** @typedef {import("pyodide").PyodideAPI} PyodideAPI */

// Where the packaging zip is unpacked, and where a package's site is laid out while it is made.
const PACKAGING = "/lib/rw-packaging";
const SITE = "/tmp/rw-site";
const DESCRIPTION = `${PACKAGING}/sources/site.json`;

/**
 * sitebuild.assemble, its zip downloaded and unpacked once.
 * @param {WorkerState} state @param {PyodideAPI} python @param {string} url @param {(label: string) => void} say
 */
function assembler(state, python, url, say) {
  if (!state.assembler) {
    say("Loading the packaging code");
    // The memory snapshot restores Python quickly on later visits, which rarely package: a
    // worker that loaded the packaging code keeps none, rather than one holding Jinja2.
    clearTimeout(state.idleTimer);
    state.saveSnapshotWhenIdle = null;
    const module = (async () => {
      const response = await state.plainFetch(url);
      if (!response.ok) throw new Error(`the packaging code could not be loaded: the server answered ${response.status} ${response.statusText}`.trim());
      python.unpackArchive(await response.arrayBuffer(), "zip", { extractDir: PACKAGING });
      python.runPython(`import sys\nif ${JSON.stringify(PACKAGING)} not in sys.path: sys.path.append(${JSON.stringify(PACKAGING)})`);
      const assemble = python.pyimport("sitebuild.assemble");
      assemble.extend_split_packages(PACKAGING);
      return assemble;
    })();
    state.assembler = module;
    module.catch(() => (state.assembler = null));
  }
  return state.assembler;
}

/**
 * A package request from the page: a check of the store (its problems, or what the page's
 * renderer must draw), or the package itself. Always answered with one rw:package-reply.
 * @param {WorkerState} state @param {any} message
 */
export async function packageRequest(state, message) {
  const { id } = message;
  const say = (/** @type {string} */ label, done = 0, total = 0) => postMessage({ type: MSG.PACKAGE_PROGRESS, id, label, done, total });
  try {
    if (!state.engineReady) throw new Error("Python is not running");
    const { python } = await state.engineReady;
    const assemble = await assembler(state, python, message.packagingURL, say);
    const store = message.fromBoot ? String(assemble.store_from_boot(message.store)) : message.store;
    if (message.type === MSG.PACKAGE_CHECK) {
      say("Checking the store");
      postMessage({ type: MSG.PACKAGE_REPLY, id, ...JSON.parse(String(assemble.check(store))) });
      return;
    }
    const zip = await make(state, python, assemble, { ...message, store }, say);
    postMessage({ type: MSG.PACKAGE_REPLY, id, zip }, { transfer: [zip.buffer] });
  } catch (error) {
    postMessage({ type: MSG.PACKAGE_REPLY, id, error: postableError(error) });
  }
}

/**
 * The zip's bytes: the site's files fetched into Python's file system, then assemble.package.
 * @param {WorkerState} state @param {PyodideAPI} python @param {import("pyodide/ffi").PyProxy} assemble
 * @param {{store: string, fragments: string, kind: string, score: boolean, siteURL: string, packagingURL: string}} request
 * @param {(label: string, done?: number, total?: number) => void} say
 * @returns {Promise<Uint8Array<ArrayBuffer>>}
 */
async function make(state, python, assemble, { store, fragments, kind, score, siteURL, packagingURL }, say) {
  /** @type {{files: string[]}} */
  const description = JSON.parse(python.FS.readFile(DESCRIPTION, { encoding: "utf8" }));
  const packaging = new URL(packagingURL).href.slice(new URL(siteURL).href.length);
  const paths = [...description.files, packaging];
  try {
    let done = 0;
    let bytes = 0;
    say("Gathering the site's files", done, paths.length);
    // A few at a time: the service worker answers from its copies, so the bound is memory, not the network.
    const queue = [...paths];
    const gather = async () => {
      for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
        const response = await state.plainFetch(new URL(path, siteURL));
        if (!response.ok) throw new Error(`${path} could not be read for the package: the server answered ${response.status} ${response.statusText}`.trim());
        const data = new Uint8Array(await response.arrayBuffer());
        python.FS.mkdirTree(`${SITE}/${path.split("/").slice(0, -1).join("/")}`);
        python.FS.writeFile(`${SITE}/${path}`, data, { canOwn: true });
        bytes += data.length;
        say(`Gathering the site's files (${(bytes / 1e6).toFixed(1)} MB)`, ++done, paths.length);
      }
    };
    await Promise.all(Array.from({ length: 4 }, gather));
    say("Making the zip");
    const made = assemble.package_tree.callKwargs(kind, store, fragments, SITE, { score });
    try {
      return /** @type {Uint8Array<ArrayBuffer>} */ (made.toJs());
    } finally {
      made.destroy();
    }
  } finally {
    assemble.remove_tree(SITE);
  }
}
