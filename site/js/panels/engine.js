// The engine's panel: Python's status and Retry, its requests, and offline use.
//
// Python's side of the page: the status line and Retry, the requests the core asks for
// (opening the active store, running a policy), the timer of a late answer's pending
// mark, the User Timing marks read by bench/ scripts, and offline use, which waits for
// the runtime.

import { announceNewVersion, watchOffline } from "../browser/offline.js";
import { showStatus } from "../views/view.js";

/** @param {import("./context.js").Context} context @returns {import("./context.js").Handlers} */
export function setUp({ byId, dispatch, state, engine, boot }) {
  const showOfflineStatus = (/** @type {string} */ message) => {
    byId("offline-status").textContent = message;
  };
  byId("engine-retry").addEventListener("click", () => engine.retry());
  announceNewVersion(boot.buildId, showOfflineStatus);
  const registerOffline = watchOffline(boot.buildId, byId("offline-status").dataset.saved ?? "", showOfflineStatus);
  return {
    "show-status": ({ status }) => showStatus(status),
    // A refused open leaves the store before in force. A failed Python already says so in
    // the status line, and the store goes again once a Retry has Python ready. A learner's
    // file is opened (and checked) by store-opening.js.
    "open-store": () =>
      engine.openStore(JSON.stringify(state().store), state().store).catch(() => dispatch({ type: "store-not-opened" })),
    request: ({ seq, policy }) => {
      const askedAt = performance.now();
      engine.run(policy).then(
        (answer) => dispatch({ type: "answer", seq, answer, askedAt }),
        () => dispatch({ type: "request-failed", seq }),
      );
    },
    "pending-timer": ({ seq, ms }) => window.setTimeout(() => dispatch({ type: "pending-due", seq }), ms),
    mark: ({ name }) => performance.mark(name),
    measure: ({ start }) => performance.measure("rw:update", { start }),
    "register-offline": () => registerOffline(),
  };
}
