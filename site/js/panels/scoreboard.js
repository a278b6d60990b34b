// The scoreboard panel: asks the worker for the evaluation of the policy shown, then
// for the sweep of the field chosen beside the chart (the recency weight or MMR's λ,
// tables.js's SWEPT; the choice stays out of the link), applies a question and scorer when a cell is picked, applies the
// settings that let out-of-scope supporting records in when asked to, and keeps the means
// in the notebook.
//
// Off until asked for (the evaluation runs the embedding scorers, whose vectors the page
// otherwise loads only when one is picked): by the learner's button, a guided step that
// shows it, or a link that says so (page-core's state.scoreboard). From then on it
// follows every answer shown. An older evaluation that arrives after a newer request is
// dropped.

import { keptScoreboard } from "../core/observations.js";
import { addressParams } from "../core/page-core.js";
import { writeQuery } from "../core/state.js";
import { SWEPT } from "../core/tables.js";
import { fieldInSentence, fieldLabel, meansTable, questionGrid, scopeNote, sweepChart, sweepTable } from "../views/scoreboard.js";
import { place, setText } from "../views/view.js";

/** @param {import("./context.js").Context} context @returns {import("./context.js").Handlers} */
export function setUp({ byId, dispatch, state, engine, placed }) {
  const section = byId("scoreboard");
  const button = byId("scoreboard-measure");
  const status = byId("scoreboard-status");
  const keep = byId("scoreboard-keep");
  const keptStatus = byId("scoreboard-kept");
  const numbers = byId("scoreboard-numbers");
  const choice = byId("scoreboard-sweep-choice");
  const swept = /** @type {HTMLSelectElement} */ (byId("scoreboard-swept"));
  swept.replaceChildren(...SWEPT.map((field) => new Option(fieldLabel(field), field)));
  let asked = 0;
  /** The evaluation on screen, which Keep in notebook keeps. @type {import("../core/shapes.js").Evaluation | null} */
  let shown = null;
  /** The policy measured (and its query), which another field's sweep sweeps. @type {{policy: object, query: string} | null} */
  let measured = null;
  /** Whether an evaluation is on its way: its sweep reads the field chosen once it arrives. */
  let measuring = false;
  /** @param {unknown} error */
  const notAnswering = (error) =>
    setText(status, `Python is not answering yet (${error instanceof Error ? error.message : error}); the scoreboard follows once it is.`);
  /** The sweep of the field chosen, unless a newer request comes first. @param {number} seq @param {object} policy @param {string} query */
  const sweepIt = async (seq, policy, query) => {
    const field = swept.value;
    const label = fieldInSentence(field);
    setText(status, `Sweeping the ${label} from 0 to 1…`);
    const sweep = await engine.evaluate(policy, field);
    if (seq !== asked) return;
    if ("error" in sweep) {
      setText(status, `The engine could not sweep the ${label}: ${sweep.error.message}`);
      return;
    }
    place(placed, "scoreboard-sweep", sweepChart(/** @type {import("../core/shapes.js").Sweep} */ (sweep)));
    place(placed, "scoreboard-sweep-table", sweepTable(/** @type {import("../core/shapes.js").Sweep} */ (sweep)));
    numbers.hidden = false;
    choice.hidden = false;
    section.dataset.sweptPolicy = query;
    section.dataset.sweptField = field;
    setText(status, "");
  };
  const show = async () => {
    if (!state().scoreboard) return;
    button.hidden = true;
    const policy = state().shown.policy;
    const query = writeQuery(policy, state().fields).slice(1);
    const seq = ++asked;
    setText(status, "Measuring every question under every scorer…");
    measuring = true;
    try {
      const evaluation = await engine.evaluate(policy);
      if (seq !== asked) return;
      measuring = false;
      if ("error" in evaluation) {
        setText(status, `The engine could not measure these settings: ${evaluation.error.message}`);
        return;
      }
      shown = /** @type {import("../core/shapes.js").Evaluation} */ (evaluation);
      measured = { policy, query };
      place(placed, "scoreboard-scope", scopeNote(shown));
      place(placed, "scoreboard-means", meansTable(shown));
      place(placed, "scoreboard-grid", questionGrid(shown));
      keep.hidden = false;
      setText(keptStatus, "");
      // For tests and bench/ scripts: the policy whose means and grid are on screen.
      section.dataset.measuredPolicy = query;
      await sweepIt(seq, policy, query);
    } catch (error) {
      if (seq === asked) {
        measuring = false;
        notAnswering(error);
      }
    }
  };
  // Another field is swept for the settings measured; an evaluation on its way sweeps it itself.
  swept.addEventListener("change", async () => {
    if (measuring || !measured) return;
    const seq = ++asked;
    try {
      await sweepIt(seq, measured.policy, measured.query);
    } catch (error) {
      if (seq === asked) notAnswering(error);
    }
  });
  if (state().scoreboard) {
    // The link asked for it: it measures once Python answers.
    button.hidden = true;
    setText(status, "The scoreboard measures every question once Python is ready.");
  }
  button.addEventListener("click", () => dispatch({ type: "scoreboard-opened" }));
  keep.addEventListener("click", () => {
    if (!shown) return;
    // The link reopens the settings measured, not the controls' (a change may be on its way).
    const reopens = new URL(writeQuery(shown.policy, state().fields, addressParams(state())), location.href).href;
    const entry = keptScoreboard(shown, reopens, new Date());
    dispatch({ type: "scoreboard-kept", entry });
    setText(keptStatus, `Kept in the notebook: the means of ${Object.keys(entry.means).length} scorers over ${entry.measured.length} questions.`);
  });
  byId("scoreboard-scope").addEventListener("click", (event) => {
    const include = shown?.out_of_scope?.include;
    if (!include || !(/** @type {HTMLElement} */ (event.target).closest(".scoreboard-include"))) return;
    // As a guide step applies its settings: the controls are written too, and the scoreboard
    // measures the answer to them. The button goes with the note: the means take the focus.
    dispatch({ type: "guide-step", policy: { ...state().policy, ...include }, at: performance.now() });
    byId("scoreboard-means").focus();
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
