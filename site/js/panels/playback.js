// The playback panel: the inspection's controls, shortcuts and replays.
//
// The inspection's playback (player.js): its controls and keyboard shortcuts, the stage
// a link opens at, and the replay from the start when a new result is shown (held still
// while that result is computed).

/** @param {import("./context.js").Context} context @returns {import("./context.js").Handlers} */
export function setUp({ state, player }) {
  player.attach();
  player.attachShortcuts();
  const { stage } = state().sharing;
  if (stage !== null) player.showStage(stage);
  return {
    "restart-inspection": () => player.restartForNewResult(),
    "hold-inspection": () => player.holdForNewResult(),
  };
}
