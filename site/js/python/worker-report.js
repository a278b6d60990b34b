// What Python's worker tells the page about its start: each step, and a failed load.

import { MSG, postableError } from "./protocol.js";

export const STEPS = 4;

/** @param {number} step @param {string} label */
export function progress(step, label) {
  postMessage({ type: MSG.PROGRESS, step, of: STEPS, label });
}

/**
 * Loading failed: the page offers Retry (posted once; later failures follow from it).
 * @param {import("./worker-state.js").WorkerState} state @param {unknown} error
 */
export function failed(state, error) {
  if (state.failed) return;
  state.failed = true;
  postMessage({ type: MSG.FAILED, error: postableError(error) });
}
