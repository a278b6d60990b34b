// Reporting to a learning management system. SCORM 1.2 (scorm.js) when an LMS's API is
// found: incomplete on start, each checked prediction as an interaction, the score,
// completed once a whole guided experiment is finished, resume data, and session time on
// leaving; a relaunch resumes. cmi5 (cmi5-reporter.js) when a cmi5 LMS launched the
// page from a `--cmi5` package. Each is told what counts as it changes, and the resume
// data once the learner pauses, so that leaving has nothing left to lose. Without an LMS
// nothing happens and nothing waits.

import { queryOf } from "../core/page-core.js";
import { cmi5Launch } from "../lms/cmi5-reporter.js";
import { decodeResume, encodeResume, score } from "../lms/lms-core.js";
import { ScormReporter, findApi } from "../lms/scorm.js";

/**
 * What build.py writes into the boot data: `score` is false for `--no-score` packages,
 * `cmi5` true for `--cmi5` ones (the library is then in js/vendor/).
 * @typedef {{score: boolean, cmi5: boolean}} LmsOptions
 */

/** The resume data (settings, stage, notes, baseline) goes to the LMS once it has not changed for this long. */
export const RESUME_PAUSE_MS = 2000;

/** What the status line says while the LMS does not hold everything. */
export const UNSAVED_TEXT = "Your progress is not saved in the LMS yet; it is sent again with your next change.";

/** @param {import("./context.js").Context} context @returns {import("./context.js").Handlers} */
export function setUp({ byId, dispatch, state, player, boot }) {
  const options = /** @type {LmsOptions} */ ({ score: true, cmi5: false, .../** @type {any} */ (boot).lms });
  const api = findApi();
  const launch = !api && options.cmi5 ? cmi5Launch(location.search) : null;
  document.documentElement.dataset.lms = api ? "scorm" : launch ? "cmi5" : "none";
  if (api || launch) dispatch({ type: "predictions-recorded" });
  if (!api && !launch) return { "complete-activity": () => {}, "report-prediction": () => {}, "report-progress": () => {}, "seek-stage": ({ stage }) => player.showStage(stage) };

  // Messages for the learner: what the LMS cannot keep, did not accept, or does not hold yet.
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
  const onSaved = (/** @type {boolean} */ saved) => say("saved", saved ? null : UNSAVED_TEXT);
  const scorm = api ? new ScormReporter(api, { score: options.score, onSaved }) : null;

  /** @returns {import("../lms/lms-core.js").Resume} */
  const resumeNow = () => {
    const s = state();
    return {
      query: queryOf(s).slice(1),
      stage: player.stage || 4,
      step: s.guided.activeStep,
      progress: s.guided.progress,
      baseline: s.notes.notebook.baseline,
      notes: s.notes.notebook.text,
    };
  };
  const guides = () => state().store.guides ?? [];
  /** The resume data as cmi5 keeps it: no 4,096-character limit there. */
  const resumeText = () => encodeResume(resumeNow(), Number.POSITIVE_INFINITY).text;

  /** @type {import("../lms/cmi5-reporter.js").Cmi5Reporter | null} set once the LMS answered */
  let cmi5Now = null;
  /** @type {Promise<import("../lms/cmi5-reporter.js").Cmi5Reporter | null>} */
  const cmi5 = launch
    ? import("../lms/cmi5-reporter.js")
        .then(({ Cmi5Reporter }) => Cmi5Reporter.start(launch, { score: options.score, onSaved }))
        .catch((/** @type {any} */ error) => {
          say("cmi5", `This activity could not connect to the LMS (${error?.message ?? error}); it works, but nothing is recorded.`);
          return null;
        })
    : Promise.resolve(null);

  // SCORM's suspend_data follows every change at once, so the page can say as the learner
  // types when the notes no longer fit the LMS's 4,096 characters; the commit waits for a pause.
  const setResume = () => {
    if (!scorm) return;
    const dropped = scorm.suspend(resumeNow());
    say(
      "suspend",
      dropped.length
        ? `Your ${dropped.join(" and ")} no longer fit in what this LMS keeps for a relaunch (4,096 characters), so a relaunch will resume your stage, settings and progress without them. They stay in this browser; use Export notes to keep a copy.`
        : null,
    );
  };
  /** Until an earlier session's resume data is in, a change must not replace it. */
  let resumeRead = Boolean(scorm);
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let pause;
  const keepAfterPause = () => {
    if (!resumeRead) return;
    setResume();
    clearTimeout(pause);
    pause = setTimeout(() => {
      scorm?.commit();
      cmi5Now?.keep(resumeText());
    }, RESUME_PAUSE_MS);
  };

  if (scorm) {
    const saved = decodeResume(scorm.savedResume);
    // Right after this set-up; the page holds the effects until every panel is set up.
    if (saved) queueMicrotask(() => dispatch({ type: "lms-resumed", resume: saved, at: performance.now() }));
  }
  // A cmi5 relaunch resumes from the LRS's state document, once it has answered.
  void cmi5.then(async (reporter) => {
    cmi5Now = reporter;
    const saved = reporter ? decodeResume(await reporter.savedResume().catch(() => "")) : null;
    if (saved) dispatch({ type: "lms-resumed", resume: saved, at: performance.now() });
    resumeRead = true;
  });

  // What the learner would resume with: the notes, the baseline, observations, the
  // configuration asked for and the inspection's stage (both marked on the experiment).
  byId("notebook").addEventListener("input", keepAfterPause);
  for (const id of ["add-observation", "baseline-capture", "baseline-clear"]) byId(id).addEventListener("click", keepAfterPause);
  new MutationObserver(keepAfterPause).observe(byId("experiment"), { attributes: true, attributeFilter: ["data-stage", "data-asked-policy"] });

  if (launch) {
    // cmi5 has no unload call of its own: the learner ends the session here, and leaving the page ends it too.
    const exit = document.createElement("button");
    exit.type = "button";
    exit.id = "lms-exit";
    exit.textContent = "Exit activity";
    byId("export-notes").after(exit);
    exit.addEventListener("click", () => {
      exit.disabled = true;
      void cmi5.then(async (reporter) => {
        if (reporter && !(await reporter.exit(resumeText()))) exit.disabled = false;
      });
    });
  }

  // Leaving commits nothing (a page being dismissed may not make the synchronous request
  // an LMS's commit makes): everything that counts was committed as it changed.
  addEventListener("pagehide", () => {
    clearTimeout(pause);
    scorm?.finish(resumeNow());
    cmi5Now?.leave(resumeText());
  });

  return {
    "complete-activity": () => {
      scorm?.complete();
      const result = score(state().guided.progress, guides());
      void cmi5.then((reporter) => reporter?.complete(result));
    },
    "report-prediction": ({ check }) => {
      scorm?.recordPrediction(check, new Date());
      void cmi5.then((reporter) => reporter?.recordPrediction(check));
    },
    "report-progress": () => {
      setResume();
      scorm?.setScore(score(state().guided.progress, guides()));
      const text = launch ? resumeText() : "";
      void cmi5.then((reporter) => reporter?.keep(text));
    },
    "seek-stage": ({ stage }) => player.showStage(stage),
  };
}
