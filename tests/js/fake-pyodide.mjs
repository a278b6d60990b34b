// Stands in for pyodide.mjs in worker-boot.test.mjs: the test decides what loadPyodide
// does (globalThis.fakeLoadPyodide), so it can play Pyodide's requests and its exit in
// any order.

/** @param {any} options */
export function loadPyodide(options) {
  return /** @type {any} */ (globalThis).fakeLoadPyodide(options);
}
