// Experiment records, pure: baselines, their differences, prediction checks, observations.
//
// Experiment records, pure: a baseline snapshot and its differences from the current
// result, the check of a learner's prediction, and notebook observations and kept scoreboards.

import { fixedHalfUp } from "./decimals.js";
import { scorerRow } from "./scorers.js";

/** @typedef {import("./shapes.js").Result} Result */
/** @typedef {import("./tables.js").Policy} Policy */

/**
 * @typedef {object} Snapshot  what Capture baseline keeps: the settings and visible result
 * @property {Policy} policy
 * @property {string[]} selected
 * @property {number} words_used
 * @property {number} budget_words
 * @property {{found: number, total: number}} coverage
 * @property {Record<string, string>} outcomes
 */

/** @param {Result} result @returns {Snapshot} */
export function snapshot(result) {
  return {
    policy: { ...result.policy },
    selected: [...result.selected],
    words_used: result.words_used,
    budget_words: result.budget_words,
    coverage: { found: result.coverage.found, total: result.coverage.total },
    outcomes: Object.fromEntries(result.records.map((r) => [r.id, r.outcome])),
  };
}

/**
 * The settings that differ and the records whose outcome changed.
 * @param {Snapshot} before
 * @param {Snapshot} after
 */
export function compare(before, after) {
  // A baseline saved before a field existed does not name it: nothing to compare.
  const names = /** @type {(keyof Policy)[]} */ (Object.keys(after.policy)).filter((name) => name in before.policy);
  return {
    settings: names
      .filter((name) => before.policy[name] !== after.policy[name])
      .map((name) => ({ name, before: before.policy[name], after: after.policy[name] })),
    outcomes: Object.keys(after.outcomes)
      .filter((id) => before.outcomes[id] !== after.outcomes[id])
      .map((id) => ({ id, before: before.outcomes[id] ?? "absent", after: after.outcomes[id] })),
  };
}

/**
 * Which guesses held: predicted records that were selected, predicted ones that were
 * not, and selected ones nobody predicted. An empty prediction means "empty tray".
 * @param {string[]} predicted
 * @param {Result} result
 */
export function checkPrediction(predicted, result) {
  const selected = new Set(result.selected);
  const guessed = new Set(predicted);
  const held = predicted.filter((id) => selected.has(id));
  const wrong = predicted.filter((id) => !selected.has(id));
  const missed = result.selected.filter((id) => !guessed.has(id));
  return { held, wrong, missed, exact: wrong.length === 0 && missed.length === 0 };
}

/** @param {unknown} value */
function show(value) {
  if (typeof value === "boolean") return value ? "true" : "false";
  // Text as JSON writes it, so its end (or that it is empty) is plain.
  return typeof value === "string" && (value === "" || /[\s"]/.test(value)) ? JSON.stringify(value) : String(value);
}

/**
 * One notebook observation: settings, link, tray and every exclusion with its reason.
 * @param {Result} result
 * @param {string} link
 * @param {Date} when
 */
export function observation(result, link, when) {
  const byId = Object.fromEntries(result.records.map((r) => [r.id, r]));
  return {
    time: when.toISOString(),
    link,
    question: result.question.text,
    own: result.question.own,
    policy: { ...result.policy },
    tray: result.selected.map((id) => ({ id, words: byId[id].words, text: byId[id].text })),
    words_used: result.words_used,
    coverage: { found: result.coverage.found, total: result.coverage.total, supporting: result.coverage.supporting },
    exclusions: result.records.filter((r) => r.outcome !== "selected").map((r) => ({ id: r.id, outcome: r.outcome, reason: r.reason })),
  };
}

/** The Markdown text an observation adds to the notebook. @param {ReturnType<typeof observation>} o */
export function observationText(o) {
  const settings = Object.entries(o.policy).map(([k, v]) => `${k}=${show(v)}`).join(" ");
  const tray = o.tray.length ? o.tray.map((t) => `${t.id} (${t.words} words)`).join(", ") : "empty";
  const coverage = o.own ? "coverage not measured (your own question declares no supporting facts)" : `coverage ${o.coverage.found} of ${o.coverage.total}`;
  const lines = [
    `### Observation ${o.time.replace("T", " ").slice(0, 16)} UTC`,
    `${o.own ? "Your own question" : "Question"}: ${o.question}`,
    `Settings: ${settings}`,
    `Link: ${o.link}`,
    `Tray: ${tray}; ${o.words_used} of ${o.policy.budget_words} words; ${coverage}`,
    "Exclusions:",
    ...o.exclusions.map((e) => `- ${e.id} ${e.outcome}: ${e.reason}`),
  ];
  return lines.join("\n");
}

/**
 * A scoreboard kept in the notebook: the settings it measured (all but the question and the
 * scorer, which an evaluation varies), each scorer's means and the best per measure.
 * @typedef {object} KeptScoreboard
 * @property {"scoreboard"} kind
 * @property {string} time
 * @property {string} link        reopens these settings with the scoreboard measured
 * @property {Record<string, unknown>} policy
 * @property {number} k
 * @property {Record<string, string>} measure_names
 * @property {Record<string, Record<string, number> | null>} means
 * @property {Record<string, string[]>} best
 * @property {string[]} measured
 * @property {{question: string, reason: string}[]} unmeasured
 * @property {string} [out_of_scope]  why supporting records were out of scope (absent from older notebooks)
 */

/**
 * @param {import("./shapes.js").Evaluation} evaluation
 * @param {string} link
 * @param {Date} when
 * @returns {KeptScoreboard}
 */
export function keptScoreboard(evaluation, link, when) {
  const { question: _question, question_text: _text, scorer: _scorer, ...policy } = evaluation.policy;
  return {
    kind: "scoreboard",
    time: when.toISOString(),
    link,
    policy,
    k: evaluation.k,
    measure_names: { ...evaluation.measure_names },
    means: Object.fromEntries(Object.entries(evaluation.means).map(([scorer, means]) => [scorer, means && { ...means }])),
    best: Object.fromEntries(Object.entries(evaluation.best).map(([measure, scorers]) => [measure, [...scorers]])),
    measured: [...evaluation.measured],
    unmeasured: evaluation.unmeasured.map((u) => ({ question: u.question, reason: u.reason })),
    out_of_scope: evaluation.out_of_scope?.why ?? "",
  };
}

/** The Markdown a kept scoreboard adds to the notebook: a table of means, the best marked. @param {KeptScoreboard} kept */
export function scoreboardText(kept) {
  const settings = Object.entries(kept.policy).map(([k, v]) => `${k}=${show(v)}`).join(" ");
  const measures = Object.keys(kept.measure_names);
  const count = kept.measured.length;
  const rows = Object.entries(kept.means).map(([scorer, means]) => {
    const cells = measures.map((m) => (means ? `${fixedHalfUp(means[m], 3)}${kept.best[m]?.includes(scorer) ? " (best)" : ""}` : "–"));
    return `| ${scorerRow(scorer).name} | ${cells.join(" | ")} |`;
  });
  return [
    `### Scoreboard ${kept.time.replace("T", " ").slice(0, 16)} UTC`,
    `Settings: ${settings}`,
    `Link: ${kept.link}`,
    `Means over ${count} question${count === 1 ? "" : "s"} with supporting records, k = ${kept.k}:`,
    "",
    `| Scorer | ${measures.map((m) => kept.measure_names[m]).join(" | ")} |`,
    `|---|${measures.map(() => "---:").join("|")}|`,
    ...rows,
    ...(kept.unmeasured.length ? ["", ...kept.unmeasured.map((u) => `Not measured: ${u.question} ${u.reason}`)] : []),
    ...(kept.out_of_scope ? ["", `Out of scope: ${kept.out_of_scope}`] : []),
  ].join("\n");
}

/**
 * The links the notebook's text keeps, as "Link: …" lines (observations and kept scoreboards
 * write them so), each titled by the heading above it. Only links to this page's own site
 * are kept: the text is the learner's to edit, and a link may be any text.
 * @param {string} text @param {string} page  the page's address
 * @returns {{title: string, href: string}[]}
 */
export function keptLinks(text, page) {
  const here = new URL(page);
  /** @type {{title: string, href: string}[]} */
  const links = [];
  let heading = "";
  for (const line of text.split("\n")) {
    const head = /^#{1,6}\s+(.+?)\s*$/.exec(line);
    if (head) {
      heading = head[1];
      continue;
    }
    const found = /^Link:\s*(\S+)\s*$/.exec(line);
    const url = found ? parsedUrl(found[1]) : null;
    if (!url) continue;
    // The same scheme and host as the page's: never javascript: or data:, never another site.
    if (url.protocol !== here.protocol || url.host !== here.host) continue;
    links.push({ title: heading || `Link ${links.length + 1}`, href: url.href });
  }
  return links;
}

/** @param {string} text @returns {URL | null} */
function parsedUrl(text) {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}
