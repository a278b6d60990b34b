// The static embedding's vectors in Python's worker: downloaded when the page asks, then loaded by the engine.
//
// The page asks (rw:vectors) only when a policy's scorer first reads them. The download
// streams into one buffer of the size the build wrote down, telling the page how far it
// is; the bytes then go into Python's file system, engine.load_embedding reads them (only
// JSON comes back), and the file is removed, so the worker holds the vectors once, in
// Python. The download runs beside the page's other requests; loading the bytes into
// Python takes its turn with them. Every request ends in rw:vectors-ready or
// rw:vectors-failed, so the page never waits for an answer that is not coming.

import { MSG, postableError } from "./protocol.js";

/** @typedef {import("./worker-state.js").WorkerState} WorkerState */

// Where the bytes are while the engine reads them.
const PATH = "/tmp/vectors.rwse";
// Progress messages per download, at most: enough for a smooth bar, few enough to cost nothing.
const PROGRESS_STEPS = 100;

/**
 * Download the vectors and have the engine load them.
 * @param {WorkerState} state @param {{url: string, bytes: number, fresh: boolean}} message
 */
export function loadVectors(state, message) {
  download(state, message).then(
    (bytes) => {
      state.work = state.work.then(() => install(state, bytes));
    },
    (error) => postMessage({ type: MSG.VECTORS_FAILED, error: postableError(error) }),
  );
}

/**
 * The file's bytes, checked against the size the build wrote down; progress as they come.
 * @param {WorkerState} state @param {{url: string, bytes: number, fresh: boolean}} message
 * @returns {Promise<Uint8Array<ArrayBuffer>>}
 */
async function download(state, { url, bytes: total, fresh }) {
  /** @type {Response} */
  let response;
  try {
    // After a failure, past every cache (a copy there may be the damaged one).
    response = await state.plainFetch(url, fresh ? { cache: "reload" } : {});
  } catch (error) {
    throw new Error(`the download failed (${error instanceof Error ? error.message : error})`);
  }
  if (!response.ok || !response.body) throw new Error(`the server answered ${response.status} ${response.statusText}`.trim());
  const data = new Uint8Array(total);
  const reader = response.body.getReader();
  const step = Math.max(1, Math.floor(total / PROGRESS_STEPS));
  let loaded = 0;
  let told = 0;
  postMessage({ type: MSG.VECTORS_PROGRESS, loaded, total });
  for (;;) {
    let chunk;
    try {
      chunk = await reader.read();
    } catch (error) {
      throw new Error(`the download broke off after ${loaded} of ${total} bytes (${error instanceof Error ? error.message : error})`);
    }
    if (chunk.done) break;
    if (loaded + chunk.value.length > total) {
      await reader.cancel();
      throw new Error(`the file is larger than the ${total} bytes this page was built with`);
    }
    data.set(chunk.value, loaded);
    loaded += chunk.value.length;
    if (loaded - told >= step) {
      told = loaded;
      postMessage({ type: MSG.VECTORS_PROGRESS, loaded, total });
    }
  }
  if (loaded !== total) throw new Error(`the download stopped after ${loaded} of ${total} bytes`);
  if (told !== loaded) postMessage({ type: MSG.VECTORS_PROGRESS, loaded, total });
  return data;
}

/**
 * Hand the bytes to the engine through Python's file system, and tell the page how it went.
 * @param {WorkerState} state @param {Uint8Array<ArrayBuffer>} bytes
 */
async function install(state, bytes) {
  try {
    if (!state.engineReady) throw new Error("the engine was asked to load vectors before loading itself");
    const engine = await state.engineReady;
    // The memory snapshot is made to restore Python quickly on later visits, which load the
    // vectors only if they need them: a snapshot holding megabytes of vectors would make every
    // restore slower, so a worker that loaded them keeps none.
    clearTimeout(state.idleTimer);
    state.saveSnapshotWhenIdle = null;
    // The file system takes the downloaded bytes as they are (canOwn) rather than a copy of them.
    engine.files.writeFile(PATH, bytes, { canOwn: true });
    let reply;
    try {
      reply = JSON.parse(String(engine.loadEmbedding(PATH)));
    } finally {
      engine.files.unlink(PATH);
      // Python holds its own copy now: the download's memory is given back at once (a
      // transfer to nothing detaches it) rather than whenever the worker next collects garbage.
      bytes.buffer.transfer(0);
    }
    if (reply.error) {
      postMessage({ type: MSG.VECTORS_FAILED, error: { name: reply.error.name, message: reply.error.message } });
      return;
    }
    postMessage({ type: MSG.VECTORS_READY, tokens: reply.tokens, dims: reply.dims });
  } catch (error) {
    postMessage({ type: MSG.VECTORS_FAILED, error: postableError(error) });
  }
}
