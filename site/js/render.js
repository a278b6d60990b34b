// Pure rendering: a result (as engine/api.py returns it) in, HTML strings out.
// No DOM access here, so build.py runs this same module under Node to prerender the
// default configuration, and the page uses it for every update.

import { html } from "./html.js";
import { OUTCOME_TABLE } from "./tables.js";

/** @typedef {import("./types.js").Result} Result */
/** @typedef {import("./types.js").RecordResult} RecordResult */

/** Records per page of cards, table rows and chart bars: large stores stay responsive. */
export const PAGE_SIZE = 50;

/** Outcome labels with a glyph and a tone, from the engine's outcome table. */
export const OUTCOMES = OUTCOME_TABLE;

export const STAGES = [
  { n: 1, title: "Stored records", explain: "Stage 1, stored records: every record in the store, before any policy. Nothing is excluded yet." },
  { n: 2, title: "Scope filters", explain: "Stage 2, scope filters: tenant, latest fact per key, memory store, session and age remove records before any similarity is used." },
  { n: 3, title: "Ranking", explain: "Stage 3, ranking: records still in scope get their cosine and blended score; a record sharing no term with the question drops out here." },
  { n: 4, title: "Final context", explain: "Stage 4, final context: ranked records are packed greedily into the word budget and record limit; the tray is what the agent would be given." },
];

/** @param {number} x */
export const fixed3 = (x) => x.toFixed(3);

/** @param {number} hours */
export function age(hours) {
  if (hours < 48) return `${formatNumber(hours)} h`;
  return `${formatNumber(hours)} h (${formatNumber(Math.round((hours / 24) * 10) / 10)} days)`;
}

/** @param {number} x */
function formatNumber(x) {
  return Number.isInteger(x) ? String(x) : String(Math.round(x * 100) / 100);
}

/** @param {string} outcome */
export function badge(outcome) {
  const o = OUTCOMES[outcome];
  return html`<span class="badge tone-${o.tone}"><span aria-hidden="true">${o.glyph}</span> ${o.label}</span>`;
}

/**
 * @param {RecordResult[]} records  the records to show (a page of a large store)
 * @param {Record<string, string>} tenantLabels
 */
export function renderCards(records, tenantLabels) {
  return html`${cardItems(records, tenantLabels)}`;
}

/**
 * One card per record, each a single element: the page replaces only cards that changed.
 * @param {RecordResult[]} records
 * @param {Record<string, string>} tenantLabels
 */
export function cardItems(records, tenantLabels) {
  return records.map(
    (r) => html`<li class="card" data-record-id="${r.id}" data-outcome="${r.outcome}" data-decided="${r.stage}">
  <div class="card-head"><span class="card-id">${r.id}</span>${badge(r.outcome)}</div>
  <p class="card-text">${r.text}</p>
  <dl class="card-meta">
    <div><dt>Tenant</dt><dd>${tenantLabels[r.tenant] ?? r.tenant}</dd></div>
    <div><dt>Store</dt><dd>${r.store}</dd></div>
    <div><dt>Session</dt><dd>${r.session}</dd></div>
    <div><dt>Age</dt><dd>${formatNumber(r.age_hours)} h</dd></div>
    <div><dt>Words</dt><dd>${r.words}</dd></div>
    <div class="wide"><dt>Key</dt><dd>${r.key ?? "none"}</dd></div>
  </dl>
  <p class="card-rank">${r.rank ? `Rank ${r.rank} · score ${fixed3(r.score)}` : `cosine ${fixed3(r.cosine)}`}</p>
  <p class="reason card-reason">${r.reason}</p>
</li>`,
  );
}

/** @param {Result} result */
export function renderDiagram(result) {
  const c = result.counts;
  const removedByScope = c.stored - c.in_scope;
  const noTerms = c.in_scope - c.ranked;
  const notPacked = c.ranked - c.selected;
  const details = [
    `${c.stored} record${c.stored === 1 ? "" : "s"} in the store`,
    `${c.in_scope} in scope, ${removedByScope} removed by policy`,
    `${c.ranked} ranked, ${noTerms} with no shared terms`,
    `${c.selected} in the tray, ${notPacked} not packed · ${result.words_used} of ${result.budget_words} words`,
  ];
  const counts = [c.stored, c.in_scope, c.ranked, c.selected];
  return html`${STAGES.map(
    (s, i) => html`<li class="stage-box" data-stage-box="${s.n}">
  <span class="stage-number">Stage ${s.n}</span>
  <span class="stage-title">${s.title}</span>
  <span class="stage-count" data-count="${counts[i]}">${counts[i]}</span>
  <span class="stage-detail">${details[i]}</span>
</li>`,
  )}`;
}

/**
 * @param {RecordResult[]} records  the records to show (a page of a large store)
 * @param {string | null} chosenId the record whose score breakdown is open
 */
export function renderTableRows(records, chosenId) {
  return html`${tableRowItems(records, chosenId)}`;
}

/**
 * One table row per record, each a single element: the page replaces only rows that changed.
 * @param {RecordResult[]} records
 * @param {string | null} chosenId
 */
export function tableRowItems(records, chosenId) {
  return records.map(
    (r) => html`<tr data-record-id="${r.id}" data-outcome="${r.outcome}" data-decided="${r.stage}" data-cosine="${r.cosine}" data-score="${r.score}" data-words="${r.words}"${r.id === chosenId ? html` class="chosen"` : ""}>
  <th scope="row"><button type="button" class="record-button" data-choose="${r.id}" aria-pressed="${r.id === chosenId}" aria-controls="score-breakdown" title="Show how ${r.id}'s score is computed">${r.id}</button></th>
  <td class="text-cell">${r.text}<span class="row-meta">${r.words} words · ${r.store} · ${r.session} · ${age(r.age_hours)}</span></td>
  <td class="num" data-label="Cosine">${fixed3(r.cosine)}</td>
  <td class="num" data-label="Blended score">${fixed3(r.score)}</td>
  <td class="outcome-cell">${badge(r.outcome)}<span class="reason">${r.reason}</span></td>
</tr>`,
  );
}

/**
 * @param {Result} result
 * @param {Record<string, string>} tenantLabels
 */
export function renderTray(result, tenantLabels) {
  const byId = Object.fromEntries(result.records.map((r) => [r.id, r]));
  const cov = result.coverage;
  const tenant = tenantLabels[result.policy.tenant] ?? result.policy.tenant;
  const items = result.selected.map((id) => byId[id]);
  const missing = cov.supporting.filter((id) => !cov.found_ids.includes(id));
  const coverageText = result.question.own
    ? "Your own question has no declared supporting facts, so there is nothing to cover: judge the tray by reading it."
    : cov.total === 0
      ? `No supporting fact is declared for ${tenant} on this question.`
      : `${cov.found} of ${cov.total} supporting fact${cov.total === 1 ? "" : "s"} for ${tenant} selected` +
        (cov.found_ids.length ? ` (${cov.found_ids.join(", ")})` : "") +
        (missing.length ? `; missing ${missing.join(", ")}.` : ".");
  return html`<p class="tray-summary"><strong data-words-used="${result.words_used}">${result.words_used} of ${result.budget_words} words</strong> used · ${items.length} of ${result.policy.max_records} record${result.policy.max_records === 1 ? "" : "s"}</p>
<meter class="meter" min="0" max="${Math.max(1, result.budget_words)}" value="${result.words_used}" aria-label="Words used of the budget"></meter>
${
  items.length
    ? html`<ol class="tray-items">${items.map(
        (r) => html`<li data-record-id="${r.id}"><span class="card-id">${r.id}</span> <span class="tray-text">${r.text}</span> <span class="tray-words">${r.words} words</span></li>`,
      )}</ol>`
    : html`<p class="tray-empty">The tray is empty: no in-scope record fit. The table below says why each record stayed out.</p>`
}
<p class="coverage" data-found="${cov.found}" data-total="${cov.total}"><strong>Coverage:</strong> ${coverageText}</p>`;
}

/**
 * How the question in force was read: its terms after lowercasing and stop words, each
 * term that no record uses (it counts for nothing), and the stop words removed.
 * @param {Result["question"]} q
 */
export function renderReading(q) {
  const found = q.terms.length
    ? html`<span class="read-terms">${q.terms.join(", ")}</span>`
    : html`no term that any record uses`;
  const ignored = q.dropped_terms.length
    ? html`<ul class="read-ignored">${q.dropped_terms.map((term) => html`<li><span class="read-term">${term}</span>: in no record, ignored</li>`)}</ul>`
    : "";
  const stop = q.stop_words.length ? html`<p class="read-stop">Stop words removed: ${q.stop_words.join(", ")}</p>` : "";
  // A fixed question is named: with Your own question chosen and its box empty, it is the one in force.
  const head = q.own ? html`<strong>Your question reads as</strong>` : html`<strong>“${q.text}” reads as</strong>`;
  return html`<p class="read-head">${head} ${found}</p>${ignored}${stop}`;
}

/**
 * @param {Result} result
 * @param {string} id
 */
export function renderBreakdown(result, id) {
  const r = result.records.find((x) => x.id === id) ?? result.records[0];
  const w = result.policy.recency_weight;
  const q = result.question;
  const terms = r.terms.length
    ? html`<div class="scroll-x" tabindex="0" role="region" aria-label="Term contributions for ${r.id}"><table class="terms">
  <caption>Shared terms of ${r.id} and the question</caption>
  <thead><tr><th scope="col">Term</th><th scope="col">Count in record</th><th scope="col">tf record</th><th scope="col">Count in question</th><th scope="col">tf question</th><th scope="col">idf</th><th scope="col">Weight in record</th><th scope="col">Weight in question</th><th scope="col">Contribution</th></tr></thead>
  <tbody>${r.terms.map(
    (t) => html`<tr><th scope="row">${t.term}</th><td>${t.record_count}</td><td>${fixed4(t.record_tf)}</td><td>${t.query_count}</td><td>${fixed4(t.query_tf)}</td><td>${fixed4(t.idf)}</td><td>${fixed4(t.record_weight)}</td><td>${fixed4(t.query_weight)}</td><td>${fixed4(t.contribution)}</td></tr>`,
  )}</tbody>
  <tfoot><tr><th scope="row" colspan="8">Cosine = sum of contributions</th><td>${fixed4(r.cosine)}</td></tr></tfoot>
</table></div>`
    : html`<p>${r.id} shares no term with the question, so its cosine is 0 and it cannot be retrieved at any recency weight.</p>`;
  return html`<h3 id="breakdown-title">${r.id}: cosine ${fixed3(r.cosine)}, score ${fixed3(r.score)}</h3>
<p class="breakdown-question">Question terms after lowercasing and stop words: ${q.terms.length ? q.terms.join(", ") : "none"}${q.dropped_terms.length ? html`; in no record, so dropped: ${q.dropped_terms.join(", ")}` : ""}.</p>
${terms}
<p class="formula">Recency = 2<sup>−age/24</sup> = 2<sup>−${formatNumber(r.age_hours)}/24</sup> = ${fixed4(r.recency)}</p>
<p class="formula">Score = (1 − ${w}) × ${fixed4(r.cosine)} + ${w} × ${fixed4(r.recency)} = <strong>${fixed4(r.score)}</strong></p>
<p class="formula">${badge(r.outcome)} ${r.reason}</p>`;
}

/** @param {number} x */
const fixed4 = (x) => x.toFixed(4);

/** @param {RecordResult[]} records  the records to chart (a page of a large store) */
export function renderChart(records) {
  const rowHeight = 22;
  const labelWidth = 44;
  const barWidth = 220;
  const height = records.length * rowHeight + 24;
  const rows = records.map((r, i) => {
    const y = 20 + i * rowHeight;
    return html`<g class="chart-row" data-outcome="${r.outcome}">
  <text x="0" y="${y + 12}" class="chart-label">${r.id}</text>
  <rect x="${labelWidth}" y="${y}" width="${(r.cosine * barWidth).toFixed(1)}" height="7" class="bar-cosine"></rect>
  <rect x="${labelWidth}" y="${y + 8}" width="${(r.score * barWidth).toFixed(1)}" height="7" class="bar-score"></rect>
</g>`;
  });
  return html`<svg viewBox="0 0 ${labelWidth + barWidth + 8} ${height}" role="img" aria-labelledby="chart-title" class="chart" preserveAspectRatio="xMinYMin meet">
<title id="chart-title">Cosine (upper bar) and blended score (lower bar) for each record, from 0 to 1; the table lists the same numbers.</title>
<text x="${labelWidth}" y="10" class="chart-legend"><tspan class="legend-cosine">■ cosine</tspan> <tspan dx="8" class="legend-score">■ blended score</tspan></text>
${rows}
<line x1="${labelWidth}" x2="${labelWidth}" y1="16" y2="${height}" class="chart-axis"></line>
</svg>`;
}

/**
 * The verdict on a learner's prediction at stage 4.
 * @param {{held: string[], wrong: string[], missed: string[], exact: boolean}} check
 * @param {string[]} predicted
 */
export function renderVerdict(check, predicted) {
  const guess = predicted.length ? predicted.join(", ") : "an empty tray";
  const headline = check.exact ? "Your prediction held exactly." : "Your prediction differs from the tray.";
  const list = (/** @type {string} */ label, /** @type {string[]} */ ids) =>
    ids.length ? html`<li>${label}: ${ids.join(", ")}</li>` : "";
  return html`<p class="verdict-head ${check.exact ? "tone-good" : "tone-warn"}"><span aria-hidden="true">${check.exact ? "✓" : "≠"}</span> ${headline}</p>
<p>You predicted ${guess}.</p>
<ul>${list("Held (predicted and selected)", check.held)}${list("Did not hold (predicted, not selected)", check.wrong)}${list("Missed (selected, not predicted)", check.missed)}</ul>`;
}

/** @param {unknown} value */
const setting = (value) => (typeof value === "boolean" ? (value ? "on" : "off") : value === "" ? "(empty)" : String(value));

/**
 * Baseline beside the current result: differing settings, trays, outcome changes.
 * @param {import("./observations.js").Snapshot} before
 * @param {import("./observations.js").Snapshot} after
 * @param {ReturnType<typeof import("./observations.js").compare>} diff
 */
export function renderComparison(before, after, diff) {
  const tray = (/** @type {import("./observations.js").Snapshot} */ s) => (s.selected.length ? s.selected.join(", ") : "empty");
  const side = (/** @type {string} */ title, /** @type {import("./observations.js").Snapshot} */ s) => html`<div class="side">
  <h4>${title}</h4>
  <p><strong>Tray:</strong> ${tray(s)}</p>
  <p>${s.words_used} of ${s.budget_words} words · ${s.policy.question_text ? "coverage not measured (your own question)" : `coverage ${s.coverage.found} of ${s.coverage.total}`}</p>
</div>`;
  const settings = diff.settings.length
    ? html`<table class="diff"><caption>Settings that differ</caption><thead><tr><th scope="col">Setting</th><th scope="col">Baseline</th><th scope="col">Current</th></tr></thead><tbody>${diff.settings.map(
        (d) => html`<tr><th scope="row">${d.name}</th><td>${setting(d.before)}</td><td>${setting(d.after)}</td></tr>`,
      )}</tbody></table>`
    : html`<p>Same settings as the baseline.</p>`;
  const outcomes = diff.outcomes.length
    ? html`<table class="diff"><caption>Records whose outcome changed</caption><thead><tr><th scope="col">Record</th><th scope="col">Baseline</th><th scope="col">Current</th></tr></thead><tbody>${diff.outcomes.map(
        (d) => html`<tr data-record-id="${d.id}"><th scope="row">${d.id}</th><td>${OUTCOMES[d.before] ? badge(d.before) : d.before}</td><td>${badge(d.after)}</td></tr>`,
      )}</tbody></table>`
    : html`<p>No record changed its outcome.</p>`;
  return html`<div class="sides">${side("Baseline", before)}${side("Current", after)}</div>${settings}${outcomes}`;
}

/**
 * <option>s for a select; `selected` marks the current value.
 * @param {{value: string, label: string}[]} options
 * @param {string} selected
 */
export function renderOptions(options, selected) {
  return html`${options.map((o) => html`<option value="${o.value}"${o.value === selected ? html` selected` : ""}>${o.label}</option>`)}`;
}

/** @param {string} text @param {number} length */
function truncate(text, length) {
  return text.length <= length ? text : `${text.slice(0, length - 1).trimEnd()}…`;
}

/**
 * Prediction checkboxes for a page of records.
 * @param {{id: string, text: string}[]} records
 * @param {Set<string>} checked
 */
export function renderPredictionChoices(records, checked) {
  return html`${records.map(
    (r) => html`<label class="predict"><input type="checkbox" name="predict" value="${r.id}"${checked.has(r.id) ? html` checked` : ""}> <span class="card-id">${r.id}</span> <span class="predict-text">${truncate(r.text, 42)}</span></label>`,
  )}`;
}

/**
 * The guided experiments of a store: step lists, each step one click away.
 * @param {{id: string, title: string, intro?: string, steps: {title: string, look_for: string}[]}[]} guides
 */
export function renderGuides(guides) {
  if (!guides.length) return html`<p class="hint">This store has no guided experiments.</p>`;
  return html`${guides.map(
    (g) => html`<article class="guide" data-guide="${g.id}">
  <h3>${g.title}</h3>
  ${g.intro ? html`<p>${g.intro}</p>` : ""}
  <ol>${g.steps.map(
    (step, i) => html`<li data-step="${i + 1}">
    <p><strong>${step.title}</strong></p>
    <button type="button" class="small" data-guide-step="${g.id}:${i}">Apply step ${i + 1}</button>
    <p class="look-for"><span class="look-label">Look for:</span> ${step.look_for}</p>
  </li>`,
  )}</ol>
</article>`,
  )}`;
}
