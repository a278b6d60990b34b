// Python's worker's message loop.
//
// Python's worker's message loop: the page's load and boot messages, its open and run
// requests answered one at a time with the session of the store in force, the
// embedding's vectors when asked for (worker-vectors.js), packages (worker-package.js), and the snapshot made once the
// page has been idle after an answer. Protocol: protocol.js.

import { MSG, postableError } from "./protocol.js";
import { load } from "./worker-boot.js";
import { failed } from "./worker-report.js";
import { loadVectors } from "./worker-vectors.js";
import { warmHere } from "./worker-warmer.js";

/** @typedef {import("./worker-state.js").WorkerState} WorkerState */

// The snapshot is made once the page has asked nothing for this long after the first
// answer: while a learner reads it rather than while they change the controls, and
// never delaying an answer they wait for.
const IDLE_MS = 2000;

// Refused to a run before any store was accepted (the page opens one first).
const NO_STORE = JSON.stringify({
  error: { name: "NoStore", message: "no store is open: open one before asking for an answer", problems: [] },
});

/** One message from the page (or, in the warmer, from the worker that made it). @param {WorkerState} state @param {any} message */
export function receive(state, message) {
  if (message.type === MSG.BOOT) {
    state.allowBoot(); // at once: the load waits for it
  } else if (message.type === MSG.LOAD) {
    if (message.fresh) state.requestInit = { cache: "reload" };
    state.engineReady ??= load(state, message.runtime);
    state.engineReady.catch((error) => failed(state, error));
  } else if (message.type === MSG.WARM) {
    // This is the code-cache warmer's worker (worker-warmer.js).
    warmHere(message);
  } else if (message.type === MSG.VECTORS) {
    loadVectors(state, message);
  } else if (message.type === MSG.PACKAGE_CHECK || message.type === MSG.PACKAGE) {
    // Loaded when a package is first asked for, never on the way to Python's first answer.
    state.packaging ??= import("./worker-package.js");
    state.packaging.then(
      (module) => module.packageRequest(state, message),
      (error) => {
        state.packaging = null;
        postMessage({ type: MSG.PACKAGE_REPLY, id: message.id, error: postableError(error) });
      },
    );
  } else if ([MSG.OPEN, MSG.RUN, MSG.EVALUATE, MSG.CHECK].includes(message.type)) {
    // One at a time, in order: each run must be answered from the stores opened before it.
    clearTimeout(state.idleTimer);
    state.work = state.work.then(() => answer(state, message));
  }
}

/**
 * Open a store: on success its session answers every later run, and the one before is
 * released; on a refusal the one before stays in force.
 * @param {WorkerState} state @param {import("pyodide/ffi").PyCallable} openJson @param {string} storeText
 * @returns {string} the reply, JSON text
 */
function openStore(state, openJson, storeText) {
  const opening = openJson(storeText);
  try {
    // undefined when refused (Python's None). Copied: a proxy read from an attribute
    // is destroyed with the proxy it was read from, and the opening goes below.
    const session = opening.session?.copy();
    if (session) {
      const answerJson = session.answer_json;
      if (state.current) {
        state.current.answerJson.destroy();
        state.current.session.destroy();
      }
      state.current = { session, answerJson };
    }
    return opening.reply;
  } finally {
    opening.destroy();
  }
}

/** @param {WorkerState} state @param {any} message  an open or a run request */
async function answer(state, message) {
  try {
    if (!state.engineReady) throw new Error("the engine was asked to run before loading");
    const { openJson, evaluateJson, checkJson } = await state.engineReady;
    const { current } = state;
    let response;
    /** @type {string | null} */
    let parts = null;
    if (message.type === MSG.OPEN) response = openStore(state, openJson, message.store);
    else if (message.type === MSG.CHECK) response = check(checkJson(), message.store);
    else if (!current) response = NO_STORE;
    else if (message.type === MSG.EVALUATE) response = evaluate(evaluateJson(), current.session, message);
    else [response, parts] = answerRun(current.answerJson, message);
    postMessage({ type: MSG.RESULT, id: message.id, response, parts });
  } catch (error) {
    postMessage({ type: MSG.RUN_ERROR, id: message.id, error: postableError(error) });
  }
  // After an answer rather than at boot, so the copy holds everything answering
  // imports and compiles. The session that answered is in the copy too, where a
  // restored Python keeps it unreachable (the JavaScript proxy that held it is gone):
  // one store's worth of memory, and makeSnapshot makes no copy past its size limit.
  if (message.type === MSG.RUN) state.answeredOnce = true;
  if (state.answeredOnce && state.saveSnapshotWhenIdle) state.idleTimer = setTimeout(() => whenIdle(state), IDLE_MS);
}

/**
 * A run's answer and its per-term parts, each JSON text (the parts null when the page
 * holds them already): Session.answer_json's pair.
 * @param {import("pyodide/ffi").PyCallable} answerJson @param {any} message
 * @returns {[string, string | null]}
 */
function answerRun(answerJson, message) {
  const pair = answerJson(message.policy, message.haveTerms ?? "");
  try {
    const [answer, parts] = pair.toJs();
    return [answer, parts ?? null];
  } finally {
    pair.destroy();
  }
}

/**
 * An evaluation (or, when message.sweep names a field, the sweep of that field) of the store
 * in force, as JSON text.
 * @param {import("pyodide/ffi").PyCallable} evaluateJson @param {import("pyodide/ffi").PyProxy} session @param {any} message
 * @returns {string}
 */
function evaluate(evaluateJson, session, message) {
  try {
    return evaluateJson.callKwargs(session, message.policy, { sweep: message.sweep || false });
  } finally {
    evaluateJson.destroy();
  }
}

/**
 * A draft store checked (engine.api.check_store_json), as JSON text; the store in force stays.
 * @param {import("pyodide/ffi").PyCallable} checkJson @param {string} storeText
 * @returns {string}
 */
function check(checkJson, storeText) {
  try {
    return checkJson(storeText);
  } finally {
    checkJson.destroy();
  }
}

/** The page has asked nothing for IDLE_MS since an answer: make the snapshot now. @param {WorkerState} state */
function whenIdle(state) {
  const save = state.saveSnapshotWhenIdle;
  state.saveSnapshotWhenIdle = null;
  save?.();
}
