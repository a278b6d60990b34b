// The thin player around playback.js, which shows the stage on the page.
//
// The thin player around playback.js: owns the timing state, wakes while playing each
// time the shown tenth of a second changes, and shows the stage on the page
// (data-stage on the experiment and the table, the timeline, an announcement).

import * as timing from "../core/playback.js";
import { STAGES, stageExplanation } from "./experiment.js";

/** @param {string} id */
const byId = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

// The page opens showing the final stage already: writing what is there would still
// restyle the experiment in the frame after the page sets itself up.

/**
 * Show a text, changing the element's one text node in place where it has one: the clock
 * changes ten times a second while playing, and a new node each time is garbage each time.
 * @param {HTMLElement} element @param {string} text
 */
function setText(element, text) {
  if (element.textContent === text) return;
  const only = element.firstChild;
  if (only instanceof Text && only === element.lastChild) only.data = text;
  else element.textContent = text;
}

/** @param {HTMLElement} element @param {string} name @param {string} value */
function setAttribute(element, name, value) {
  if (element.getAttribute(name) !== value) element.setAttribute(name, value);
}

/** The longest a playback waits, undrawn, for a result that is to restart it. */
const HOLD_MS = 300;

export class Player {
  /**
   * @param {{onStage?: (stage: number) => void, now?: () => number, explain?: (stage: number) => string}} [options]
   *   explain: a stage's explanation, which may name the scorer in force
   */
  constructor(options = {}) {
    this.now = options.now ?? (() => performance.now());
    this.onStage = options.onStage ?? (() => {});
    this.explain = options.explain ?? ((/** @type {number} */ stage) => stageExplanation(stage, "tfidf"));
    /** @type {timing.Timing} */
    this.t = timing.finished(1);
    this.stage = 0; // nothing shown yet: the first render sets every stage marker
    this.wake = 0;
    this.held = 0;
    this.reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");
  }

  /** Wire the controls; call once. */
  attach() {
    byId("play-pause").addEventListener("click", () => this.toggle());
    byId("next-stage").addEventListener("click", () => this.update(timing.nextStage(this.t, this.now())));
    byId("restart").addEventListener("click", () => this.update(timing.restart(this.t)));
    const speed = /** @type {HTMLSelectElement} */ (byId("speed"));
    speed.addEventListener("change", () => this.update(timing.setSpeed(this.t, Number(speed.value), this.now())));
    const timeline = /** @type {HTMLInputElement} */ (byId("timeline"));
    timeline.addEventListener("input", () => this.update(timing.seek(this.t, Number(timeline.value), this.now())));
    for (const button of document.querySelectorAll("[data-jump]")) {
      const stage = Number(/** @type {HTMLElement} */ (button).dataset.jump);
      button.addEventListener("click", () => this.update(timing.seek(timing.pause(this.t, this.now()), (stage - 1) * timing.STAGE_SECONDS, this.now())));
    }
    // A hidden tab pauses: the learner should not miss stages they cannot see.
    document.addEventListener("visibilitychange", () => {
      if (document.hidden && timing.isPlaying(this.t)) this.update(timing.pause(this.t, this.now()));
    });
    this.render();
  }

  /** Space plays or pauses, N goes to the next stage, R restarts; never while typing. */
  attachShortcuts() {
    document.addEventListener("keydown", (event) => {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
      const target = /** @type {HTMLElement} */ (event.target);
      if (target.closest("input, textarea, select, [contenteditable]")) return;
      const key = event.key.toLowerCase();
      // Space keeps its own meaning on buttons, links and disclosures.
      if (key === " " && target.closest("button, a, summary")) return;
      if (key === " ") this.toggle();
      else if (key === "n") this.nextStage();
      else if (key === "r") this.restart();
      else return;
      event.preventDefault();
    });
  }

  toggle() {
    const now = this.now();
    this.update(timing.isPlaying(this.t) ? timing.pause(this.t, now) : timing.play(this.t, now));
  }

  nextStage() {
    this.update(timing.nextStage(this.t, this.now()));
  }

  restart() {
    this.update(timing.restart(this.t));
  }

  /** Inputs changed: inspect the new result from the start, unless motion is reduced. */
  restartForNewResult() {
    if (this.reducedMotion.matches) this.update({ ...timing.finished(this.t.speed) });
    else this.update(timing.play(timing.restart(this.t), this.now()));
  }

  /**
   * A new result is on its way and will restart the inspection: draw no frames until
   * then, or for HOLD_MS at most (an answer that never restarts it). The timing runs on
   * meanwhile, so a held playback resumes where it would have been.
   */
  holdForNewResult() {
    if (!timing.isPlaying(this.t)) return;
    clearTimeout(this.wake);
    clearTimeout(this.held);
    this.held = setTimeout(() => this.update(this.t), HOLD_MS);
  }

  /** Open at a given stage (used by links), paused. @param {number} stage */
  showStage(stage) {
    this.update(timing.seek(timing.pause(this.t, this.now()), stage >= 4 ? timing.TOTAL_SECONDS : (stage - 1) * timing.STAGE_SECONDS, this.now()));
  }

  /**
   * Show a new timing; while it plays, wake when the shown time next changes rather than
   * every frame: nothing on the page moves in between, and every frame asked for is a
   * rendering pass on the main thread, for the thirty seconds each change replays.
   * @param {timing.Timing} next
   */
  update(next) {
    clearTimeout(this.held);
    clearTimeout(this.wake);
    this.t = next;
    this.render();
    if (timing.isPlaying(this.t)) this.wake = setTimeout(() => this.tick(), timing.msUntilShownChanges(this.t, this.now()));
  }

  tick() {
    this.update(timing.settleEnd(this.t, this.now()));
  }

  render() {
    const seconds = timing.shownSeconds(timing.elapsed(this.t, this.now()));
    const stage = timing.stageAt(seconds);
    const info = STAGES[stage - 1];
    const playing = timing.isPlaying(this.t);
    // Called each time the shown tenth changes: touch the DOM only where something changed.
    setText(byId("play-pause"), playing ? "Pause" : "Play");
    const shown = seconds.toFixed(1);
    const timeline = /** @type {HTMLInputElement} */ (byId("timeline"));
    // The range's own value is normalised ("30.0" reads back as "30"): compare numbers.
    if (Number(timeline.value) !== Number(shown)) timeline.value = shown;
    setAttribute(timeline, "aria-valuetext", `${shown} of 30 seconds, stage ${stage} of 4: ${info.title}`);
    setText(byId("clock"), `${shown} s of 30 s`);
    setText(byId("stage-name"), `Stage ${stage} of 4: ${info.title}`);
    if (stage !== this.stage) {
      const opening = this.stage === 0;
      for (const jump of document.querySelectorAll("[data-jump]")) {
        setAttribute(/** @type {HTMLElement} */ (jump), "aria-pressed", String(Number(/** @type {HTMLElement} */ (jump).dataset.jump) === stage));
      }
      this.stage = stage;
      setAttribute(byId("experiment"), "data-stage", String(stage));
      setAttribute(byId("records"), "data-stage", String(stage));
      const explanation = this.explain(stage);
      setText(byId("stage-explainer"), explanation);
      // The page opens on the final stage; announce changes, not the opening.
      if (!opening) byId("stage-announcer").textContent = explanation;
      this.onStage(stage);
    }
  }
}
