// Pure rendering: a result (as engine/api.py returns it) in, HTML strings out.
// No DOM access here, so build.py runs this same module under Node to prerender the
// default configuration, and the page uses it for every update.

import { COLUMNS, SCORERS, scorerRow } from "../core/scorers.js";
import { OUTCOME_TABLE } from "../core/tables.js";
import { age, fixed3, formatNumber } from "./format.js";
import { html } from "./html.js";
import { nearMissText } from "./reading.js";

/** @typedef {import("../core/shapes.js").Result} Result */
/** @typedef {import("../core/shapes.js").RecordResult} RecordResult */
/** @typedef {import("../core/scorers.js").Scorer} Scorer */
/** @typedef {import("../core/scorers.js").ColumnId} ColumnId */

/** Outcome labels with a glyph and a tone, from the engine's outcome table. */
export const OUTCOMES = OUTCOME_TABLE;

export const STAGES = [
  { n: 1, title: "Stored records", explain: "Stage 1, stored records: every record in the store, before any policy. Nothing is excluded yet." },
  { n: 2, title: "Scope filters", explain: "Stage 2, scope filters: tenant, latest fact per key, memory store, session and age remove records before any similarity is used." },
  { n: 3, title: "Ranking", explain: `Stage 3, ranking: ${SCORERS.tfidf.ranking}` },
  { n: 4, title: "Final context", explain: "Stage 4, final context: ranked records are packed greedily into the word budget and record limit; the tray is what the agent would be given." },
];

/**
 * A stage's explanation, naming the scorer in force where the stage uses it.
 * @param {number} stage  1 to 4 @param {Scorer} scorer
 */
export function stageExplanation(stage, scorer) {
  if (stage !== 3) return STAGES[stage - 1].explain;
  return `Stage 3, ranking: ${scorerRow(scorer).ranking}`;
}

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
 * The records table's head: the score column names the scorer it blends.
 * @param {Scorer} scorer
 */
export function renderTableHead(scorer) {
  const columns = scorerRow(scorer).columns.map((id) => capitalised(COLUMNS[id].header));
  return html`<tr><th scope="col">ID</th><th scope="col">Memory text</th><th scope="col" class="num">${columns.map((c, i) => html`${i ? html`<br>` : ""}${c}`)}</th><th scope="col" class="num">Score <span class="score-scorer">(${SCORERS[scorer].name} + recency)</span><br>and rank</th><th scope="col">Outcome</th></tr>`;
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
 */
export function cardItems(records, tenantLabels, scorer = "tfidf") {
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
  <p class="card-rank">${r.rank ? html`${rankText(r, scorer, "Rank")} · score ${fixed3(r.score)}` : unrankedText(r, scorer)}</p>
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

/** @param {Result} result */
export function renderDiagram(result) {
  const c = result.counts;
  const removedByScope = c.stored - c.in_scope;
  const noTerms = c.in_scope - c.ranked;
  const notPacked = c.ranked - c.selected;
  const details = [
    `${c.stored} record${c.stored === 1 ? "" : "s"} in the store`,
    `${c.in_scope} in scope, ${removedByScope} removed by policy`,
    `${c.ranked} ranked, ${noTerms} ${scorerRow(result.policy.scorer).unmatched}`,
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
 * One table row per record, each a single element: the page replaces only rows that changed.
 * @param {RecordResult[]} records
 * @param {string | null} chosenId
 * @param {Scorer} [scorer]  the policy's scorer
 */
export function tableRowItems(records, chosenId, scorer = "tfidf") {
  return records.map(
    (r) => html`<tr data-record-id="${r.id}" data-outcome="${r.outcome}" data-decided="${r.stage}" data-cosine="${r.cosine}" data-score="${r.score}" data-bm25="${r.bm25}" data-rank="${r.rank ?? ""}" data-other-rank="${r.other_rank ?? ""}" data-words="${r.words}"${scorerRow(scorer).vectors ? meaningData(r) : ""}${r.id === chosenId ? html` class="chosen"` : ""}>
  <th scope="row"><button type="button" class="record-button" data-choose="${r.id}" aria-pressed="${r.id === chosenId}" aria-controls="score-breakdown" title="Show how ${r.id}'s score is computed">${r.id}</button></th>
  <td class="text-cell">${r.text}<span class="row-meta">${r.words} words · ${r.store} · ${r.session} · ${age(r.age_hours)}</span></td>
  <td class="num lexical" data-label="${scorerRow(scorer).columns.map((id) => capitalised(COLUMNS[id].header)).join(", ")}">${scoreCells(r, scorer)}</td>
  <td class="num" data-label="Blended score">${fixed3(r.score)}<span class="rank-line">${rankText(r, scorer)}</span></td>
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
  // Coverage comes first after the counts: it is what a learner checks the tray against.
  return html`<p class="tray-summary"><strong data-words-used="${result.words_used}">${result.words_used} of ${result.budget_words} words</strong> used · ${items.length} of ${result.policy.max_records} record${result.policy.max_records === 1 ? "" : "s"}</p>
<p class="coverage" data-found="${cov.found}" data-total="${cov.total}"><strong>Coverage:</strong> ${coverageText}</p>
<meter class="meter" min="0" max="${Math.max(1, result.budget_words)}" value="${result.words_used}" aria-label="Words used of the budget"></meter>
${
  items.length
    ? html`<ol class="tray-items">${items.map(
        (r) => html`<li data-record-id="${r.id}"><span class="card-id">${r.id}</span> <span class="tray-text">${r.text}</span> <span class="tray-words">${r.words} words</span></li>`,
      )}</ol>`
    : html`<p class="tray-empty">The tray is empty: ${whyLeftOut(result).join("; ")}.${nearMissNote(result)} The table below says why each record stayed out.</p>`
}${items.length && leftAfterRanking(result) ? html`<p class="tray-why">Not in the tray: ${whyLeftOut(result).join("; ")}.</p>` : ""}`;
}

// Why a record stayed out of the tray, by outcome code: the scope filters' outcomes are
// counted together, each with its label; the scorer's match and the packing have a phrase.
/** @type {Record<string, (n: number, policy: Result["policy"]) => string>} */
const LEFT_OUT = {
  no_shared_terms: (n) => `${n} in scope share${n === 1 ? "s" : ""} no word with the question`,
  below_similarity: (n, p) => `${n} in scope ${n === 1 ? "is" : "are"} below the minimum similarity of ${p.min_similarity}`,
  over_budget: (n, p) => `${n} ${n === 1 ? "is" : "are"} too long for the words left of the ${p.budget_words}-word budget`,
  record_limit: (n, p) => `${n} ${n === 1 ? "is" : "are"} over the limit of ${p.max_records} record${p.max_records === 1 ? "" : "s"}`,
};

/**
 * Why records stayed out of the tray, one phrase per reason, in the order of the stages.
 * @param {Result} result @returns {string[]}
 */
export function whyLeftOut(result) {
  /** @type {Map<string, number>} */
  const counts = new Map();
  for (const r of result.records) counts.set(r.outcome, (counts.get(r.outcome) ?? 0) + 1);
  const scope = OUTCOME_CODES.filter((code) => OUTCOMES[code].stage === 2 && counts.get(code));
  const outOfScope = scope.reduce((sum, code) => sum + (counts.get(code) ?? 0), 0);
  /** @type {string[]} */
  const phrases = [];
  if (outOfScope === result.records.length) {
    phrases.push(`all ${outOfScope} records are out of scope (${scope.map((code) => `${counts.get(code)} ${OUTCOMES[code].label.toLowerCase()}`).join(", ")}), so none was scored`);
  } else if (outOfScope) {
    phrases.push(`${outOfScope} out of scope (${scope.map((code) => `${counts.get(code)} ${OUTCOMES[code].label.toLowerCase()}`).join(", ")})`);
  }
  for (const code of OUTCOME_CODES) {
    const n = counts.get(code);
    if (n && LEFT_OUT[code]) phrases.push(LEFT_OUT[code](n, result.policy));
  }
  if (result.question.terms.length === 0 && counts.get("no_shared_terms")) phrases.push("no word of the question is in any record");
  return phrases;
}

const OUTCOME_CODES = Object.keys(OUTCOMES);

/** Whether some ranked record stayed out of a tray that holds something, or the tray could hold more. @param {Result} result */
function leftAfterRanking(result) {
  return result.selected.length < result.ranked.length || (result.selected.length < result.policy.max_records && result.selected.length < result.records.length);
}

/** The near misses after an empty tray's reasons, when some in-scope record shares no word. @param {Result} result */
function nearMissNote(result) {
  const text = nearMissText(result.question);
  return text && result.records.some((r) => r.outcome === "no_shared_terms") ? ` ${text}` : "";
}

/**
 * @param {RecordResult[]} records  the records to chart (a page of a large store)
 * @param {Scorer} [scorer]  the policy's scorer: its relevance (cosine, or BM25 relative to the best) is the upper bar
 */
export function renderChart(records, scorer = "tfidf") {
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
  <rect x="${labelWidth}" y="${y + 8}" width="${(r.score * barWidth).toFixed(1)}" height="7" class="bar-score"></rect>
</g>`;
  });
  return html`<svg viewBox="0 0 ${labelWidth + barWidth + 8} ${height}" role="img" aria-labelledby="chart-title" class="chart" preserveAspectRatio="xMinYMin meet">
<title id="chart-title">${relevance[0].toUpperCase() + relevance.slice(1)} (upper bar) and blended score (lower bar) for each record, from 0 to 1; the table and the breakdown list the same numbers.</title>
<text x="${labelWidth}" y="10" class="chart-legend"><tspan class="legend-cosine">■ ${relevance}</tspan> <tspan dx="8" class="legend-score">■ blended score</tspan></text>
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
 * @param {import("../core/observations.js").Snapshot} before
 * @param {import("../core/observations.js").Snapshot} after
 * @param {ReturnType<typeof import("../core/observations.js").compare>} diff
 */
export function renderComparison(before, after, diff) {
  const tray = (/** @type {import("../core/observations.js").Snapshot} */ s) => (s.selected.length ? s.selected.join(", ") : "empty");
  const side = (/** @type {string} */ title, /** @type {import("../core/observations.js").Snapshot} */ s) => html`<div class="side">
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

/**
 * Prediction checkboxes for a page of records.
 * @param {{id: string, text: string}[]} records
 * @param {Set<string>} checked
 */
export function renderPredictionChoices(records, checked) {
  return html`${records.map(
    (r) => html`<label class="predict"><input type="checkbox" name="predict" value="${r.id}"${checked.has(r.id) ? html` checked` : ""}> <span class="card-id">${r.id}</span> <span class="predict-text">${r.text}</span></label>`,
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

/** @typedef {{id: string, title: string, intro?: string, closing?: string, steps: {title: string, look_for: string, policy?: Partial<import("../core/tables.js").Policy>, shows?: import("../core/page-core.js").Shows}[]}} Guide */

/**
 * The way in, at the top of the page: one button per guided experiment, starting its first step.
 * Its buttons and the guide bar's go to a step by data-guide-go; the guides' own list keeps
 * data-guide-step, so each step's Apply button is found by that name alone.
 * @param {Guide[]} guides
 */
export function renderStart(guides) {
  if (!guides.length) return html`<li>This store has no guided experiments: change the settings below and read what each stage keeps.</li>`;
  return html`${guides.map(
    (g) => html`<li><button type="button" class="start-button" data-guide-go="${g.id}:0">${g.title}</button> <span class="start-steps">${g.steps.length} step${g.steps.length === 1 ? "" : "s"}</span></li>`,
  )}`;
}

/**
 * The guided step in force, in the bar that stays on screen with the result: which step
 * of how many, what it set, what to look for, and the way to the steps either side. On a
 * phone the guide's title and the "Look for" are folded behind the Look for button
 * (``expanded`` unfolds them).
 * @param {Guide} guide @param {number} index @param {boolean} changed  a setting was changed by hand since
 * @param {boolean} [expanded]
 * @param {boolean} [held]  the step waits for the learner's prediction before its tray: its "Look for" is held back
 */
export function renderGuideBar(guide, index, changed, expanded = false, held = false) {
  const step = guide.steps[index];
  const last = index === guide.steps.length - 1;
  // Held back while the step waits for the learner's prediction: it tells what the tray holds.
  const lookFor = held ? "shown once your prediction is checked (Check and show the tray, under Your prediction)." : step.look_for;
  return html`<div class="guide-bar-text" tabindex="0" role="group" aria-labelledby="guide-bar-count">
  <p class="guide-bar-head"><strong id="guide-bar-count" tabindex="-1">Step ${index + 1} of ${guide.steps.length}</strong><span class="guide-bar-title"> · ${guide.title}</span></p>
  <p class="guide-bar-step">${step.title}</p>
  <div class="guide-bar-details" id="guide-bar-details">
  <p class="look-for"${held ? html` data-held` : ""}><span class="look-label">Look for:</span> ${lookFor}</p>
  ${changed ? html`<p class="guide-bar-changed">A setting was changed by hand since this step was applied.</p>` : ""}
  </div>
</div>
<div class="guide-bar-buttons">
  <button type="button" class="small guide-bar-toggle" data-guide-details aria-expanded="${expanded}" aria-controls="guide-bar-details">${expanded ? "Hide" : "Look for"}</button>
  <button type="button" class="small" data-guide-go="${guide.id}:${index - 1}"${index === 0 ? html` disabled` : ""}>Previous</button>
  ${changed ? html`<button type="button" class="small" data-guide-go="${guide.id}:${index}">Apply again</button>` : ""}
  ${last ? html`<button type="button" class="small primary" data-guide-finish>Finish</button>` : html`<button type="button" class="small primary" data-guide-go="${guide.id}:${index + 1}">Next step</button>`}
  ${last ? "" : html`<button type="button" class="small" data-guide-close>Close</button>`}
</div>`;
}

/**
 * The bar once a guide's last step is finished: what the guide showed (its ``closing``, as
 * its author wrote it), and the guide after it in the store to try next, if there is one.
 * @param {Guide} guide @param {Guide | undefined} next
 */
export function renderGuideClosing(guide, next) {
  const onward = next
    ? html`Try next: “${next.title}”, ${next.steps.length} step${next.steps.length === 1 ? "" : "s"}.`
    : html`It is the last guided experiment of this store.`;
  return html`<div class="guide-bar-text" tabindex="0" role="group" aria-labelledby="guide-bar-count">
  <p class="guide-bar-head"><strong id="guide-bar-count" tabindex="-1">Finished</strong><span class="guide-bar-title"> · ${guide.title}</span></p>
  <p class="guide-bar-closing">${guide.closing ? html`${guide.closing} ` : ""}${onward}</p>
</div>
<div class="guide-bar-buttons">
  ${next ? html`<button type="button" class="small primary" data-guide-go="${next.id}:0">Start “${next.title}”</button>` : ""}
  <button type="button" class="small" data-guide-close>Close</button>
</div>`;
}

/**
 * The experiment's introduction: the question asked (one of the store's, or the learner's
 * own) of which tenant, and how the scorer in force matches records.
 * @param {Result} result @param {Record<string, string>} tenantLabels
 */
export function renderIntro(result, tenantLabels) {
  const q = result.question;
  const tenant = tenantLabels[result.policy.tenant] ?? result.policy.tenant;
  const scorer = scorerRow(result.policy.scorer).intro;
  const asked = q.own
    ? html`You ask your own question, “${q.text}”, of ${tenant}'s memory. It is read with the store's words and weights and has no declared answer: judge the tray by reading it.`
    : html`You ask one of the store's questions, “${q.text}”, of ${tenant}'s memory.`;
  return html`${asked} Each record in scope is scored by ${scorer}, then blended with recency. Change one setting at a time and read what each stage keeps: an empty tray is a valid result, and the table explains every exclusion.`;
}
