// The page's entry point: its state, its panels and its start-up around Python's.
//
// Entry point: reads the boot data and the address, keeps the page's one state
// (page-core.js), sets each panel up from one shared context, performs the effects the
// panels own, and stages the page's start-up around Python's.

import { loadNotebook } from "./browser/notes.js";
import { rememberedStore } from "./browser/store-file.js";
import { createPage, createPerformers, initialState } from "./core/page-core.js";
import { afterNextFrame, bootPython, engine } from "./engine-start.js";
import { createContext } from "./panels/context.js";
import * as baseline from "./panels/baseline.js";
import * as controls from "./panels/controls.js";
import * as editor from "./panels/editor.js";
import * as enginePanel from "./panels/engine.js";
import * as fullscreen from "./panels/fullscreen.js";
import * as guides from "./panels/guides.js";
import * as lms from "./panels/lms.js";
import * as notebook from "./panels/notebook.js";
import * as packaging from "./panels/packaging.js";
import * as playback from "./panels/playback.js";
import * as prediction from "./panels/prediction.js";
import * as results from "./panels/results.js";
import * as scoreboard from "./panels/scoreboard.js";
import * as sharing from "./panels/sharing.js";
import * as storeOpening from "./panels/store-opening.js";
import * as timeline from "./panels/timeline.js";
import { Player } from "./views/player.js";
import { stageExplanation } from "./views/experiment.js";
import { createPlaced } from "./views/view.js";

/** @typedef {import("./panels/context.js").Boot} Boot */

// In this order: the prediction shows itself when playback attaches (its first stage),
// and the LMS reporter exists before any guided step can reach stage 4.
const PANELS = [
  controls, results, enginePanel, prediction, baseline, notebook, lms, playback, fullscreen, sharing, storeOpening, guides, scoreboard,
  editor, packaging, timeline,
];

/** Read the boot data, the address and what this browser kept: the page's first state. */
function readState() {
  const boot = /** @type {Boot} */ (JSON.parse(document.getElementById("boot")?.textContent ?? "{}"));
  return { boot, ...initialState({ boot, remembered: rememberedStore(), search: location.search, notes: loadNotebook() }) };
}

/**
 * Set every panel up from one context, each in a task of its own, then call ready with
 * the page, which performs effects through the panels. The controls answer input from
 * their own set-up on; an effect asked for before its panel is set up waits for it
 * (createPerformers). @param {ReturnType<typeof readState>} read
 * @param {(page: ReturnType<typeof createPage>, started: () => void) => void} ready  started: call once the page has started
 */
function setUp({ boot, state }, ready) {
  const performers = createPerformers();
  const page = createPage(state, performers.perform);
  const player = new Player({
    onStage: (stage) => page.dispatch({ type: "stage-reached", stage }),
    explain: (stage) => stageExplanation(stage, page.state().shown.policy.scorer),
  });
  /** @type {() => void} */
  let markStarted = () => {};
  const started = new Promise((resolve) => (markStarted = () => resolve(undefined)));
  const context = createContext({ dispatch: page.dispatch, state: page.state, engine, player, boot, placed: createPlaced(), started });
  const next = (/** @type {number} */ index) => {
    if (index === PANELS.length) {
      performers.ready();
      return ready(page, markStarted);
    }
    performers.add(PANELS[index].setUp(context));
    inTaskOfItsOwn(() => next(index + 1));
  };
  next(0);
}

/** Run a step in a task of its own, queued behind what is waiting. A message channel
 * rather than a timer: a background tab does not defer it, and a test's fake clock
 * leaves it alone. @param {() => void} step */
function inTaskOfItsOwn(step) {
  const channel = new MessageChannel();
  channel.port1.onmessage = () => {
    channel.port1.close();
    step();
  };
  channel.port2.postMessage(null);
}

/** Run step once a fresh visit's first frames have drawn the whole page (first-frames.js
 * ends its steps by removing data-first-frames), at once when there are none. The page's
 * scripts can be in before those frames are drawn, and each task of its set-up would
 * then hold the next frame back. @param {() => void} step */
function afterFirstFrames(step) {
  const root = document.documentElement;
  if (!root.hasAttribute("data-first-frames")) return step();
  const watch = new MutationObserver(() => {
    if (root.hasAttribute("data-first-frames")) return;
    watch.disconnect();
    step();
  });
  watch.observe(root, { attributes: true, attributeFilter: ["data-first-frames"] });
}

// This module runs in the task where the parser finishes, which also holds Chromium's
// own end-of-parsing work (style-and-layout checks across the form controls). Once the
// first frames are drawn, the page reads its state, sets up each of its panels and
// shows its start each in a task of its own, so they do not add up to one long task.
afterFirstFrames(() => inTaskOfItsOwn(() => {
  const read = readState();
  inTaskOfItsOwn(() => setUp(read, (page, started) => inTaskOfItsOwn(() => {
    page.dispatch({ type: "start", notices: read.notices });
    started();
    // After the start: a status that arrived meanwhile is replayed now.
    engine.listen((status) => page.dispatch({ type: "engine-status", status }));
    // Python boots once the page has set itself up and drawn that, so its boot never
    // shares the processor with the page's own start-up work.
    afterNextFrame(bootPython);
  })));
}));
