// The scoreboard: every question of the store under every scorer, as Python measured it.
//
// Pure: an Evaluation (and a Sweep) in, markup out. Every number and sentence comes from
// the engine's evaluation (engine/evaluate.py): the means, the best per measure, each
// question's first supporting rank, hits within k and its supporting records' outcomes,
// why supporting records are out of scope and the settings that let them in, the reasons
// a question is not measured, and the measures' headings.

import { fixedHalfUp } from "../core/decimals.js";
import { scorerRow } from "../core/scorers.js";
import { FIELD_TABLE, OUTCOME_TABLE } from "../core/tables.js";
import { html } from "./html.js";

/** @typedef {import("../core/shapes.js").Evaluation} Evaluation */
/** @typedef {import("../core/shapes.js").Sweep} Sweep */
/** @typedef {import("../core/shapes.js").Measures} Measures */

/** A scorer's short name. @param {string} scorer */
const scorerName = (scorer) => scorerRow(scorer).name;

/** A policy field's label, as its control shows it. @param {string} field */
export const fieldLabel = (field) => FIELD_TABLE.find((row) => row.name === field)?.label ?? field;

/** A label inside a sentence: its first letter lowered ("Diversity (MMR λ)": "diversity (MMR λ)"). @param {string} field */
export const fieldInSentence = (field) => {
  const label = fieldLabel(field);
  return label.charAt(0).toLowerCase() + label.slice(1);
};

/** The swept field's value in force. @param {Sweep} sweep */
const inForce = (sweep) => Number(/** @type {Record<string, unknown>} */ (sweep.policy)[sweep.field]);

/** A measure to three places, as the command line prints it. @param {number} value */
const shown = (value) => fixedHalfUp(value, 3);

/** "a", "a and b", "a, b and c". @param {string[]} items */
const listed = (items) => (items.length < 2 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`);

/**
 * Why supporting records are out of scope, in the engine's words, and a button that applies
 * the settings the engine found to let them in (panels/scoreboard.js); empty when the scope
 * leaves none out.
 * @param {Evaluation} evaluation
 */
export function scopeNote(evaluation) {
  const note = evaluation.out_of_scope;
  if (!note) return "";
  const offer = note.include_text ? html`<p><button type="button" class="scoreboard-include">Include them: ${note.include_text}</button></p>` : "";
  return html`<div class="scoreboard-scope" role="note"><p>${note.why}</p>${offer}</div>`;
}

/**
 * The means table: scorers as rows, measures as columns, the best of each column marked
 * with a word as well as weight, so colour is never the only signal; where every scorer
 * ties, none is marked, and a line under the table says so.
 * @param {Evaluation} evaluation
 */
export function meansTable(evaluation) {
  const names = Object.entries(evaluation.measure_names);
  const measured = evaluation.measured.length;
  const questions = `${measured} question${measured === 1 ? "" : "s"}`;
  const caption = `Mean over ${questions} with supporting records, k = ${evaluation.k} (maximum retrieved records)`;
  const rows = Object.entries(evaluation.means).map(([scorer, means]) => {
    const cells = names.map(([name]) => {
      if (!means) return html`<td>–</td>`;
      const value = shown(/** @type {Record<string, number>} */ (/** @type {unknown} */ (means))[name]);
      if (!(evaluation.best[name] ?? []).includes(scorer)) return html`<td>${value}</td>`;
      return html`<td class="best" data-best="true"><strong>${value}</strong> <span class="best-mark">best</span></td>`;
    });
    return html`<tr data-scorer="${scorer}"><th scope="row">${scorerName(scorer)}</th>${cells}</tr>`;
  });
  const skipped = evaluation.unmeasured.map((each) => html`<li data-question="${each.question}">${each.question} ${each.reason}.</li>`);
  const unmeasured = skipped.length ? html`<ul class="scoreboard-unmeasured">${skipped}</ul>` : "";
  const measuredAny = Object.values(evaluation.means).some((means) => means !== null);
  const tied = measuredAny ? names.filter(([name]) => (evaluation.best[name] ?? []).length === 0).map(([, heading]) => heading) : [];
  const on = tied.length === names.length ? "every measure" : listed(tied);
  const ties = tied.length ? html`<p class="scoreboard-ties">Every scorer ties on ${on}, so none is marked best there.</p>` : "";
  const head = names.map(([, heading]) => html`<th scope="col">${heading}</th>`);
  return html`<table class="scoreboard-means"><caption>${caption}</caption>
<thead><tr><th scope="col">Scorer</th>${head}</tr></thead>
<tbody>${rows}</tbody></table>${ties}${unmeasured}`;
}

/**
 * One cell per question and scorer: the place of the first supporting record in the
 * ranking and the supporting records within the first k. Each is a button that applies
 * that question and scorer (panels/scoreboard.js).
 * @param {Evaluation} evaluation
 */
export function questionGrid(evaluation) {
  const scorers = Object.keys(evaluation.means);
  const questions = [...new Set(evaluation.evaluation.map((row) => row.question))];
  const body = questions.map((question) => {
    const cells = scorers.map((scorer) => {
      const row = evaluation.evaluation.find((each) => each.question === question && each.scorer === scorer);
      if (!row) return html`<td></td>`;
      const parts = cellParts(row, evaluation.k);
      const lines = parts.map((part, i) => html`<span class="cell-line">${part}${i < parts.length - 1 ? ";" : ""}</span>`);
      const label = `${question}, ${scorerName(scorer)}: ${parts.join("; ")}`;
      const attributes = html`type="button" class="scoreboard-cell" data-question="${question}" data-scorer="${scorer}" aria-label="${label}"`;
      return html`<td><button ${attributes}><span class="cell-scorer">${scorerName(scorer)}</span>${lines}</button></td>`;
    });
    return html`<tr><th scope="row">${question}</th>${cells}</tr>`;
  });
  const caption = `Each question under each scorer: where its first supporting record ranks, and how many are in the first ${evaluation.k}.`;
  const head = scorers.map((scorer) => html`<th scope="col">${scorerName(scorer)}</th>`);
  return html`<table class="scoreboard-grid"><caption>${caption} Pick one to apply it.</caption>
<thead><tr><th scope="col">Question</th>${head}</tr></thead>
<tbody>${body}</tbody></table>`;
}

/**
 * A cell's words, from the evaluation's row: where its first supporting record ranks (or,
 * where none is ranked, which they are and the outcome that kept each from the ranking),
 * then the hits within k.
 * @param {import("../core/shapes.js").Evaluated} row @param {number} k @returns {string[]}
 */
export function cellParts(row, k) {
  if (!row.measures) return ["not measured"];
  const hits = `${row.hits} of ${row.supporting.length} in top ${k}`;
  if (row.first_rank !== null) return [`first at ${row.first_rank}`, hits];
  const labels = row.supporting.map((id) => OUTCOME_TABLE[row.outcomes[id]]?.label ?? row.outcomes[id]);
  if (new Set(labels).size === 1) return [`${listed(row.supporting)} not ranked (${labels[0]})`, hits];
  return [`${listed(row.supporting.map((id, i) => `${id} (${labels[i]})`))} not ranked`, hits];
}

/** A cell's words as one line. @param {import("../core/shapes.js").Evaluated} row @param {number} k */
export const cellText = (row, k) => cellParts(row, k).join("; ");

// The chart's frame in its own units. The SVG scales to its box (at most 28rem wide): at
// 375 px a unit is about a pixel, so the 13-unit labels stay 12 px and more.
const WIDTH = 360;
const HEIGHT = 240;
const LEFT = 58;
const RIGHT = 14;
const TOP = 28;
const BOTTOM = 56;
const X_TICKS = [0, 0.2, 0.4, 0.6, 0.8, 1];
const Y_TICKS = [0, 0.25, 0.5, 0.75, 1];
// Each scorer's mark at every point, told apart by shape and drawn unfilled, so marks at the
// same point all show.
const MARKS = [
  (/** @type {number} */ cx, /** @type {number} */ cy) => `M${cx - 5},${cy}a5,5 0 1,0 10,0a5,5 0 1,0 -10,0`,
  (/** @type {number} */ cx, /** @type {number} */ cy) => `M${cx - 4},${cy - 4}h8v8h-8z`,
  (/** @type {number} */ cx, /** @type {number} */ cy) => `M${cx},${cy - 6}l5.5,9.5h-11z`,
  (/** @type {number} */ cx, /** @type {number} */ cy) => `M${cx},${cy - 6.5}l6.5,6.5l-6.5,6.5l-6.5,-6.5z`,
];
const MARK_NAMES = ["circle", "square", "triangle", "diamond"];
/** @param {number} index */
const mark = (index) => MARKS[index % MARKS.length];

const x = (/** @type {number} */ weight) => LEFT + weight * (WIDTH - LEFT - RIGHT);
const y = (/** @type {number} */ value) => HEIGHT - BOTTOM - value * (HEIGHT - TOP - BOTTOM);
const at = (/** @type {number} */ n) => Number(n.toFixed(1));

/**
 * A scorer's measured points of the sweep, in the chart's units.
 * @param {Sweep} sweep @param {string} scorer @returns {[number, number][]}
 */
const plotted = (sweep, scorer) =>
  sweep.points.flatMap((p) => {
    const value = p.ndcg[scorer];
    return value === null ? [] : [[at(x(p.value)), at(y(value))]];
  });

/**
 * Each scorer's mean nDCG as the swept field (the recency weight or MMR's λ) goes 0 to 1: an
 * SVG line per scorer with a mark of its own shape at every point, the field's value in force
 * marked, both axes titled by the field's label, and under it a key and the stretches where
 * lines tie and lie on each other.
 * @param {Sweep} sweep
 */
export function sweepChart(sweep) {
  const scorers = Object.keys(sweep.points[0]?.ndcg ?? {});
  const measure = `Mean nDCG@${sweep.k}`;
  const lines = scorers.map((scorer, index) => {
    const points = plotted(sweep, scorer).map(([px, py]) => `${px},${py}`).join(" ");
    const line = `sweep-line sweep-line-${index}`;
    return html`<polyline class="${line}" data-scorer="${scorer}" fill="none" points="${points}"><title>${scorerName(scorer)}</title></polyline>`;
  });
  const marks = scorers.map((scorer, index) => {
    const path = plotted(sweep, scorer).map(([px, py]) => mark(index)(px, py)).join("");
    const shape = MARK_NAMES[index % MARKS.length];
    return html`<path class="sweep-mark sweep-line-${index}" data-scorer="${scorer}" data-shape="${shape}" fill="none" d="${path}"/>`;
  });
  const xTicks = X_TICKS.map(
    (t) => [
      html`<line class="tick" x1="${at(x(t))}" y1="${y(0)}" x2="${at(x(t))}" y2="${y(0) + 5}"/>`,
      html`<text class="tick-label" x="${at(x(t))}" y="${y(0) + 20}" text-anchor="middle">${t}</text>`,
    ],
  );
  const yTicks = Y_TICKS.map(
    (t) => [
      html`<line class="grid" x1="${LEFT}" y1="${at(y(t))}" x2="${WIDTH - RIGHT}" y2="${at(y(t))}"/>`,
      html`<text class="tick-label" x="${LEFT - 6}" y="${at(y(t)) + 4.5}" text-anchor="end">${t}</text>`,
    ],
  );
  const axes = [
    html`<line x1="${LEFT}" y1="${y(0)}" x2="${WIDTH - RIGHT}" y2="${y(0)}" class="axis"/>`,
    html`<line x1="${LEFT}" y1="${y(0)}" x2="${LEFT}" y2="${TOP}" class="axis"/>`,
  ];
  const weight = inForce(sweep);
  const field = fieldInSentence(sweep.field);
  const atWeight = at(x(weight));
  // The label stays inside the frame: it hangs right of the line near 0, left of it near 1.
  const anchor = weight < 0.25 ? "start" : weight > 0.75 ? "end" : "middle";
  // A pointer above the frame as well as the line: at 0 the line lies on the axis.
  const pointer = [
    html`<line x1="${atWeight}" y1="${TOP - 4}" x2="${atWeight}" y2="${y(0)}"/>`,
    html`<path d="M${atWeight - 5},${TOP - 7}h10l-5,7z"/>`,
  ];
  const label = html`<text x="${atWeight}" y="${TOP - 11}" text-anchor="${anchor}">${fieldLabel(sweep.field)} set now: ${weight}</text>`;
  const now = html`<g class="sweep-now" data-weight="${weight}">${pointer}${label}</g>`;
  const across = html`<text class="axis-title" x="${(LEFT + WIDTH - RIGHT) / 2}" y="${HEIGHT - 8}" text-anchor="middle">${fieldLabel(sweep.field)}</text>`;
  const up = `translate(15 ${(TOP + HEIGHT - BOTTOM) / 2}) rotate(-90)`;
  const titles = html`${across}<text class="axis-title" transform="${up}" text-anchor="middle">${measure}</text>`;
  const legend = scorers.map((scorer, index) => {
    const key = [
      html`<line class="sweep-line sweep-line-${index}" x1="1" y1="7" x2="29" y2="7"/>`,
      html`<path class="sweep-mark sweep-line-${index}" fill="none" d="${mark(index)(15, 7)}"/>`,
    ];
    const svg = html`<svg class="sweep-key" viewBox="0 0 30 14" aria-hidden="true" focusable="false">${key}</svg>`;
    return html`<li data-scorer="${scorer}">${svg}${scorerName(scorer)}</li>`;
  });
  const ties = tieRuns(sweep, scorers);
  /** @type {Map<string, string[]>} */
  const stretches = new Map();
  for (const tie of ties) {
    const who = listed(tie.scorers.map(scorerName));
    stretches.set(who, [...(stretches.get(who) ?? []), tie.from === tie.to ? `${tie.from}` : `${tie.from} to ${tie.to}`]);
  }
  const tieItems = [...stretches].map(([who, where]) => {
    const single = where.length === 1 && !where[0].includes(" to ");
    return html`<li>${who}: ${single ? "at " : ""}${listed(where)}</li>`;
  });
  const equal = `Equal, so drawn on top of each other, by ${field}:`;
  const tied = ties.length ? html`<div class="sweep-ties"><p>${equal}</p><ul>${tieItems}</ul></div>` : "";
  const caption = `${measure} of each scorer as the ${field} goes from 0 to 1, the rest of the policy as set;`
    + ` the dashed line marks the ${field} set now (${weight}).`;
  return html`<figure class="sweep"><svg class="sweep-chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-hidden="true" focusable="false">
${yTicks}${axes}${xTicks}${titles}${now}${lines}${marks}</svg>
<ul class="sweep-legend">${legend}</ul>${tied}
<figcaption>${caption}</figcaption></figure>`;
}

/**
 * The sweep's numbers, a row per value of the swept field, the one in force marked.
 * @param {Sweep} sweep
 */
export function sweepTable(sweep) {
  const scorers = Object.keys(sweep.points[0]?.ndcg ?? {});
  const weight = inForce(sweep);
  const rows = sweep.points.map((p) => {
    const current = p.value === weight;
    const cells = scorers.map((scorer) => {
      const value = p.ndcg[scorer];
      return html`<td>${value === null ? "–" : shown(value)}</td>`;
    });
    return html`<tr${current ? html` class="sweep-current"` : ""}><th scope="row">${p.value}${current ? " (set now)" : ""}</th>${cells}</tr>`;
  });
  const head = scorers.map((scorer) => html`<th scope="col">${scorerName(scorer)}</th>`);
  return html`<table class="sweep-table"><caption>Mean nDCG@${sweep.k} by ${fieldInSentence(sweep.field)}</caption>
<thead><tr><th scope="col">${fieldLabel(sweep.field)}</th>${head}</tr></thead><tbody>${rows}</tbody></table>`;
}

/**
 * Where scorers' means are equal, so their lines lie on each other: each set of two or more
 * scorers equal at a run of consecutive weights (and no other scorer equal to them there).
 * @param {Sweep} sweep @param {string[]} scorers
 * @returns {{scorers: string[], from: number, to: number}[]}
 */
export function tieRuns(sweep, scorers) {
  /** @type {{scorers: string[], from: number, to: number, last: number}[]} */
  const runs = [];
  sweep.points.forEach((point, index) => {
    /** @type {Map<number, string[]>} */
    const groups = new Map();
    for (const scorer of scorers) {
      const value = point.ndcg[scorer];
      if (value === null) continue;
      groups.set(value, [...(groups.get(value) ?? []), scorer]);
    }
    for (const group of groups.values()) {
      if (group.length < 2) continue;
      const key = group.join(" ");
      const open = runs.find((run) => run.scorers.join(" ") === key && run.last === index - 1);
      if (open) {
        open.to = point.value;
        open.last = index;
      } else runs.push({ scorers: group, from: point.value, to: point.value, last: index });
    }
  });
  return runs.map(({ scorers: tied, from, to }) => ({ scorers: tied, from, to }));
}
