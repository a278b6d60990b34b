// SCORM 1.2: finding the LMS's API as ADL's discovery algorithm does, and a reporter
// that talks to it: status, resume data, checked predictions, score, session time.
// Without an API nothing happens, and nothing is waited for: discovery is synchronous.

import { encodeResume, interactionValues, sessionTime } from "./lms-core.js";

/** ADL's algorithm climbs at most this many parents from each starting window. */
export const MAX_PARENT_HOPS = 7;

/** The API object a window holds, if it is one; another origin's window holds none we may use. @param {Window} win */
function apiOf(win) {
  try {
    const api = /** @type {any} */ (win).API;
    return api && typeof api.LMSInitialize === "function" ? api : null;
  } catch {
    return null;
  }
}

/** A window's parent, or null at the top. @param {Window} win */
function parentOf(win) {
  try {
    return win.parent && win.parent !== win ? win.parent : null;
  } catch {
    return null;
  }
}

/** The API in `start` or one of its parents, climbing at most MAX_PARENT_HOPS levels. @param {Window | null} start */
function searchUp(start) {
  /** @type {Window | null} */
  let win = start;
  for (let hops = 0; win && hops <= MAX_PARENT_HOPS; hops += 1) {
    const api = apiOf(win);
    if (api) return api;
    win = parentOf(win);
  }
  return null;
}

/** @param {() => Window | null} get */
function safely(get) {
  try {
    return get();
  } catch {
    return null;
  }
}

/**
 * The LMS's SCORM 1.2 API, searched where ADL's algorithm looks: this window and its
 * parents, then the window that opened this one and its parents, then the window that
 * opened the top window (a player popup that frames the content) and its parents.
 * @param {Window} [from]
 * @returns {any} the API object, or null
 */
export function findApi(from = window) {
  return (
    searchUp(from) ??
    searchUp(safely(() => from.opener)) ??
    searchUp(safely(() => from.top?.opener ?? null))
  );
}

/** LMSGetValue as text; "" when the LMS refuses. @param {any} api @param {string} element */
function read(api, element) {
  const value = api.LMSGetValue(element);
  return value === undefined || value === null ? "" : String(value);
}

export class ScormReporter {
  /**
   * @param {any} api  the LMS's API (findApi)
   * @param {{score: boolean, now?: () => number}} options  score: report cmi.core.score
   */
  constructor(api, { score, now = () => performance.now() }) {
    this.api = api;
    this.reportScore = score;
    this.now = now;
    this.finished = false;
    this.api.LMSInitialize("");
    this.startedAt = this.now();
    const status = read(api, "cmi.core.lesson_status");
    this.completed = status === "completed" || status === "passed" || status === "failed";
    if (!this.completed) this.api.LMSSetValue("cmi.core.lesson_status", "incomplete");
    // Interactions are numbered on from earlier sessions; an LMS without them gives "".
    this.interactions = Number.parseInt(read(api, "cmi.interactions._count"), 10) || 0;
    this.resumeText = read(api, "cmi.suspend_data");
    this.api.LMSCommit("");
  }

  /** The suspend_data an earlier session left, "" on a first launch. */
  get savedResume() {
    return this.resumeText;
  }

  /** @param {import("./lms-core.js").Check} check @param {Date} when */
  recordPrediction(check, when) {
    if (this.finished) return;
    for (const [element, value] of interactionValues(this.interactions, check, when)) this.api.LMSSetValue(element, value);
    this.interactions += 1;
    this.api.LMSCommit("");
  }

  /** The score (unless built with --no-score), and a commit of everything set so far. @param {{raw: number} | null} result */
  setScore(result) {
    if (this.finished) return;
    if (this.reportScore && result) {
      this.api.LMSSetValue("cmi.core.score.min", "0");
      this.api.LMSSetValue("cmi.core.score.max", "100");
      this.api.LMSSetValue("cmi.core.score.raw", String(result.raw));
    }
    this.api.LMSCommit("");
  }

  /** A whole guided experiment is finished. */
  complete() {
    if (this.finished || this.completed) return;
    this.completed = true;
    this.api.LMSSetValue("cmi.core.lesson_status", "completed");
    this.api.LMSCommit("");
  }

  /**
   * Keep the resume data; returns what did not fit in suspend_data.
   * @param {import("./lms-core.js").Resume} resume
   */
  suspend(resume) {
    if (this.finished) return [];
    const { text, dropped } = encodeResume(resume);
    this.api.LMSSetValue("cmi.suspend_data", text);
    return dropped;
  }

  /** The learner leaves: resume data, exit mode and session time, then LMSFinish. @param {import("./lms-core.js").Resume} resume */
  finish(resume) {
    if (this.finished) return;
    this.suspend(resume);
    // Suspended even once complete, so that a relaunch still finds the notes and the stage.
    this.api.LMSSetValue("cmi.core.exit", "suspend");
    this.api.LMSSetValue("cmi.core.session_time", sessionTime(this.now() - this.startedAt));
    this.api.LMSCommit("");
    this.finished = true;
    this.api.LMSFinish("");
  }
}
