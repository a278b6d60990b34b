// The baseline panel: keep a result, then compare every later one with it.
//
// Capture baseline: keep the current settings and outcomes, then compare every later
// result with them. The baseline is saved with the notebook.

import { compare, snapshot } from "../core/observations.js";
import { renderComparison } from "../views/comparison.js";
import { place, setHidden, setText } from "../views/view.js";

/** @param {import("./context.js").Context} context @returns {import("./context.js").Handlers} */
export function setUp({ byId, dispatch, state, placed }) {
  const capture = byId("baseline-capture");
  const clear = byId("baseline-clear");
  const show = () => {
    const { notes: { notebook }, shown } = state();
    setText(capture, notebook.baseline ? "Replace baseline" : "Capture baseline");
    setHidden(clear, !notebook.baseline);
    if (!notebook.baseline) {
      place(placed, "baseline-comparison", "");
      return;
    }
    const before = /** @type {import("../core/observations.js").Snapshot} */ (notebook.baseline);
    const after = snapshot(shown);
    place(placed, "baseline-comparison", renderComparison(before, after, compare(before, after)));
  };
  capture.addEventListener("click", () => dispatch({ type: "baseline-captured" }));
  clear.addEventListener("click", () => {
    dispatch({ type: "baseline-cleared" });
    capture.focus();
  });
  show();
  return { "show-baseline": show };
}
