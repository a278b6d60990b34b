// What the page reports to a learning management system, pure: SCORM 1.2's time
// formats, the resume data kept in cmi.suspend_data (and its fallback when it does not
// fit), guided-experiment progress, completion and the score. No DOM and no LMS here.

/** SCORM 1.2 keeps at most this many characters in cmi.suspend_data (CMIString4096). */
export const SUSPEND_DATA_LIMIT = 4096;

/** Resume data's format; data in any other version is ignored, never misread. */
export const RESUME_VERSION = 1;

/**
 * A guided experiment's progress over a session and its relaunches.
 * @typedef {object} Progress
 * @property {string[]} reached            "guide:index" of every step that reached its final stage
 * @property {Record<string, boolean>} first  per step: did the first prediction checked there match the tray
 * @property {string | null} completed     the first guided experiment whose every step reached its final stage
 */

/** @returns {Progress} */
export function emptyProgress() {
  return { reached: [], first: {}, completed: null };
}

/** The key of a guided step. @param {{guide: string, index: number}} step */
export function stepKey(step) {
  return `${step.guide}:${step.index}`;
}

/** Two digits, or more for hours. @param {number} n @param {number} [width] */
const pad = (n, width = 2) => String(n).padStart(width, "0");

/**
 * A duration as SCORM 1.2's CMITimespan, HHHH:MM:SS.SS: four-digit hours, centiseconds
 * rounded down; negative durations count as zero, and anything beyond the format's
 * largest value is written as that value.
 * @param {number} ms
 */
export function sessionTime(ms) {
  const centis = Math.min(Math.floor(Math.max(0, ms) / 10), 9999 * 360_000 + 359_999);
  const hours = Math.floor(centis / 360_000);
  const minutes = Math.floor((centis % 360_000) / 6000);
  const seconds = Math.floor((centis % 6000) / 100);
  return `${pad(hours, 4)}:${pad(minutes)}:${pad(seconds)}.${pad(centis % 100)}`;
}

/** A clock time as SCORM 1.2's CMITime, HH:MM:SS, in the learner's local time. @param {Date} when */
export function clockTime(when) {
  return `${pad(when.getHours())}:${pad(when.getMinutes())}:${pad(when.getSeconds())}`;
}

/**
 * What a relaunch restores.
 * @typedef {object} Resume
 * @property {string} query                the configuration, as the page's address writes it (no "?")
 * @property {number} stage                the inspection stage, 1 to 4
 * @property {{guide: string, index: number} | null} step  the guided step in force, if any
 * @property {Progress} progress
 * @property {object | null} baseline      the captured baseline snapshot
 * @property {string | null} notes         the notebook's text; null when it did not fit
 */

/**
 * The resume data as suspend_data text, at most `limit` characters. When everything does
 * not fit, the notes go first, then the baseline; `dropped` names what was left out, so
 * the page can say so. Progress, configuration and stage are always kept (they are small).
 * @param {Resume} resume
 * @param {number} [limit]
 * @returns {{text: string, dropped: ("notes" | "baseline")[]}}
 */
export function encodeResume(resume, limit = SUSPEND_DATA_LIMIT) {
  const core = {
    v: RESUME_VERSION,
    q: resume.query,
    s: resume.stage,
    st: resume.step,
    p: resume.progress,
  };
  /** @type {[("notes" | "baseline")[], object][]} */
  const tries = [
    [[], { ...core, b: resume.baseline, n: resume.notes }],
    [["notes"], { ...core, b: resume.baseline, n: null }],
    [["notes", "baseline"], { ...core, b: null, n: null }],
  ];
  for (const [dropped, data] of tries) {
    // Nothing left out that was empty anyway.
    const really = dropped.filter((part) => (part === "notes" ? resume.notes : resume.baseline));
    const text = JSON.stringify(data);
    if (text.length <= limit) return { text, dropped: really };
  }
  throw new Error("The page's progress alone does not fit in suspend_data");
}

/**
 * Resume data read back, or null when there is none or it is not ours.
 * @param {string} text
 * @returns {Resume | null}
 */
export function decodeResume(text) {
  if (!text) return null;
  let data;
  try {
    data = JSON.parse(text);
  } catch {
    return null;
  }
  if (data?.v !== RESUME_VERSION || typeof data.q !== "string") return null;
  const stage = Number.isInteger(data.s) && data.s >= 1 && data.s <= 4 ? data.s : 4;
  const step = data.st && typeof data.st.guide === "string" && Number.isInteger(data.st.index) ? { guide: data.st.guide, index: data.st.index } : null;
  const p = data.p ?? {};
  /** @type {Progress} */
  const progress = {
    reached: Array.isArray(p.reached) ? p.reached.filter((/** @type {unknown} */ k) => typeof k === "string") : [],
    first: Object.fromEntries(Object.entries(p.first ?? {}).filter(([, v]) => typeof v === "boolean")),
    completed: typeof p.completed === "string" ? p.completed : null,
  };
  return {
    query: data.q,
    stage,
    step,
    progress,
    baseline: data.b && typeof data.b === "object" ? data.b : null,
    notes: typeof data.n === "string" ? data.n : null,
  };
}

/** The line that separates the notes kept in this browser from the LMS's copy. */
export const LOCAL_NOTES_HEADING = "--- Notes kept in this browser ---";

/**
 * The notebook's text after a relaunch: the LMS's copy, and the notes this browser held
 * when they differ, after it, so that no note is lost.
 * @param {string} local
 * @param {string | null} fromLms
 */
export function mergeNotes(local, fromLms) {
  if (fromLms === null || fromLms === local || !fromLms.trim()) return local;
  if (!local.trim() || fromLms.includes(local)) return fromLms;
  return `${fromLms.trimEnd()}\n\n${LOCAL_NOTES_HEADING}\n${local}`;
}

/**
 * The guided experiment whose every step reached its final stage, first in the store's
 * order, or null.
 * @param {string[]} reached
 * @param {{id: string, steps: unknown[]}[]} guides
 */
export function completedGuide(reached, guides) {
  const done = new Set(reached);
  return guides.find((g) => g.steps.length > 0 && g.steps.every((_, index) => done.has(stepKey({ guide: g.id, index }))))?.id ?? null;
}

/**
 * The score: the share of all guided steps in the store (every step of every guided
 * experiment) whose first prediction checked at its final stage matched the tray, as
 * 0–100, rounded to a whole number. Null when the store has no guided steps.
 * @param {Progress} progress
 * @param {{id: string, steps: unknown[]}[]} guides
 * @returns {{raw: number, scaled: number, matched: number, steps: number} | null}
 */
export function score(progress, guides) {
  const keys = guides.flatMap((g) => g.steps.map((_, index) => stepKey({ guide: g.id, index })));
  if (keys.length === 0) return null;
  const matched = keys.filter((k) => progress.first[k] === true).length;
  const scaled = matched / keys.length;
  return { raw: Math.round(scaled * 100), scaled, matched, steps: keys.length };
}

/**
 * A checked prediction, as the LMS records it.
 * @typedef {object} Check
 * @property {string | null} step      the guided step, "guide:index", or null outside one
 * @property {string[]} predicted      the record ids the learner predicted
 * @property {string[]} tray           the record ids actually selected
 * @property {boolean} matched         exactly the tray: nothing missing, nothing extra
 * @property {number} latencyMs        from the configuration being applied to the prediction's last change
 */

/**
 * One cmi.interactions.n entry: its elements and values, in the order SCORM 1.2 wants
 * them set (the id first). Record ids are joined with commas, sorted, so the same set is
 * always the same text.
 * @param {number} n      the entry's index (cmi.interactions._count before it)
 * @param {Check} check
 * @param {Date} when
 * @returns {[string, string][]}
 */
export function interactionValues(n, check, when) {
  const base = `cmi.interactions.${n}`;
  const id = check.step ? `step-${check.step.replace(":", "-")}` : "free-exploration";
  return [
    [`${base}.id`, `prediction-${n + 1}-${id}`],
    [`${base}.type`, "choice"],
    [`${base}.student_response`, [...check.predicted].sort().join(",")],
    [`${base}.correct_responses.0.pattern`, [...check.tray].sort().join(",")],
    [`${base}.result`, check.matched ? "correct" : "wrong"],
    [`${base}.latency`, sessionTime(check.latencyMs)],
    [`${base}.time`, clockTime(when)],
  ];
}
