// The guided experiments' panel: steps applied and followed.
//
// Guided experiments: applying a step sets its policy over the defaults and replays the
// inspection. The step stays in force until a control is changed by hand; once every
// step of one experiment has reached its final stage, an LMS activity is complete (lms.js).

/** @param {import("./context.js").Context} context @returns {import("./context.js").Handlers} */
export function setUp({ byId, dispatch, state }) {
  byId("guides").addEventListener("click", (event) => {
    const button = /** @type {HTMLElement} */ (event.target).closest("[data-guide-step]");
    if (!(button instanceof HTMLElement)) return;
    const [guideId, index] = (button.dataset.guideStep ?? "").split(":");
    const guide = (state().store.guides ?? []).find((/** @type {any} */ g) => g.id === guideId);
    const step = guide?.steps[Number(index)];
    if (!step) return;
    for (const item of document.querySelectorAll("#guides li[data-step]")) item.removeAttribute("aria-current");
    button.closest("li")?.setAttribute("aria-current", "step");
    // Before the step applies: a replay from stage 1 then announces that stage instead.
    byId("stage-announcer").textContent = `Applied: ${step.title} Look for: ${step.look_for}`;
    dispatch({ type: "guide-step", policy: step.policy, at: event.timeStamp, guide: guide.id, index: Number(index) });
    // On narrow screens the controls fill the first screens: show the playback instead.
    const target = matchMedia("(max-width: 900px)").matches ? ".playback" : "#experiment";
    document.querySelector(target)?.scrollIntoView({ block: "start", behavior: matchMedia("(prefers-reduced-motion: reduce)").matches ? "auto" : "smooth" });
  });
  return {};
}
