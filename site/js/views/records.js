// The records as HTML strings (no DOM: the build's prerender runs it under Node): a card
// and a table row per record, the table's head, the chart of relevance and score, and the
// outcome badge and rank text that the breakdown shows too.

import { blendFor, COLUMNS, SCORERS, scorerRow } from "../core/scorers.js";
import { OUTCOME_TABLE as OUTCOMES } from "../core/tables.js";
import { ageAt, fixed3, formatNumber, scoreText } from "./format.js";
import { html } from "./html.js";

/** @typedef {import("../core/shapes.js").Result} Result */
/** @typedef {import("../core/shapes.js").RecordResult} RecordResult */
/** @typedef {import("../core/scorers.js").Scorer} Scorer */

/**
 * A record's rank under the policy's scorer, its ranks under the other scorers the scorer
 * table shows beside it in brackets ("–" where one does not rank it), and a mark when the
 * one it is compared with places it differently: ▲ when the policy's scorer places it higher.
 * @param {RecordResult} r @param {Scorer} scorer @param {string} [word]  the word before the number
 */
export function rankText(r, scorer, word = "rank") {
  if (!r.rank) return html`<span class="no-rank">not ranked</span>`;
  const row = scorerRow(scorer);
  const other = SCORERS[row.compared].name;
  const compared = r.ranks?.[row.compared] ?? r.other_rank;
  const moved = compared ? compared - r.rank : 0;
  const mark = moved
    ? html` <span class="rank-moved ${moved > 0 ? "up" : "down"}" title="${Math.abs(moved)} place${Math.abs(moved) === 1 ? "" : "s"} ${moved > 0 ? "higher" : "lower"} than under ${other}"><span aria-hidden="true">${moved > 0 ? "▲" : "▼"}</span><span class="visually-hidden">, ${moved > 0 ? "higher" : "lower"} than under ${other}</span></span>`
    : "";
  return html`${word} <span class="rank-now">${r.rank}</span> <span class="rank-other">(${otherRanks(r, scorer)})</span>${mark}`;
}

/**
 * A record's places under the scorers the table shows beside the policy's, as "BM25: 2, TF-IDF: –".
 * @param {RecordResult} r @param {Scorer} scorer
 */
export function otherRanks(r, scorer) {
  const ranks = r.ranks ?? {};
  return scorerRow(scorer)
    .ranks.filter((name) => name !== scorer && name in ranks)
    .map((name) => `${SCORERS[name].name}: ${ranks[name] ?? "–"}`)
    .join(", ");
}

/**
 * The records table's head: the score column names what the blend in force makes it of.
 * @param {Scorer} scorer @param {string} [blend]  the policy's blend
 */
export function renderTableHead(scorer, blend = "seed") {
  const columns = scorerRow(scorer).columns.map((id) => capitalised(COLUMNS[id].header));
  const named = blendFor({ blend }).named.replace("{scorer}", SCORERS[scorer].name);
  const heads = columns.map((c, i) => html`${i ? html`<br>` : ""}${c}`);
  const blended = html`Score <span class="score-scorer">(${named})</span><br>and rank`;
  return html`<tr><th scope="col">ID</th><th scope="col">Memory text</th>
<th scope="col" class="num">${heads}</th><th scope="col" class="num">${blended}</th><th scope="col">Outcome</th></tr>`;
}

/**
 * The most a score can be: 1 under the seed blend, the sum of the weights under one that
 * weighs normalised terms (each at most 1).
 * @param {Result} result
 */
export function scoreCeiling(result) {
  return result.weighing ? result.weighing.terms.reduce((sum, term) => sum + term.weight, 0) : 1;
}


/** @param {string} text */
const capitalised = (text) => text[0].toUpperCase() + text.slice(1);

/**
 * The scores a scorer shows for a record (its row of the scorer table), the one it blends
 * marked as in force.
 * @param {RecordResult} r @param {Scorer} scorer
 */
function scoreCells(r, scorer) {
  const row = scorerRow(scorer);
  return html`${row.columns.map((id, i) => {
    const value = r[id];
    const shown = value === null || value === undefined ? "–" : value.toFixed(COLUMNS[id].places);
    return html`${i ? " " : ""}<span class="lex${i === 0 ? " in-force" : ""}" data-name="${capitalised(COLUMNS[id].header)}">${shown}</span>`;
  })}`;
}

/** @param {string} outcome */
export function badge(outcome) {
  const o = OUTCOMES[outcome];
  return html`<span class="badge tone-${o.tone}"><span aria-hidden="true">${o.glyph}</span> ${o.label}</span>`;
}

/**
 * One card per record, each a single element: the page replaces only cards that changed.
 * @param {RecordResult[]} records
 * @param {Record<string, string>} tenantLabels
 * @param {Scorer} [scorer]  the policy's scorer
 * @param {number} [asOf]  the hours ago the question is asked as of: ages count from then
 */
export function cardItems(records, tenantLabels, scorer = "tfidf", asOf = 0) {
  return records.map(
    (r) => html`<li class="card" data-record-id="${r.id}" data-outcome="${r.outcome}" data-decided="${r.stage}">
  <div class="card-head"><span class="card-id">${r.id}</span>${badge(r.outcome)}</div>
  <p class="card-text">${r.text}</p>
  <dl class="card-meta">
    <div><dt>Tenant</dt><dd>${tenantLabels[r.tenant] ?? r.tenant}</dd></div>
    <div><dt>Store</dt><dd>${r.store}</dd></div>
    <div><dt>Session</dt><dd>${r.session}</dd></div>
    <div><dt>Age</dt><dd>${asOf === 0 ? `${formatNumber(r.age_hours)} h` : ageAt(r.age_hours, asOf)}</dd></div>
    <div><dt>Words</dt><dd>${r.words}</dd></div>
    <div><dt>Importance</dt><dd>${r.importance}</dd></div>
    <div class="wide"><dt>Key</dt><dd>${r.key ?? "none"}</dd></div>
  </dl>
  <p class="card-rank">${r.rank ? html`${rankText(r, scorer, "Rank")} · score ${scoreText(r.score)}` : unrankedText(r, scorer)}</p>
  <p class="reason card-reason">${r.reason}</p>
</li>`,
  );
}

/** A card's number for a record its scorer does not rank: the score it blends. @param {RecordResult} r @param {Scorer} scorer */
function unrankedText(r, scorer) {
  const id = scorerRow(scorer).columns[0];
  const value = r[id];
  return `${COLUMNS[id].header} ${value === null || value === undefined ? "–" : value.toFixed(COLUMNS[id].places)}`;
}

/** A row's score for tests and tools: empty for a record a normalising blend gives none. @param {RecordResult} r */
const score = (r) => r.score ?? "";

/**
 * One table row per record, each a single element: the page replaces only rows that changed.
 * @param {RecordResult[]} records
 * @param {string | null} chosenId
 * @param {Scorer} [scorer]  the policy's scorer
 * @param {number} [asOf]  the hours ago the question is asked as of: ages count from then
 */
export function tableRowItems(records, chosenId, scorer = "tfidf", asOf = 0) {
  return records.map(
    (r) => html`<tr data-record-id="${r.id}" data-outcome="${r.outcome}" data-decided="${r.stage}"
    data-cosine="${r.cosine}" data-score="${score(r)}" data-bm25="${r.bm25}" data-rank="${r.rank ?? ""}" data-other-rank="${r.other_rank ?? ""}" data-words="${r.words}"${scorerRow(scorer).vectors ? meaningData(r) : ""}${r.id === chosenId ? html` class="chosen"` : ""}>
  <th scope="row"><button type="button" class="record-button" data-choose="${r.id}" aria-pressed="${r.id === chosenId}" aria-controls="score-breakdown" title="Show how ${r.id}'s score is computed">${r.id}</button></th>
  <td class="text-cell">${r.text}<span class="row-meta">${r.words} words · ${r.store} · ${r.session} · ${ageAt(r.age_hours, asOf)}
· importance ${r.importance}</span></td>
  <td class="num lexical" data-label="${scorerRow(scorer).columns.map((id) => capitalised(COLUMNS[id].header)).join(", ")}">${scoreCells(r, scorer)}</td>
  <td class="num" data-label="Blended score">${scoreText(r.score)}<span class="rank-line">${rankText(r, scorer)}</span></td>
  <td class="outcome-cell">${badge(r.outcome)}<span class="reason">${r.reason}</span></td>
</tr>`,
  );
}

/**
 * A row's numbers under a scorer that reads meaning, for tests and tools: similarity,
 * fused sum and every scorer's rank (JSON).
 * @param {RecordResult} r
 */
function meaningData(r) {
  return html` data-similarity="${r.similarity ?? ""}" data-rrf="${r.rrf ?? ""}" data-ranks="${JSON.stringify(r.ranks ?? {})}"`;
}

/**
 * @param {RecordResult[]} records  the records to chart (a page of a large store)
 * @param {Scorer} [scorer]  the policy's scorer: its relevance (cosine, or BM25 relative to the best) is the upper bar
 * @param {number} [ceiling]  the most a score can be (scoreCeiling): the score bar's full length
 */
export function renderChart(records, scorer = "tfidf", ceiling = 1) {
  const relevance = scorerRow(scorer).relevance;
  const rowHeight = 22;
  const labelWidth = 44;
  const barWidth = 220;
  const height = records.length * rowHeight + 24;
  const rows = records.map((r, i) => {
    const y = 20 + i * rowHeight;
    return html`<g class="chart-row" data-outcome="${r.outcome}">
  <text x="0" y="${y + 12}" class="chart-label">${r.id}</text>
  <rect x="${labelWidth}" y="${y}" width="${(r.relevance * barWidth).toFixed(1)}" height="7" class="bar-cosine"></rect>
  <rect x="${labelWidth}" y="${y + 8}" width="${(((r.score ?? 0) / (ceiling || 1)) * barWidth).toFixed(1)}" height="7"
    class="bar-score"></rect>
</g>`;
  });
  return html`<svg viewBox="0 0 ${labelWidth + barWidth + 8} ${height}" role="img" aria-labelledby="chart-title" class="chart" preserveAspectRatio="xMinYMin meet">
<title id="chart-title">${relevance[0].toUpperCase() + relevance.slice(1)} (upper bar, from 0 to 1) and blended score
(lower bar, from 0 to ${formatNumber(ceiling)}) for each record; the table and the breakdown list the same numbers.</title>
<text x="${labelWidth}" y="10" class="chart-legend"><tspan class="legend-cosine">■ ${relevance}</tspan> <tspan dx="8" class="legend-score">■ blended score</tspan></text>
${rows}
<line x1="${labelWidth}" x2="${labelWidth}" y1="16" y2="${height}" class="chart-axis"></line>
</svg>`;
}
