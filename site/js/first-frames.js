// The page's one inline script: a fresh visit's first frames, drawn in steps.
//
// The first frames of a fresh visit, drawn in steps: the header, then the experiment's
// text and controls, then its playback, then its pipeline diagram, then everything else.
// Laid out in one frame, a cold renderer's first frame is a long task on a slow machine;
// in steps, each frame lays out a part. Each step only adds content below or beside what
// is already drawn, so nothing on screen moves; the whole page is drawn about four
// frames later.
//
// Not a module: it runs inline in <head>, before the body is parsed and before any frame
// (build.py inlines it and lists its hash in the page's CSP). Without it, nothing is
// staged. A reload, a back/forward visit or a link to a #fragment is drawn whole, so the
// browser can restore the scroll position or scroll to the fragment. Being the one
// script that runs before the first frame, it also marks a visit that will be saved for
// offline use, whose message line then keeps its room from that frame on.
(() => {
  const root = document.documentElement;
  // A visit that will be saved for offline use says so above the experiment once it is:
  // that line keeps its room from the first frame (site.css), so nothing moves when it
  // comes. A worker already in control means the page was saved before; where service
  // workers are missing or refused (a sandboxed frame throws), nothing is said.
  try {
    if (navigator.serviceWorker && !navigator.serviceWorker.controller) root.dataset.offlineSaving = "";
  } catch {
    // no offline use here
  }
  const navigation = /** @type {PerformanceNavigationTiming | undefined} */ (performance.getEntriesByType("navigation")[0]);
  if (location.hash || (navigation && navigation.type !== "navigate")) return;
  root.dataset.firstFrames = "header"; // site.css hides <main> and the footer
  const done = () => delete root.dataset.firstFrames;
  // requestAnimationFrame runs at the start of a frame, before its style and layout, and
  // the parser never runs inside a frame: what is parsed then is what the frame draws.
  // A step lasts until a frame has drawn its content whole. The parser can yield before
  // the body (a fresh visit's first frame may hold the <head> alone), and a step taken
  // on such a frame would leave the header to share the next frame with the controls,
  // one long task again.
  /** @param {string} step @param {string} end  matches once the step's content is parsed @param {() => void} next */
  const stay = (step, end, next) => {
    const frame = () => {
      if (root.dataset.firstFrames === undefined) return; // ended by the timer
      root.dataset.firstFrames = step;
      requestAnimationFrame(document.querySelector(end) ? next : frame);
    };
    return frame;
  };
  // The header ends where <main> starts, the form where the pipeline starts, the
  // playback where the memory cards start, the pipeline with #experiment.
  requestAnimationFrame(
    stay("header", "main", stay("form", ".pipeline", stay("controls", "#cards-title", stay("pipeline", "#experiment + *", done)))),
  );
  setTimeout(done, 1000); // a tab opened in the background draws no frames
})();
