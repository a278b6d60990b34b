// cmi5: when an LMS launches the page as a cmi5 assignable unit, the npm library
// @xapi/cmi5 (copied to js/vendor/ by `build.py --cmi5`) follows the launch contract:
// it fetches the auth token, reads the LMS's launch data and builds the statements,
// which the page's outbox (xapi-outbox.js) sends, so that none is lost when the learner
// closes the page. This module only says when: initialized at once, answered for each
// checked prediction, completed and passed or failed when a guided experiment is
// finished, terminated when the learner leaves. The resume data (lms-core.js) is kept in
// the LRS's state API for the registration, so a relaunch resumes, and an experiment
// completed once is never completed again.

import { XapiOutbox } from "./xapi-outbox.js";

/** The launch parameters a cmi5 LMS appends to the AU's address. */
export const LAUNCH_PARAMETERS = ["endpoint", "fetch", "actor", "registration", "activityId"];

/** Without a mastery score from the LMS, the AU passes at this share of guided steps predicted right. */
export const PASSING_SHARE = 0.5;

/** The AU's own state document in the LRS, per learner and registration. */
export const RESUME_STATE_ID = "retrieval-workbench-resume";

/**
 * The launch parameters when a cmi5 LMS launched the page, else null. Read once, at
 * start: the page later rewrites its address with the learner's settings.
 * @param {string} search
 * @returns {{endpoint: string, fetch: string, actor: object, registration: string, activityId: string} | null}
 */
export function cmi5Launch(search) {
  const params = new URLSearchParams(search);
  if (!LAUNCH_PARAMETERS.every((name) => params.get(name))) return null;
  let actor;
  try {
    actor = JSON.parse(params.get("actor") ?? "");
  } catch {
    return null;
  }
  if (!actor || typeof actor !== "object") return null;
  const get = (/** @type {string} */ name) => /** @type {string} */ (params.get(name));
  return { endpoint: get("endpoint"), fetch: get("fetch"), actor, registration: get("registration"), activityId: get("activityId") };
}

/** Passed or failed, by the LMS's mastery score when it gives one. @param {number} scaled @param {number | undefined} mastery */
export function passes(scaled, mastery) {
  return scaled >= (typeof mastery === "number" ? mastery : PASSING_SHARE);
}

export class Cmi5Reporter {
  /**
   * Start the session: the library's initialize() (auth token, launch data, learner
   * preferences, then the initialized statement, through the outbox).
   * @param {NonNullable<ReturnType<typeof cmi5Launch>>} launch
   * @param {{score: boolean, onSaved: (saved: boolean) => void}} options
   */
  static async start(launch, options) {
    // A path from the bundled scripts in js/, where the build copies the library; the
    // bundler leaves ./vendor/ as written (sitebuild/bundle.py). Typed as the npm package.
    // @ts-expect-error TS2307: the library is copied in by a --cmi5 build, so no file is here
    const library = await import("./vendor/cmi5.js");
    const Cmi5 = /** @type {typeof import("@xapi/cmi5").default} */ (library.default);
    /** @type {import("@xapi/cmi5").default | null} */
    let cmi5 = null;
    const outbox = new XapiOutbox({ endpoint: launch.endpoint, auth: () => `Basic ${cmi5?.getAuthToken()}`, onSaved: options.onSaved });
    // Every statement the library builds goes through the outbox instead of its own request.
    class Cmi5ThroughOutbox extends Cmi5 {
      /** @param {import("@xapi/xapi").Statement} statement @param {import("@xapi/cmi5").SendStatementOptions} [sendOptions] */
      sendXapiStatement(statement, sendOptions) {
        const built = sendOptions?.transform ? sendOptions.transform(statement) : statement;
        return /** @type {any} */ (outbox.statement(built));
      }
    }
    cmi5 = new Cmi5ThroughOutbox(launch);
    if (!(await cmi5.initialize())) throw new Error("the LMS's record store did not accept the initialized statement");
    return new Cmi5Reporter(cmi5, outbox, options);
  }

  /** @param {import("@xapi/cmi5").default} cmi5 @param {XapiOutbox} outbox @param {{score: boolean}} options */
  constructor(cmi5, outbox, { score }) {
    this.cmi5 = cmi5;
    this.outbox = outbox;
    this.reportScore = score;
    this.completed = false;
    this.terminated = false;
    /** @type {Promise<boolean> | null} terminated, once sent */
    this.terminating = null;
    this.exitTried = false;
  }

  /** Only a normal launch may complete, pass or fail; Browse and Review only look. */
  get normal() {
    return this.cmi5.getLaunchData().launchMode === "Normal";
  }

  /** The library's xAPI client, which initialize() made before this reporter was. */
  get xapi() {
    const xapi = this.cmi5.xapi;
    if (!xapi) throw new Error("the cmi5 library is not initialized");
    return xapi;
  }

  /** Where the resume document lives: this learner, this AU, this registration. */
  get stateAddress() {
    const { actor, activityId, registration } = this.cmi5.getLaunchParameters();
    return { agent: actor, activityId, registration };
  }

  /** The resume data an earlier session left, "" if none. Listed first, so a first launch asks for no missing document. */
  async savedResume() {
    const ids = (await this.xapi.getStates(this.stateAddress)).data;
    if (!Array.isArray(ids) || !ids.includes(RESUME_STATE_ID)) return "";
    const { data } = await this.xapi.getState({ ...this.stateAddress, stateId: RESUME_STATE_ID });
    return typeof data === "string" ? data : JSON.stringify(data);
  }

  /** Keep the resume data (encodeResume's text) for a relaunch. @param {string} text */
  keep(text) {
    if (this.terminated) return;
    this.outbox.keepState({ ...this.stateAddress, stateId: RESUME_STATE_ID }, JSON.parse(text));
  }

  /** A whole guided experiment is finished: completed, then passed or failed by the score. @param {{raw: number, scaled: number} | null} result */
  complete(result) {
    if (this.completed || this.terminated || !this.normal) return;
    this.completed = true;
    void this.cmi5.complete();
    if (!this.reportScore || !result) return;
    const score = { scaled: result.scaled, raw: result.raw, min: 0, max: 100 };
    if (passes(result.scaled, this.cmi5.getLaunchData().masteryScore)) void this.cmi5.pass(score);
    else void this.cmi5.fail(score);
  }

  /**
   * A prediction checked at stage 4, as a cmi5 allowed statement: answered, a choice of
   * record ids, the tray as the correct response, success, and the latency as duration.
   * @param {import("./lms-core.js").Check} check
   */
  recordPrediction(check) {
    if (this.terminated || !this.normal) return;
    const question = check.step ? `step-${check.step.replace(":", "-")}` : "free-exploration";
    const name = { "en-US": "Which records reach the selected context?" };
    const latency = { start: new Date(0), end: new Date(check.latencyMs) };
    const predicted = [...check.predicted].sort();
    const tray = [...check.tray].sort();
    void this.cmi5.interactionChoice("predictions", question, predicted, tray, undefined, name, undefined, check.matched, latency);
  }

  /**
   * The learner ends the session (Exit activity): the resume data, then terminated, once;
   * then the LMS's return address, if it gave one, once the record store accepted
   * terminated, or at the second try (the page's going sends what is left once more).
   * Resolves with whether it was accepted.
   * @param {string} resume
   */
  async exit(resume) {
    const accepted = await this.terminate(resume);
    const back = this.cmi5.getLaunchData().returnURL;
    if ((accepted || this.exitTried) && back) location.assign(back);
    this.exitTried = true;
    return accepted;
  }

  /** The page is going (closed, or left for another): terminated if not yet, and everything not yet accepted goes now. @param {string} resume */
  leave(resume) {
    void this.terminate(resume);
    this.outbox.flush();
  }

  /** The resume data and terminated, once; resolves with whether the store accepted terminated. @param {string} resume */
  terminate(resume) {
    if (!this.terminating) {
      this.keep(resume);
      this.terminated = true;
      this.terminating = /** @type {Promise<boolean>} */ (/** @type {unknown} */ (this.cmi5.terminate()));
    }
    return this.terminating;
  }
}
