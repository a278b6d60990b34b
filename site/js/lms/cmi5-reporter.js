// cmi5: when an LMS launches the page as a cmi5 assignable unit, the npm library
// @xapi/cmi5 (copied to js/vendor/ by `build.py --cmi5`) follows the launch contract:
// it fetches the auth token, reads the LMS's launch data and sends the statements. This
// module only says when: initialized at once, completed and passed or failed when a
// guided experiment is finished, terminated when the learner leaves. The resume data
// (lms-core.js) is kept in the LRS's state API for the registration, so a relaunch
// resumes, and an experiment completed once is never completed again.

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
   * preferences, then the initialized statement).
   * @param {NonNullable<ReturnType<typeof cmi5Launch>>} launch
   * @param {{score: boolean, onProblem: (message: string) => void}} options
   */
  static async start(launch, options) {
    // A path from the bundled scripts in js/, where the build copies the library; the
    // bundler leaves ./vendor/ as written (sitebuild/bundle.py). Typed as the npm package.
    // @ts-expect-error TS2307: the library is copied in by a --cmi5 build, so no file is here
    const library = await import("./vendor/cmi5.js");
    const Cmi5 = /** @type {typeof import("@xapi/cmi5").default} */ (library.default);
    const cmi5 = new Cmi5(launch);
    await cmi5.initialize();
    return new Cmi5Reporter(cmi5, options);
  }

  /** @param {import("@xapi/cmi5").default} cmi5 @param {{score: boolean, onProblem: (message: string) => void}} options */
  constructor(cmi5, { score, onProblem }) {
    this.cmi5 = cmi5;
    this.reportScore = score;
    this.onProblem = onProblem;
    this.completed = false;
    this.terminated = false;
    /** @type {Promise<unknown>} statements go out one after another, in the order cmi5 requires */
    this.queue = Promise.resolve();
  }

  /** Only a normal launch may complete, pass or fail; Browse and Review only look. */
  get normal() {
    return this.cmi5.getLaunchData().launchMode === "Normal";
  }

  /** @param {() => Promise<unknown>} send @param {string} what */
  enqueue(send, what) {
    this.queue = this.queue.then(send).catch((/** @type {any} */ error) => {
      this.onProblem(`The LMS did not accept ${what} (${error?.message ?? error}).`);
    });
    return this.queue;
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
    this.enqueue(() => this.xapi.setState({ ...this.stateAddress, stateId: RESUME_STATE_ID, state: JSON.parse(text) }), "your progress");
  }

  /** A whole guided experiment is finished: completed, then passed or failed by the score. @param {{raw: number, scaled: number} | null} result */
  complete(result) {
    if (this.completed || this.terminated || !this.normal) return;
    this.completed = true;
    this.enqueue(() => this.cmi5.complete(), "the completed statement");
    if (!this.reportScore || !result) return;
    const score = { scaled: result.scaled, raw: result.raw, min: 0, max: 100 };
    if (passes(result.scaled, this.cmi5.getLaunchData().masteryScore)) this.enqueue(() => this.cmi5.pass(score), "the passed statement");
    else this.enqueue(() => this.cmi5.fail(score), "the failed statement");
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
    this.enqueue(() => this.cmi5.interactionChoice("predictions", question, predicted, tray, undefined, name, undefined, check.matched, latency), "a checked prediction");
  }

  /** The learner leaves: the resume data, then terminated, once; then the LMS's return address, if it gave one. @param {{andReturn: boolean, resume: string}} options */
  terminate({ andReturn, resume }) {
    if (this.terminated) return this.queue;
    this.keep(resume);
    this.terminated = true;
    return this.enqueue(async () => {
      await this.cmi5.terminate();
      const back = this.cmi5.getLaunchData().returnURL;
      if (andReturn && back) location.assign(back);
    }, "the terminated statement");
  }
}
