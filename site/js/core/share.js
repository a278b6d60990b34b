// A link's options besides the policy (stage, hidden controls, embedding, scoreboard), read and validated.
//
// What an instructor can put in a link besides the policy: the stage to open at,
// controls to hide (so a class changes one policy), whether to hide the
// explanations, and whether the scoreboard opens measured (a learner's link carries that
// too once they measure). Read and validated like the policy fields, with notices.

export const SHARE_PARAMS = ["stage", "hide", "explain", "embed", "scoreboard"];

/**
 * @typedef {object} ShareOptions
 * @property {number | null} stage      1–4, or null for the default (final stage)
 * @property {string[]} hide            policy field names whose controls are hidden
 * @property {boolean} hideExplanations
 * @property {boolean} embed
 * @property {boolean} scoreboard      the scoreboard opens measured
 */

/** A link with none of these options. @type {Readonly<ShareOptions>} */
export const NO_SHARE_OPTIONS = Object.freeze({ stage: null, hide: [], hideExplanations: false, embed: false, scoreboard: false });

/**
 * @param {string} search
 * @param {string[]} fieldNames
 * @returns {{options: ShareOptions, notices: string[]}}
 */
export function readShareOptions(search, fieldNames) {
  const params = new URLSearchParams(search);
  /** @type {string[]} */
  const notices = [];
  /** @type {ShareOptions} */
  const options = { ...NO_SHARE_OPTIONS, hide: [] };
  const one = (/** @type {string} */ name) => {
    const values = params.getAll(name);
    if (values.length > 1) notices.push(`The link gives ${name} ${values.length} times; it was ignored.`);
    return values.length === 1 ? values[0] : null;
  };
  const short = (/** @type {string} */ v) => (v.length > 40 ? `${v.slice(0, 37)}…` : v);
  const stage = one("stage");
  if (stage !== null) {
    if (/^[1-4]$/.test(stage)) options.stage = Number(stage);
    else notices.push(`The link's stage=“${short(stage)}” must be 1, 2, 3 or 4; it was ignored.`);
  }
  const hide = one("hide");
  if (hide !== null && hide !== "") {
    for (const name of hide.split(",")) {
      if (fieldNames.includes(name)) options.hide.push(name);
      else notices.push(`The link asks to hide “${short(name)}”, which is not a control; it was ignored.`);
    }
  }
  const explain = one("explain");
  if (explain !== null) {
    if (explain === "0" || explain === "1") options.hideExplanations = explain === "0";
    else notices.push(`The link's explain=“${short(explain)}” must be 0 or 1; it was ignored.`);
  }
  const embed = one("embed");
  if (embed !== null) {
    if (embed === "0" || embed === "1") options.embed = embed === "1";
    else notices.push(`The link's embed=“${short(embed)}” must be 0 or 1; it was ignored.`);
  }
  const scoreboard = one("scoreboard");
  if (scoreboard !== null) {
    if (scoreboard === "0" || scoreboard === "1") options.scoreboard = scoreboard === "1";
    else notices.push(`The link's scoreboard=“${short(scoreboard)}” must be 0 or 1; it was ignored.`);
  }
  return { options, notices };
}

/**
 * The share parameters as query entries (only those that differ from the defaults).
 * @param {ShareOptions} options
 * @returns {Record<string, string>}
 */
export function shareParams(options) {
  /** @type {Record<string, string>} */
  const out = {};
  if (options.stage !== null) out.stage = String(options.stage);
  if (options.hide.length) out.hide = options.hide.join(",");
  if (options.hideExplanations) out.explain = "0";
  if (options.embed) out.embed = "1";
  if (options.scoreboard) out.scoreboard = "1";
  return out;
}

/**
 * An iframe snippet an instructor can paste into a course page.
 * @param {string} src
 * @param {string} title
 */
export function iframeSnippet(src, title) {
  const attr = (/** @type {string} */ v) => v.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
  return `<iframe src="${attr(src)}" title="${attr(title)}" width="100%" height="900" style="border:0" allow="fullscreen; clipboard-write" loading="lazy"></iframe>`;
}
