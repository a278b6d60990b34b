// The policy form's panel: control changes become new results.
//
// The policy form: a valid change of any control asks for a new result; values that
// break a rule stay in their box with the rule beside them (view.js), and ask nothing.
// A keystroke in a text box (your own question) is typing: its result shows at once,
// and the inspection replays once typing pauses or is committed (core/requests.js).

import { readControls, writeControls } from "../views/view.js";

/** @param {import("./context.js").Context} context @returns {import("./context.js").Handlers} */
export function setUp({ byId, dispatch, state }) {
  // A policy field's text box (the share panel's link box is in the form too).
  const inTextField = (/** @type {Event} */ event) =>
    event.target instanceof HTMLInputElement && state().fields.some((f) => f.kind === "text" && f.name === /** @type {HTMLInputElement} */ (event.target).name);
  const typed = (/** @type {Event} */ event) => event.type === "input" && inTextField(event);
  const changed = (/** @type {Event} */ event) => {
    const { fields, policy } = state();
    const { policy: next, errors } = readControls(fields, policy);
    if (!errors) dispatch({ type: "controls-changed", policy: next, at: event.timeStamp, typing: typed(event) });
  };
  const form = /** @type {HTMLFormElement} */ (byId("policy-form"));
  form.addEventListener("input", changed);
  form.addEventListener("change", changed);
  form.addEventListener("submit", (event) => event.preventDefault());
  // A preset button sets the fields it names, then asks as any control change does.
  form.addEventListener("click", (event) => {
    const button = event.target instanceof Element ? event.target.closest("[data-preset]") : null;
    if (!(button instanceof HTMLElement)) return;
    const values = JSON.parse(button.dataset.preset ?? "{}");
    writeControls({ ...state().policy, ...values }, state().fields);
    changed(event);
  });
  // Enter, or leaving the box, commits what was typed.
  const commit = (/** @type {Event} */ event) => {
    if (inTextField(event)) dispatch({ type: "question-committed" });
  };
  form.addEventListener("keydown", (event) => {
    if (event.key === "Enter") commit(event);
  });
  form.addEventListener("focusout", commit);
  return {
    "write-controls": ({ policy }) => writeControls(policy, state().fields),
    "typing-timer": ({ seq, ms }) => window.setTimeout(() => dispatch({ type: "typing-paused", seq }), ms),
  };
}
