// The scoreboard: every question of the store under every scorer, as Python measured it.
//
// Pure: an Evaluation (and a Sweep) in, markup out. Every number and sentence comes from
// the engine's evaluation (engine/evaluate.py): the means, the best per measure, each
// question's first supporting rank and hits within k, the reasons a question is not
// measured, and the measures' headings.

import { fixedAsPython } from "../core/decimals.js";
import { scorerRow } from "../core/scorers.js";
import { html } from "./html.js";

/** @typedef {import("../core/shapes.js").Evaluation} Evaluation */
/** @typedef {import("../core/shapes.js").Sweep} Sweep */
/** @typedef {import("../core/shapes.js").Measures} Measures */

/** A scorer's short name. @param {string} scorer */
const scorerName = (scorer) => scorerRow(scorer).name;

/** A measure to three places, as the command line writes it. @param {number} value */
const shown = (value) => fixedAsPython(value, 3);

/**
 * The means table: scorers as rows, measures as columns, the best of each column marked
 * with a word as well as weight, so colour is never the only signal.
 * @param {Evaluation} evaluation
 */
export function meansTable(evaluation) {
  const names = Object.entries(evaluation.measure_names);
  const measured = evaluation.measured.length;
  const caption = `Mean over ${measured} question${measured === 1 ? "" : "s"} with supporting records, k = ${evaluation.k} (maximum retrieved records)`;
  const rows = Object.entries(evaluation.means).map(([scorer, means]) => {
    const cells = names.map(([name]) => {
      if (!means) return html`<td>–</td>`;
      const value = /** @type {Record<string, number>} */ (/** @type {unknown} */ (means))[name];
      const best = (evaluation.best[name] ?? []).includes(scorer);
      return best ? html`<td class="best" data-best="true"><strong>${shown(value)}</strong> <span class="best-mark">best</span></td>` : html`<td>${shown(value)}</td>`;
    });
    return html`<tr data-scorer="${scorer}"><th scope="row">${scorerName(scorer)}</th>${cells}</tr>`;
  });
  const unmeasured = evaluation.unmeasured.map((skipped) => html`<li data-question="${skipped.question}">${skipped.question} ${skipped.reason}.</li>`);
  return html`<table class="scoreboard-means"><caption>${caption}</caption>
<thead><tr><th scope="col">Scorer</th>${names.map(([, heading]) => html`<th scope="col">${heading}</th>`)}</tr></thead>
<tbody>${rows}</tbody></table>${unmeasured.length ? html`<ul class="scoreboard-unmeasured">${unmeasured}</ul>` : ""}`;
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
      const text = cellText(row, evaluation.k);
      return html`<td><button type="button" class="scoreboard-cell" data-question="${question}" data-scorer="${scorer}" aria-label="${question}, ${scorerName(scorer)}: ${text}"><span class="cell-scorer">${scorerName(scorer)}</span>${text}</button></td>`;
    });
    return html`<tr><th scope="row">${question}</th>${cells}</tr>`;
  });
  return html`<table class="scoreboard-grid"><caption>Each question under each scorer: where its first supporting record ranks, and how many are in the first ${evaluation.k}. Pick one to apply it.</caption>
<thead><tr><th scope="col">Question</th>${scorers.map((scorer) => html`<th scope="col">${scorerName(scorer)}</th>`)}</tr></thead>
<tbody>${body}</tbody></table>`;
}

/**
 * A cell's words, from the evaluation's row.
 * @param {import("../core/shapes.js").Evaluated} row @param {number} k
 */
export function cellText(row, k) {
  if (!row.measures) return "not measured";
  const first = row.first_rank === null ? "none ranked" : `first at ${row.first_rank}`;
  return `${first}; ${row.hits} of ${row.supporting.length} in top ${k}`;
}

const WIDTH = 320;
const HEIGHT = 160;
const PAD = 28;

/**
 * Each scorer's mean nDCG as the recency weight sweeps 0 to 1: an SVG line per scorer,
 * and the same numbers as a table for screen readers (inside a hidden box: a table
 * ignores a width narrower than its cells, and would widen the page).
 * @param {Sweep} sweep
 */
export function sweepChart(sweep) {
  const scorers = Object.keys(sweep.points[0]?.ndcg ?? {});
  const x = (/** @type {number} */ weight) => PAD + weight * (WIDTH - 2 * PAD);
  const y = (/** @type {number} */ value) => HEIGHT - PAD - value * (HEIGHT - 2 * PAD);
  const lines = scorers.map((scorer, index) => {
    const points = sweep.points.filter((p) => p.ndcg[scorer] !== null).map((p) => `${x(p.recency_weight).toFixed(1)},${y(/** @type {number} */ (p.ndcg[scorer])).toFixed(1)}`);
    return html`<polyline class="sweep-line sweep-line-${index}" data-scorer="${scorer}" fill="none" points="${points.join(" ")}"><title>${scorerName(scorer)}</title></polyline>`;
  });
  const ticks = [0, 0.5, 1].map((t) => html`<text x="${x(t)}" y="${HEIGHT - 8}" text-anchor="middle">${t}</text><text x="${PAD - 4}" y="${y(t) + 4}" text-anchor="end">${t}</text>`);
  const legend = scorers.map((scorer, index) => html`<li><span class="sweep-key sweep-line-${index}" aria-hidden="true"></span>${scorerName(scorer)}</li>`);
  const rows = sweep.points.map((p) => html`<tr><th scope="row">${p.recency_weight}</th>${scorers.map((scorer) => html`<td>${p.ndcg[scorer] === null ? "–" : shown(/** @type {number} */ (p.ndcg[scorer]))}</td>`)}</tr>`);
  return html`<figure class="sweep"><svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-hidden="true" focusable="false">
<line x1="${PAD}" y1="${y(0)}" x2="${WIDTH - PAD}" y2="${y(0)}" class="axis"/><line x1="${PAD}" y1="${y(0)}" x2="${PAD}" y2="${y(1)}" class="axis"/>${ticks}${lines}</svg>
<ul class="sweep-legend">${legend}</ul>
<figcaption>Mean nDCG@${sweep.k} of each scorer as the recency weight goes from 0 to 1, the rest of the policy as set.</figcaption>
<div class="visually-hidden"><table><caption>Mean nDCG@${sweep.k} by recency weight</caption><thead><tr><th scope="col">Recency weight</th>${scorers.map((scorer) => html`<th scope="col">${scorerName(scorer)}</th>`)}</tr></thead><tbody>${rows}</tbody></table></div></figure>`;
}
