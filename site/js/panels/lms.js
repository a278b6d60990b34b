// Reporting to a learning management system. SCORM 1.2 (scorm.js) when an LMS's API is
// found: incomplete on start, each checked prediction as an interaction, the score,
// completed once a whole guided experiment is finished, resume data and session time on
// leaving; a relaunch resumes. cmi5 (cmi5-reporter.js) when a cmi5 LMS launched the
// page from a `--cmi5` package. Without an LMS nothing happens and nothing waits.

import { queryOf } from "../core/page-core.js";
import { cmi5Launch } from "../lms/cmi5-reporter.js";
import { decodeResume, encodeResume, score } from "../lms/lms-core.js";
import { ScormReporter, findApi } from "../lms/scorm.js";

/**
 * What build.py writes into the boot data: `score` is false for `--no-score` packages,
 * `cmi5` true for `--cmi5` ones (the library is then in js/vendor/).
 * @typedef {{score: boolean, cmi5: boolean}} LmsOptions
 */

/** @param {import("./context.js").Context} context @returns {import("./context.js").Handlers} */
export function setUp({ byId, dispatch, state, player, boot }) {
  const options = /** @type {LmsOptions} */ ({ score: true, cmi5: false, .../** @type {any} */ (boot).lms });
  const api = findApi();
  const scorm = api ? new ScormReporter(api, { score: options.score }) : null;
  const launch = options.cmi5 ? cmi5Launch(location.search) : null;
  document.documentElement.dataset.lms = scorm ? "scorm" : launch ? "cmi5" : "none";
  if (!scorm && !launch) return { "complete-activity": () => {}, "report-prediction": () => {}, "report-progress": () => {}, "seek-stage": ({ stage }) => player.showStage(stage) };

  // Messages for the learner: what the LMS cannot keep, or did not accept.
  const status = document.createElement("p");
  status.id = "lms-status";
  status.className = "storage-warning";
  status.setAttribute("role", "status");
  status.hidden = true;
  byId("storage-warning").after(status);
  /** @type {Map<string, string>} */
  const messages = new Map();
  /** @param {string} key @param {string | null} text */
  const say = (key, text) => {
    if (text) messages.set(key, text);
    else messages.delete(key);
    status.textContent = [...messages.values()].join(" ");
    status.hidden = messages.size === 0;
  };

  /** @returns {import("../lms/lms-core.js").Resume} */
  const resumeNow = () => {
    const s = state();
    return {
      query: queryOf(s).slice(1),
      stage: player.stage || 4,
      step: s.activeStep,
      progress: s.progress,
      baseline: s.notebook.baseline,
      notes: s.notebook.text,
    };
  };
  const guides = () => state().store.guides ?? [];

  // The resume data follows the notes as they change, so the page can say at once when
  // they no longer fit the LMS's 4,096 characters.
  const keepResume = () => {
    if (!scorm) return;
    const dropped = scorm.suspend(resumeNow());
    say(
      "suspend",
      dropped.length
        ? `Your ${dropped.join(" and ")} no longer fit in what this LMS keeps for a relaunch (4,096 characters), so a relaunch will resume your stage, settings and progress without them. They stay in this browser; use Export notes to keep a copy.`
        : null,
    );
  };
  if (scorm) {
    const saved = decodeResume(scorm.savedResume);
    // After the page's start, which follows every panel's setUp in this same task.
    if (saved) queueMicrotask(() => dispatch({ type: "lms-resumed", resume: saved, at: performance.now() }));
    byId("notebook").addEventListener("input", keepResume);
    for (const id of ["add-observation", "baseline-capture", "baseline-clear"]) byId(id).addEventListener("click", keepResume);
  }

  /** @type {Promise<import("../lms/cmi5-reporter.js").Cmi5Reporter | null>} */
  const cmi5 = launch
    ? import("../lms/cmi5-reporter.js")
        .then(({ Cmi5Reporter }) => Cmi5Reporter.start(launch, { score: options.score, onProblem: (text) => say("cmi5", text) }))
        .catch((/** @type {any} */ error) => {
          say("cmi5", `This activity could not connect to the LMS (${error?.message ?? error}); it works, but nothing is recorded.`);
          return null;
        })
    : Promise.resolve(null);
  // A cmi5 relaunch resumes from the LRS's state document, once it has answered.
  void cmi5.then(async (reporter) => {
    const saved = reporter ? decodeResume(await reporter.savedResume().catch(() => "")) : null;
    if (saved) dispatch({ type: "lms-resumed", resume: saved, at: performance.now() });
  });
  /** The resume data as cmi5 keeps it: no 4,096-character limit there. */
  const resumeText = () => encodeResume(resumeNow(), Number.POSITIVE_INFINITY).text;
  if (launch) {
    // cmi5 has no unload call of its own: the learner ends the session here, and leaving the page ends it too.
    const exit = document.createElement("button");
    exit.type = "button";
    exit.id = "lms-exit";
    exit.textContent = "Exit activity";
    byId("export-notes").after(exit);
    exit.addEventListener("click", () => {
      exit.disabled = true;
      void cmi5.then((reporter) => reporter?.terminate({ andReturn: true, resume: resumeText() }));
    });
  }

  const leave = () => {
    scorm?.finish(resumeNow());
    void cmi5.then((reporter) => reporter?.terminate({ andReturn: false, resume: resumeText() }));
  };
  addEventListener("pagehide", leave);
  document.addEventListener("visibilitychange", () => {
    if (document.hidden) keepResume();
  });

  return {
    "complete-activity": () => {
      const result = score(state().progress, guides());
      scorm?.complete();
      void cmi5.then((reporter) => reporter?.complete(result));
    },
    "report-prediction": ({ check }) => {
      scorm?.recordPrediction(check, new Date());
      void cmi5.then((reporter) => reporter?.recordPrediction(check));
    },
    "report-progress": () => {
      keepResume();
      scorm?.setScore(score(state().progress, guides()));
      const text = launch ? resumeText() : "";
      void cmi5.then((reporter) => reporter?.keep(text));
    },
    "seek-stage": ({ stage }) => player.showStage(stage),
  };
}
