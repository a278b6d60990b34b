// SCORM 1.2 reporting for LMS packages: when an LMS API is present (window.API in a
// parent frame), the activity is reported incomplete on start and completed when the
// learner reaches the final stage of a guided experiment. Without one, nothing happens.

/** @returns {any} the LMS's API object, or null */
function findApi() {
  /** @type {Window | null} */
  let frame = window;
  for (let depth = 0; frame && depth < 8; depth += 1) {
    try {
      const api = /** @type {any} */ (frame).API;
      if (api && typeof api.LMSInitialize === "function") return api;
    } catch {
      // a cross-origin parent: not an LMS that packaged us
    }
    if (frame.parent === frame) break;
    frame = frame.parent;
  }
  try {
    return /** @type {any} */ (window.opener)?.API ?? null;
  } catch {
    return null;
  }
}

export class ScormReporter {
  constructor() {
    this.api = findApi();
    this.completed = false;
    if (!this.api) return;
    this.api.LMSInitialize("");
    const status = String(this.api.LMSGetValue("cmi.core.lesson_status") ?? "");
    this.completed = status === "completed" || status === "passed";
    if (!this.completed) {
      this.api.LMSSetValue("cmi.core.lesson_status", "incomplete");
      this.api.LMSCommit("");
    }
    window.addEventListener("pagehide", () => this.api.LMSFinish(""));
  }

  get active() {
    return Boolean(this.api);
  }

  /** The learner saw the final stage of a guided experiment step. */
  complete() {
    if (!this.api || this.completed) return;
    this.completed = true;
    this.api.LMSSetValue("cmi.core.lesson_status", "completed");
    this.api.LMSCommit("");
  }
}
