// The full-screen panel for the experiment section.
//
// Expand experiment: full screen on the experiment section, following the browser's
// own state (Escape), and explaining itself where full screen is not allowed.

/** @param {import("./context.js").Context} context @returns {import("./context.js").Handlers} */
export function setUp({ byId }) {
  const experiment = byId("experiment");
  const button = byId("fullscreen");
  const note = byId("fullscreen-note");
  if (!document.fullscreenEnabled) {
    // An iframe without allow="fullscreen", or a browser that refuses it.
    button.setAttribute("aria-disabled", "true");
    note.textContent = "Full screen is not allowed here (for example, the page is embedded without permission). Open the page in its own tab to expand the experiment.";
    note.hidden = false;
  }
  button.addEventListener("click", async () => {
    if (!document.fullscreenEnabled) {
      note.hidden = false;
      return;
    }
    try {
      if (document.fullscreenElement) await document.exitFullscreen();
      else await experiment.requestFullscreen();
    } catch (error) {
      note.textContent = `The browser refused full screen (${error instanceof Error ? error.message : error}).`;
      note.hidden = false;
    }
  });
  // Escape leaves full screen without our button: follow the browser's state.
  document.addEventListener("fullscreenchange", () => {
    button.textContent = document.fullscreenElement ? "Exit full screen" : "Expand experiment";
  });
  return {};
}
