// The engine's panel: Python's status and Retry, its requests, and offline use.
//
// Python's side of the page: the status line and Retry, the requests the core asks for
// (opening the active store, running a policy), the timer of a late answer's pending
// mark, the User Timing marks read by bench/ scripts, offline use, which waits for the
// runtime, and the embedding's vectors: their download, its Retry, and whether this
// browser keeps them for offline use.

import { announceNewVersion, keptOffline, watchOffline } from "../browser/offline.js";
import { refusalText } from "../core/unanswered.js";
import { setHidden, setText, showStatus } from "../views/view.js";

/** @typedef {import("../python/engine-client.js").VectorsStatus} VectorsStatus */

/** @param {number} bytes */
const megabytes = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;

/** What the vectors' line adds once they are loaded: whether they work offline. @param {boolean | null} kept */
export function keptText(kept) {
  if (kept === null) return "They are not kept for offline use: this browser gives the page no service worker.";
  return kept ? "Kept in this browser for offline use." : "This browser did not keep them for offline use.";
}

/** @param {import("./context.js").Context} context @returns {import("./context.js").Handlers} */
export function setUp({ byId, dispatch, state, engine, boot }) {
  const offline = byId("offline-status");
  const saved = offline.dataset.saved ?? "";
  // Once the vectors are kept, the first visit's line says they work offline too.
  let vectorsKept = false;
  const showOfflineStatus = (/** @type {string} */ message) => {
    offline.textContent = message === saved && vectorsKept ? (offline.dataset.savedVectors ?? message) : message;
  };
  byId("engine-retry").addEventListener("click", () => engine.retry());
  // The refusal's button brings back what was missing: the vectors, or Python.
  const refusal = { box: byId("refusal"), text: byId("refusal-text"), retry: byId("refusal-retry") };
  refusal.retry.addEventListener("click", () => (state().requests.refused?.cause === "vectors" ? engine.retryVectors() : engine.retry()));
  const showRefusal = () => {
    const { requests: { refused, vectorsFailure }, shown } = state();
    setHidden(refusal.box, !refused);
    if (!refused) return;
    setText(refusal.text, refusalText(refused, shown.policy, vectorsFailure));
    // An engine that refused the settings themselves has nothing to retry.
    setHidden(refusal.retry, refused.cause === "engine");
    setText(refusal.retry, refused.cause === "vectors" ? "Download the vectors again" : "Start Python again");
  };
  announceNewVersion(boot.buildId, showOfflineStatus);
  const registerOffline = watchOffline(boot.buildId, saved, showOfflineStatus);

  const vectors = {
    box: byId("vectors"),
    progress: /** @type {HTMLProgressElement} */ (byId("vectors-progress")),
    bytes: byId("vectors-bytes"),
    text: byId("vectors-status"),
    retry: byId("vectors-retry"),
  };
  // Each status shown, counted: a late answer about keeping them adds to its own status only.
  let shown = 0;
  vectors.retry.addEventListener("click", () => engine.retryVectors());
  engine.listenVectors((status) => dispatch({ type: "vectors-status", status }));
  const showVectors = (/** @type {VectorsStatus} */ status) => {
    const which = ++shown;
    setHidden(vectors.box, false);
    const loading = status.state === "loading";
    setHidden(vectors.progress, !loading);
    setHidden(vectors.bytes, !loading);
    if (loading && status.total) {
      if (vectors.progress.max !== status.total) vectors.progress.max = status.total;
      if (vectors.progress.value !== status.loaded) vectors.progress.value = status.loaded ?? 0;
      setText(vectors.bytes, `${megabytes(status.loaded ?? 0)} of ${megabytes(status.total)}`);
    }
    setText(vectors.text, status.text);
    setHidden(vectors.retry, !status.retry);
    if (status.state !== "ready") return;
    keptOffline(engine.runtime.vectorsURL).then((kept) => {
      if (kept && !vectorsKept) {
        vectorsKept = true;
        if (offline.textContent === saved) showOfflineStatus(saved);
      }
      if (which === shown) setText(vectors.text, `${status.text} ${keptText(kept)}`);
    });
  };
  return {
    "show-status": ({ status }) => showStatus(status),
    "show-vectors-status": ({ status }) => showVectors(status),
    "show-refusal": () => showRefusal(),
    // A refused open leaves the store before in force. A failed Python already says so in
    // the status line, and the store goes again once a Retry has Python ready. A learner's
    // file is opened (and checked) by store-opening.js.
    "open-store": () =>
      engine.openStore(JSON.stringify(state().store), state().store).catch(() => dispatch({ type: "store-not-opened" })),
    request: ({ seq, policy }) => {
      const askedAt = performance.now();
      engine.run(policy).then(
        (answer) => dispatch({ type: "answer", seq, answer, askedAt }),
        (/** @type {unknown} */ error) => dispatch({ type: "request-failed", seq, reason: error instanceof Error ? error.message : String(error) }),
      );
    },
    "pending-timer": ({ seq, ms }) => window.setTimeout(() => dispatch({ type: "pending-due", seq }), ms),
    mark: ({ name }) => performance.mark(name),
    measure: ({ start }) => performance.measure("rw:update", { start }),
    "register-offline": () => registerOffline(),
  };
}
