// The policy form: a valid change of any control asks for a new result; values that
// break a rule stay in their box with the rule beside them (view.js), and ask nothing.

import { readControls, writeControls } from "../view.js";

/** @param {import("./context.js").Context} context @returns {import("./context.js").Handlers} */
export function setUp({ byId, dispatch, state }) {
  const changed = (/** @type {Event} */ event) => {
    const { fields, policy } = state();
    const { policy: next, errors } = readControls(fields, policy);
    if (!errors) dispatch({ type: "controls-changed", policy: next, at: event.timeStamp });
  };
  const form = /** @type {HTMLFormElement} */ (byId("policy-form"));
  form.addEventListener("input", changed);
  form.addEventListener("change", changed);
  form.addEventListener("submit", (event) => event.preventDefault());
  return {
    "write-controls": ({ policy }) => writeControls(policy, state().fields),
  };
}
