// The guided experiments' panel: the way in at the top, the steps, and the bar that keeps the step in force on screen.
//
// Applying a step sets its policy over the defaults and replays the inspection, or, for a
// step that says what it shows, opens it at that stage on that record with that part of
// the page in view (core/guided.js guideStep; Restart inspection still replays it). The step
// stays in force until a control is changed by hand; once every step of one experiment
// has reached its final stage, an LMS activity is complete (lms.js). A step can be
// started from the top of the page (Start here), from the guides' own list, or from the
// guide bar, which shows the step applied last, what to look for and the steps either
// side wherever the learner scrolls: on a phone the result is screens away from the list.

import { SCOREBOARD_PART, awaitsPrediction } from "../core/guided.js";
import { GUIDE_PARTS } from "../core/tables.js";
import { renderGuideBar, renderGuideClosing } from "../views/guides.js";

/**
 * Where each part a guided step can show is on the page (engine/fields.py's GUIDE_PARTS):
 * the table's part is the row of the step's record.
 * @type {Record<keyof typeof GUIDE_PARTS, (id: string) => string>}
 */
export const PART_PLACES = {
  reading: () => "#question-reading",
  table: (id) => `#records-body tr[data-record-id="${CSS.escape(id)}"]`,
  breakdown: () => "#score-breakdown",
  map: () => "#score-breakdown .meaning-map",
  tray: () => "#tray",
  scoreboard: () => "#scoreboard-means",
};

/** @typedef {import("../views/guides.js").Guide} Guide */

/** @param {import("./context.js").Context} context @returns {import("./context.js").Handlers} */
export function setUp({ byId, dispatch, state }) {
  const bar = byId("guide-bar");
  const line = byId("experiment-guide");
  /** The step the bar shows, whether a control was changed by hand since it was applied, and
   * whether the learner finished the guide there (the bar then closes it with what comes next). */
  /** @type {{guide: Guide, index: number, changed: boolean, finished?: boolean} | null} */
  let shown = null;
  // Whether the step's "Look for" is unfolded on a phone: it opens unfolded, so the claim and
  // the numbers it names are read together; folding it is the learner's choice, kept from step to step.
  let expanded = true;

  const show = () => {
    if (!shown) {
      bar.hidden = true;
      line.hidden = true;
      bar.replaceChildren();
      line.textContent = "";
      return;
    }
    const { guide, index, changed, finished } = shown;
    if (finished) {
      const guides = state().store.guides ?? [];
      const next = guides[guides.findIndex((/** @type {Guide} */ g) => g.id === guide.id) + 1];
      bar.innerHTML = String(renderGuideClosing(guide, next));
      bar.removeAttribute("data-expanded");
      bar.hidden = false;
      line.hidden = true;
      return;
    }
    bar.innerHTML = String(renderGuideBar(guide, index, changed, expanded, awaitsPrediction(state())));
    bar.toggleAttribute("data-expanded", expanded);
    bar.hidden = false;
    line.textContent = `Guided experiment “${guide.title}”, step ${index + 1} of ${guide.steps.length}: ${guide.steps[index].title}`;
    line.hidden = false;
  };

  /** @param {string} guideId @returns {Guide | undefined} */
  const guideOf = (guideId) => (state().store.guides ?? []).find((/** @type {Guide} */ g) => g.id === guideId);

  /** @param {Event} event @param {"start" | "list" | "bar"} from */
  const onClick = (event, from) => {
    const target = /** @type {HTMLElement} */ (event.target);
    if (from === "bar" && target.closest("[data-guide-close]")) {
      shown = null;
      show();
      return;
    }
    if (from === "bar" && shown && target.closest("[data-guide-finish]")) {
      shown = { ...shown, finished: true };
      show();
      /** @type {HTMLElement | null} */ (bar.querySelector("#guide-bar-count"))?.focus();
      return;
    }
    if (from === "bar" && target.closest("[data-guide-details]")) {
      expanded = !expanded;
      show();
      /** @type {HTMLElement | null} */ (bar.querySelector("[data-guide-details]"))?.focus();
      return;
    }
    const button = target.closest("[data-guide-step], [data-guide-go]");
    if (!(button instanceof HTMLElement)) return;
    const [guideId, index] = (button.dataset.guideStep ?? button.dataset.guideGo ?? "").split(":");
    const guide = guideOf(guideId);
    const step = guide?.steps[Number(index)];
    if (!guide || !step) return;
    for (const item of document.querySelectorAll("#guides li[data-step]")) item.removeAttribute("aria-current");
    document.querySelector(`#guides [data-guide-step="${CSS.escape(`${guide.id}:${index}`)}"]`)?.closest("li")?.setAttribute("aria-current", "step");
    // Before the step applies: a replay from stage 1 then announces that stage instead.
    byId("stage-announcer").textContent = `Applied: ${step.title} Look for: ${step.look_for}`;
    dispatch({ type: "guide-step", policy: step.policy ?? {}, at: event.timeStamp, guide: guide.id, index: Number(index), shows: step.shows });
    const forward = !shown || Number(index) >= shown.index;
    shown = { guide, index: Number(index), changed: false };
    show();
    if (from === "bar") {
      // The buttons were drawn again: keep the keyboard on the one that goes the same way.
      const again = bar.querySelector(forward ? ".guide-bar-buttons .primary" : ".guide-bar-buttons button:not([disabled])");
      /** @type {HTMLElement | null} */ (again ?? bar.querySelector("#guide-bar-count"))?.focus();
      return;
    }
    // From the top or the list: show the result (a step that says what it shows brings that
    // part into view itself). On narrow screens the controls fill the first screens, so
    // the playback is shown instead of the experiment's top.
    if (!step.shows) {
      const view = matchMedia("(max-width: 900px)").matches ? ".playback" : "#experiment";
      document.querySelector(view)?.scrollIntoView({ block: "start", behavior: matchMedia("(prefers-reduced-motion: reduce)").matches ? "auto" : "smooth" });
    }
    // Started from the top, the keyboard goes to the bar's step, from which Tab reaches
    // Previous and Next; an Apply button of the list keeps it, beside its step's text.
    if (from === "start") /** @type {HTMLElement | null} */ (bar.querySelector("#guide-bar-count"))?.focus({ preventScroll: true });
  };

  byId("start-here").addEventListener("click", (event) => onClick(event, "start"));
  byId("guides").addEventListener("click", (event) => onClick(event, "list"));
  bar.addEventListener("click", (event) => onClick(event, "bar"));

  // A policy control changed by hand leaves the step (page-core.js): the bar says so and
  // offers to apply it again. The share panel's own inputs are in the form too.
  const handChanged = (/** @type {Event} */ event) => {
    const name = /** @type {HTMLInputElement} */ (event.target).name;
    if (!shown || shown.changed || !state().fields.some((f) => f.name === name)) return;
    shown = { ...shown, changed: true };
    show();
  };
  byId("policy-form").addEventListener("input", handChanged);
  byId("policy-form").addEventListener("change", handChanged);

  // Another store brings other guides (view.js draws them again): its steps are not this bar's.
  new MutationObserver(() => {
    if (shown && guideOf(shown.guide.id) !== shown.guide) {
      shown = null;
      show();
    }
  }).observe(byId("start-list"), { childList: true });
  /** @type {(() => void) | null} */
  let stopWaiting = null;
  /**
   * The scoreboard is drawn after the answer, once the worker has measured it: the means
   * table then grows where the step brought it into view, and the browser keeps what was
   * below it on screen instead. So it is brought into view again once drawn, unless the
   * learner has moved the page meanwhile.
   * @param {() => void} reveal
   */
  const revealWhenMeasured = (reveal) => {
    stopWaiting?.();
    const section = byId("scoreboard");
    const drawn = new MutationObserver(() => {
      stop();
      reveal();
    });
    const moved = ["wheel", "touchmove", "keydown", "pointerdown"];
    const stop = () => {
      drawn.disconnect();
      for (const type of moved) removeEventListener(type, stop, true);
      stopWaiting = null;
    };
    drawn.observe(section, { attributes: true, attributeFilter: ["data-measured-policy"] });
    for (const type of moved) addEventListener(type, stop, true);
    stopWaiting = stop;
  };
  return {
    // A guided step's part of the page, brought to the top of the screen, where the bar
    // at the bottom leaves it in view.
    "reveal-part": ({ part, id }) => {
      // A step that waited for the learner's prediction shows its "Look for" from now on.
      if (shown && bar.querySelector(".look-for[data-held]")) show();
      const place = PART_PLACES[/** @type {keyof typeof GUIDE_PARTS} */ (part)];
      const selector = place ? place(id) : "#experiment";
      // For tests: where the part is, whose top and heading must be in view.
      bar.dataset.revealed = selector;
      const reveal = () => document.querySelector(selector)?.scrollIntoView({ block: "start" });
      reveal();
      if (part === SCOREBOARD_PART) revealWhenMeasured(reveal);
    },
  };
}
