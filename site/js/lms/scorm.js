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

/**
 * What an LMS answers, as text; `failed` when its API throws (its window is gone).
 * @param {() => unknown} call @param {string} failed @returns {string}
 */
function answer(call, failed) {
  try {
    const value = call();
    return value === undefined || value === null ? "" : String(value);
  } catch {
    return failed;
  }
}

/**
 * Talks to the LMS's API. Everything worth keeping is committed when it changes, never
 * while the page is being dismissed: Chromium refuses the synchronous request an LMS's
 * LMSCommit usually makes then, so leaving calls only LMSFinish, which keeps the session
 * time and whatever the last pause left (the LMS sends it as it can while the page goes).
 * A commit the LMS refuses leaves the values set in its data model, to go with the next
 * commit; `onSaved` hears whether the LMS holds everything.
 */
export class ScormReporter {
  /**
   * @param {any} api  the LMS's API (findApi)
   * @param {{score: boolean, now?: () => number, onSaved?: (saved: boolean) => void}} options
   *   score: report cmi.core.score; onSaved: after each commit, and only when it changes
   */
  constructor(api, { score, now = () => performance.now(), onSaved = () => {} }) {
    /** @type {any} */
    this.api = api;
    this.reportScore = score;
    this.now = now;
    this.onSaved = onSaved;
    this.finished = false;
    /** Something was set that no commit the LMS accepted holds yet. */
    this.unsaved = false;
    /** What the LMS said at the last commit. */
    this.saved = true;
    this.commitQueued = false;
    this.call("LMSInitialize", "");
    this.startedAt = this.now();
    const status = this.read("cmi.core.lesson_status");
    this.completed = status === "completed" || status === "passed" || status === "failed";
    if (!this.completed) this.set("cmi.core.lesson_status", "incomplete");
    // Interactions are numbered on from earlier sessions; an LMS without them gives "".
    this.interactions = Number.parseInt(this.read("cmi.interactions._count"), 10) || 0;
    this.resumeText = this.read("cmi.suspend_data");
    /** The suspend_data last set (a relaunch starts from the LMS's copy). */
    this.suspended = this.resumeText;
    this.commit();
  }

  /** One API call, its answer as text ("false" when the API throws). @param {string} name @param {...string} args @returns {string} */
  call(name, ...args) {
    return answer(() => this.api[name](...args), "false");
  }

  /** An element's value, "" when the LMS refuses. @param {string} element @returns {string} */
  read(element) {
    return answer(() => this.api.LMSGetValue(element), "");
  }

  /** @param {string} element @param {string} value */
  set(element, value) {
    this.call("LMSSetValue", element, value);
    this.unsaved = true;
  }

  /** The suspend_data an earlier session left, "" on a first launch. */
  get savedResume() {
    return this.resumeText;
  }

  /** Commit what was set since the LMS last accepted a commit; returns whether it holds everything now. */
  commit() {
    if (this.finished || !this.unsaved) return !this.unsaved;
    const saved = this.call("LMSCommit", "") === "true";
    if (saved) this.unsaved = false;
    if (saved !== this.saved) {
      this.saved = saved;
      this.onSaved(saved);
    }
    return saved;
  }

  /** Commit once this task's changes are all set: a checked prediction brings its score and progress with it. */
  commitSoon() {
    if (this.commitQueued) return;
    this.commitQueued = true;
    queueMicrotask(() => {
      this.commitQueued = false;
      this.commit();
    });
  }

  /** @param {import("./lms-core.js").Check} check @param {Date} when */
  recordPrediction(check, when) {
    if (this.finished) return;
    for (const [element, value] of interactionValues(this.interactions, check, when)) this.set(element, value);
    this.interactions += 1;
    this.commitSoon();
  }

  /** The score (unless built with --no-score), committed with everything set so far. @param {{raw: number} | null} result */
  setScore(result) {
    if (this.finished) return;
    if (this.reportScore && result) {
      this.set("cmi.core.score.min", "0");
      this.set("cmi.core.score.max", "100");
      this.set("cmi.core.score.raw", String(result.raw));
    }
    this.commitSoon();
  }

  /** A whole guided experiment is finished. */
  complete() {
    if (this.finished || this.completed) return;
    this.completed = true;
    this.set("cmi.core.lesson_status", "completed");
    this.commitSoon();
  }

  /**
   * Set the resume data when it changed (the caller decides when to commit it); returns
   * what did not fit in suspend_data.
   * @param {import("./lms-core.js").Resume} resume
   */
  suspend(resume) {
    if (this.finished) return [];
    const { text, dropped } = encodeResume(resume);
    if (text !== this.suspended) {
      this.set("cmi.suspend_data", text);
      this.suspended = text;
    }
    return dropped;
  }

  /** The learner leaves: resume data, exit mode and session time, then LMSFinish, the last call. @param {import("./lms-core.js").Resume} resume */
  finish(resume) {
    if (this.finished) return;
    this.suspend(resume);
    // Suspended even once complete, so that a relaunch still finds the notes and the stage.
    this.set("cmi.core.exit", "suspend");
    this.set("cmi.core.session_time", sessionTime(this.now() - this.startedAt));
    this.finished = true;
    this.call("LMSFinish", "");
  }
}
