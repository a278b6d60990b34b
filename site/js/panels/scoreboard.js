// The scoreboard panel: asks the worker for the evaluation of the policy shown, then
// for the recency sweep, and applies a question and scorer when a cell is picked.
//
// Off until the learner asks (the evaluation runs the embedding scorers, whose vectors
// the page otherwise loads only when one is picked); from then on it follows every
// answer shown. An older evaluation that arrives after a newer request is dropped.

import { meansTable, questionGrid, sweepChart } from "../views/scoreboard.js";
import { place, setText } from "../views/view.js";

/** @param {import("./context.js").Context} context @returns {import("./context.js").Handlers} */
export function setUp({ byId, dispatch, state, engine, placed }) {
  const button = byId("scoreboard-measure");
  const status = byId("scoreboard-status");
  let measuring = false;
  let asked = 0;
  const show = async () => {
    if (!measuring) return;
    const policy = state().shown.policy;
    const seq = ++asked;
    setText(status, "Measuring every question under every scorer…");
    try {
      const evaluation = await engine.evaluate(policy);
      if (seq !== asked) return;
      if ("error" in evaluation) {
        setText(status, `The engine could not measure these settings: ${evaluation.error.message}`);
        return;
      }
      const measured = /** @type {import("../core/shapes.js").Evaluation} */ (evaluation);
      place(placed, "scoreboard-means", meansTable(measured));
      place(placed, "scoreboard-grid", questionGrid(measured));
      setText(status, "Sweeping the recency weight from 0 to 1…");
      const sweep = await engine.evaluate(policy, true);
      if (seq !== asked) return;
      if ("error" in sweep) {
        setText(status, `The engine could not sweep the recency weight: ${sweep.error.message}`);
        return;
      }
      place(placed, "scoreboard-sweep", sweepChart(/** @type {import("../core/shapes.js").Sweep} */ (sweep)));
      setText(status, "");
    } catch (error) {
      if (seq === asked) setText(status, `Python is not answering yet (${error instanceof Error ? error.message : error}); the scoreboard follows once it is.`);
    }
  };
  button.addEventListener("click", () => {
    measuring = true;
    button.hidden = true;
    show();
  });
  byId("scoreboard-grid").addEventListener("click", (event) => {
    const cell = /** @type {HTMLElement | null} */ (/** @type {HTMLElement} */ (event.target).closest("button[data-question]"));
    if (!cell) return;
    const policy = { ...state().policy, question: cell.dataset.question ?? "", scorer: /** @type {any} */ (cell.dataset.scorer), question_text: "" };
    // As a guide step applies its settings: the controls are written too.
    dispatch({ type: "guide-step", policy, at: performance.now() });
  });
  return { "show-scoreboard": show };
}
