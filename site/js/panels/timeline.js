// The timeline's panel: the as-of line, dragged along the axis or moved with the keys, asks
// the question as of that hour.
//
// The line is a slider of its own, outside the lanes the result views redraw, so a drag or
// the keyboard's focus survives every answer. Each position asks at once, and its answer
// shows at the stage in view without replaying the inspection (a followed change,
// core/requests.js), so the table and the tray follow the line. Where a pointer or a key
// puts it, and what it says, are the pure rules of views/timeline.js.

import { asOfAt, asOfByKey, asOfText, asOfWords, place, sideOf, spanOf } from "../views/timeline.js";
import { writeControls } from "../views/view.js";

/** @param {import("./context.js").Context} context @returns {import("./context.js").Handlers} */
export function setUp({ byId, dispatch, state }) {
  const area = byId("timeline-area");
  const handle = byId("timeline-handle");
  const label = byId("timeline-handle-label");
  const span = () => spanOf(state().store.records);
  let dragging = false;

  /** Put the line at an hour and say it. @param {number} asOf */
  const show = (asOf) => {
    const hours = span();
    const at = place(asOf, hours);
    handle.style.left = `${at.toFixed(2)}%`;
    // Near either end the label leans inwards, so it never leaves the screen.
    handle.dataset.side = sideOf(at);
    handle.setAttribute("aria-valuemax", String(hours));
    handle.setAttribute("aria-valuenow", String(asOf));
    handle.setAttribute("aria-valuetext", asOfText(asOf, state().shown));
    label.textContent = asOf === 0 ? "now" : `as of ${asOfWords(asOf)}`;
  };

  /** Ask as of an hour, unless that is asked already. @param {number} asOf @param {number} at */
  const ask = (asOf, at) => {
    show(asOf);
    const { policy, fields } = state();
    if (policy.as_of_hours === asOf) return;
    const next = { ...policy, as_of_hours: asOf };
    writeControls(next, fields);
    dispatch({ type: "controls-changed", policy: next, at, follow: true });
  };

  /** The hour under the pointer. @param {PointerEvent} event */
  const under = (event) => {
    const box = area.getBoundingClientRect();
    return asOfAt((event.clientX - box.left) / Math.max(1, box.width), span());
  };

  area.addEventListener("pointerdown", (event) => {
    if (event.button !== 0) return;
    event.preventDefault();
    dragging = true;
    area.setPointerCapture(event.pointerId);
    handle.focus({ preventScroll: true });
    ask(under(event), event.timeStamp);
  });
  area.addEventListener("pointermove", (event) => {
    if (dragging) ask(under(event), event.timeStamp);
  });
  const letGo = () => {
    if (!dragging) return;
    dragging = false;
    // Answers drawn during the drag were not said (the line was moving): say the last one.
    show(state().policy.as_of_hours);
  };
  area.addEventListener("pointerup", letGo);
  area.addEventListener("pointercancel", letGo);
  handle.addEventListener("keydown", (event) => {
    const next = asOfByKey(event.key, state().policy.as_of_hours, span());
    if (next === null) return;
    event.preventDefault();
    ask(next, event.timeStamp);
  });

  // An answer drawn (the lanes carry the as-of they show), a control, a guided step or a
  // link moved the as-of: the line follows the policy asked for, and says what the answer holds.
  new MutationObserver(() => {
    if (!dragging) show(state().policy.as_of_hours);
  }).observe(byId("timeline-lanes"), { subtree: true, attributes: true, attributeFilter: ["data-as-of", "data-span"], childList: true });
  // The page's CSP refuses style attributes in markup: the line is placed from here.
  show(state().policy.as_of_hours);
  return {};
}
