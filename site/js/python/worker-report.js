// What Python's worker tells the page about its start: each step, and a failed load.

import { MSG, postableError } from "./protocol.js";

export const STEPS = 4;

/** @param {number} step @param {string} label */
export function progress(step, label) {
  postMessage({ type: MSG.PROGRESS, step, of: STEPS, label });
}

/**
 * Loading failed: the page offers Retry. Posted once, naming the runtime file when one
 * failed to load, whichever failure came first (load-failure.js).
 * @param {import("./worker-state.js").WorkerState} state @param {unknown} error
 */
export function failed(state, error) {
  state.failure.fail(error);
}

/** Posts the failure the page is told. @param {unknown} error */
export function postFailed(error) {
  postMessage({ type: MSG.FAILED, error: postableError(error) });
}
