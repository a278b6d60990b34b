// Pure rendering: a result (as engine/api.py returns it) in, HTML strings out.
// No DOM access here, so build.py runs this same module under Node to prerender the
// default configuration, and the page uses it for every update.

import { readsVectors } from "../core/scorers.js";
import { OTHER_SCORER, OUTCOME_TABLE, SCORER_NAMES } from "../core/tables.js";
import { html } from "./html.js";
import { meaningBreakdown, meaningCells, meaningHeads, otherRanks, relevanceName, renderMap, tokensReading } from "./meaning.js";

/** @typedef {import("../core/shapes.js").Result} Result */
/** @typedef {import("../core/shapes.js").RecordResult} RecordResult */
/** @typedef {import("../core/tables.js").Policy["scorer"]} Scorer */

/** Outcome labels with a glyph and a tone, from the engine's outcome table. */
export const OUTCOMES = OUTCOME_TABLE;

export const STAGES = [
  { n: 1, title: "Stored records", explain: "Stage 1, stored records: every record in the store, before any policy. Nothing is excluded yet." },
  { n: 2, title: "Scope filters", explain: "Stage 2, scope filters: tenant, latest fact per key, memory store, session and age remove records before any similarity is used." },
  { n: 3, title: "Ranking", explain: "Stage 3, ranking: records still in scope get their lexical score (TF-IDF cosine or BM25) and blended score; a record sharing no term with the question drops out here." },
  { n: 4, title: "Final context", explain: "Stage 4, final context: ranked records are packed greedily into the word budget and record limit; the tray is what the agent would be given." },
];

/**
 * A stage's explanation, naming the scorer in force where the stage uses it.
 * @param {number} stage  1 to 4 @param {Scorer} scorer
 */
export function stageExplanation(stage, scorer) {
  if (stage !== 3) return STAGES[stage - 1].explain;
  switch (scorer) {
    case "embedding":
      return "Stage 3, ranking: records still in scope get their static-embedding similarity with the question and their blended score; a record under the minimum similarity drops out here.";
    case "hybrid":
      return "Stage 3, ranking: records still in scope are ranked by BM25 and by embedding similarity, and the two rankings fused by Reciprocal Rank Fusion into one score; a record in neither ranking drops out here.";
    default:
      return STAGES[2].explain;
  }
}

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

/**
 * A record's rank under the policy's scorer, the other scorer's in brackets, and a mark
 * when the two differ: ▲ when the policy's scorer places it higher.
 * @param {RecordResult} r @param {Scorer} scorer @param {string} [word]  the word before the number
 */
export function rankText(r, scorer, word = "rank") {
  if (readsVectors(scorer)) return ranksText(r, scorer, word);
  if (!r.rank || !r.other_rank) return html`<span class="no-rank">not ranked</span>`;
  const other = SCORER_NAMES[OTHER_SCORER[scorer]];
  const moved = r.other_rank - r.rank;
  const mark = moved
    ? html` <span class="rank-moved ${moved > 0 ? "up" : "down"}" title="${Math.abs(moved)} place${Math.abs(moved) === 1 ? "" : "s"} ${moved > 0 ? "higher" : "lower"} than under ${other}"><span aria-hidden="true">${moved > 0 ? "▲" : "▼"}</span><span class="visually-hidden">, ${moved > 0 ? "higher" : "lower"} than under ${other}</span></span>`
    : "";
  return html`${word} <span class="rank-now">${r.rank}</span> <span class="rank-other">(${other}: ${r.other_rank})</span>${mark}`;
}

/**
 * Under a scorer that reads meaning: the record's rank, its rank under every other scorer
 * the answer computed in brackets ("–" where that scorer does not match it), and the mark
 * beside the one it is compared with (OTHER_SCORER).
 * @param {RecordResult} r @param {Scorer} scorer @param {string} word
 */
function ranksText(r, scorer, word) {
  if (!r.rank) return html`<span class="no-rank">not ranked</span>`;
  const other = SCORER_NAMES[OTHER_SCORER[scorer]];
  const moved = r.other_rank ? r.other_rank - r.rank : 0;
  const mark = moved
    ? html` <span class="rank-moved ${moved > 0 ? "up" : "down"}" title="${Math.abs(moved)} place${Math.abs(moved) === 1 ? "" : "s"} ${moved > 0 ? "higher" : "lower"} than under ${other}"><span aria-hidden="true">${moved > 0 ? "▲" : "▼"}</span><span class="visually-hidden">, ${moved > 0 ? "higher" : "lower"} than under ${other}</span></span>`
    : "";
  return html`${word} <span class="rank-now">${r.rank}</span> <span class="rank-other">(${otherRanks(r, scorer)})</span>${mark}`;
}

/**
 * The records table's head: the score column names the scorer it blends.
 * @param {Scorer} scorer
 */
export function renderTableHead(scorer) {
  return html`<tr><th scope="col">ID</th><th scope="col">Memory text</th><th scope="col" class="num">Cosine<br>BM25${meaningHeads(scorer)}</th><th scope="col" class="num">Score <span class="score-scorer">(${SCORER_NAMES[scorer]} + recency)</span><br>and rank</th><th scope="col">Outcome</th></tr>`;
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

/** A card's number for a record its scorer does not rank. @param {RecordResult} r @param {Scorer} scorer */
function unrankedText(r, scorer) {
  if (scorer === "bm25") return `BM25 ${fixed3(r.bm25)}`;
  if (readsVectors(scorer)) return `similarity ${fixed3(r.similarity ?? 0)}`;
  return `cosine ${fixed3(r.cosine)}`;
}

/** What drops the records out at stage 3, by scorer. @type {Record<Scorer, string>} */
const UNMATCHED = { tfidf: "with no shared terms", bm25: "with no shared terms", embedding: "under the minimum similarity", hybrid: "in neither ranking" };

/** @param {Result} result */
export function renderDiagram(result) {
  const c = result.counts;
  const removedByScope = c.stored - c.in_scope;
  const noTerms = c.in_scope - c.ranked;
  const notPacked = c.ranked - c.selected;
  const details = [
    `${c.stored} record${c.stored === 1 ? "" : "s"} in the store`,
    `${c.in_scope} in scope, ${removedByScope} removed by policy`,
    `${c.ranked} ranked, ${noTerms} ${UNMATCHED[result.policy.scorer] ?? UNMATCHED.tfidf}`,
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
    (r) => html`<tr data-record-id="${r.id}" data-outcome="${r.outcome}" data-decided="${r.stage}" data-cosine="${r.cosine}" data-score="${r.score}" data-bm25="${r.bm25}" data-rank="${r.rank ?? ""}" data-other-rank="${r.other_rank ?? ""}" data-words="${r.words}"${readsVectors(scorer) ? meaningData(r) : ""}${r.id === chosenId ? html` class="chosen"` : ""}>
  <th scope="row"><button type="button" class="record-button" data-choose="${r.id}" aria-pressed="${r.id === chosenId}" aria-controls="score-breakdown" title="Show how ${r.id}'s score is computed">${r.id}</button></th>
  <td class="text-cell">${r.text}<span class="row-meta">${r.words} words · ${r.store} · ${r.session} · ${age(r.age_hours)}</span></td>
  <td class="num lexical" data-label="Cosine, BM25"><span class="lex${scorer === "tfidf" ? " in-force" : ""}" data-name="Cosine">${fixed3(r.cosine)}</span> <span class="lex${scorer === "bm25" ? " in-force" : ""}" data-name="BM25">${fixed3(r.bm25)}</span>${meaningCells(r, scorer)}</td>
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
  return html`<p class="tray-summary"><strong data-words-used="${result.words_used}">${result.words_used} of ${result.budget_words} words</strong> used · ${items.length} of ${result.policy.max_records} record${result.policy.max_records === 1 ? "" : "s"}</p>
<meter class="meter" min="0" max="${Math.max(1, result.budget_words)}" value="${result.words_used}" aria-label="Words used of the budget"></meter>
${
  items.length
    ? html`<ol class="tray-items">${items.map(
        (r) => html`<li data-record-id="${r.id}"><span class="card-id">${r.id}</span> <span class="tray-text">${r.text}</span> <span class="tray-words">${r.words} words</span></li>`,
      )}</ol>`
    : html`<p class="tray-empty">The tray is empty: ${whyLeftOut(result).join("; ")}.${nearMissNote(result)} The table below says why each record stayed out.</p>`
}${items.length && leftAfterRanking(result) ? html`<p class="tray-why">Not in the tray: ${whyLeftOut(result).join("; ")}.</p>` : ""}
<p class="coverage" data-found="${cov.found}" data-total="${cov.total}"><strong>Coverage:</strong> ${coverageText}</p>`;
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

/**
 * The question's terms in no record that a record holds in a longer or inflected form:
 * “deploy” is not “deployment”. Empty when there are none.
 * @param {Result["question"]} q
 */
export function nearMissText(q) {
  const misses = q.near_misses ?? [];
  if (!misses.length) return "";
  const pairs = misses.map((m) => `“${m.term}” is not ${m.record_words.map((w) => `“${w}”`).join(" or ")}`);
  return `${pairs.join(", and ")}: only exact words match, with no stemming.`;
}

/** The near misses after an empty tray's reasons, when some in-scope record shares no word. @param {Result} result */
function nearMissNote(result) {
  const text = nearMissText(result.question);
  return text && result.records.some((r) => r.outcome === "no_shared_terms") ? ` ${text}` : "";
}

/**
 * How the question in force was read: its terms after lowercasing and stop words, each
 * term that no record uses (it counts for nothing), and the stop words removed.
 * @param {Result["question"]} q
 * @param {Scorer} [policyScorer]  under a scorer that reads meaning, the word pieces are shown too
 */
export function renderReading(q, policyScorer = /** @type {Scorer} */ ("tfidf")) {
  const found = q.terms.length
    ? html`<span class="read-terms">${q.terms.join(", ")}</span>`
    : html`no term that any record uses`;
  const ignored = q.dropped_terms.length
    ? html`<ul class="read-ignored">${q.dropped_terms.map((term) => html`<li><span class="read-term">${term}</span>: in no record, ignored</li>`)}</ul>`
    : "";
  const near = nearMissText(q);
  const stop = html`${near ? html`<p class="read-near">${near}</p>` : ""}${q.stop_words.length ? html`<p class="read-stop">Stop words removed: ${q.stop_words.join(", ")}</p>` : ""}`;
  // A fixed question is named: with Your own question chosen and its box empty, it is the one in force.
  const head = q.own ? html`<strong>Your question reads as</strong>` : html`<strong>“${q.text}” reads as</strong>`;
  return html`<p class="read-head">${head} ${found}</p>${ignored}${stop}${tokensReading(q, policyScorer)}`;
}

/**
 * How the chosen record's score is computed, term by term, under the policy's scorer.
 * @param {Result} result
 * @param {string} id
 */
export function renderBreakdown(result, id) {
  const r = result.records.find((x) => x.id === id) ?? result.records[0];
  const w = result.policy.recency_weight;
  const q = result.question;
  if (readsVectors(result.policy.scorer)) {
    const { head, parts, others } = meaningBreakdown(result, r);
    return html`<h3 id="breakdown-title">${head}</h3>
${parts}
<p class="formula">Recency = 2<sup>−age/24</sup> = 2<sup>−${formatNumber(r.age_hours)}/24</sup> = ${fixed4(r.recency)}</p>
<p class="formula">Score = (1 − ${w}) × ${fixed4(r.relevance)} + ${w} × ${fixed4(r.recency)} = <strong>${fixed4(r.score)}</strong>: (1 − recency weight) × ${relevanceName(result.policy.scorer)} + recency weight × recency.</p>
<p class="formula other-scorer">${others}</p>
<p class="formula">${badge(r.outcome)} ${r.reason}</p>
${renderMap(result, r.id)}`;
  }
  const bm25 = result.policy.scorer === "bm25";
  const lexical = bm25 ? bm25Parts(result, r) : cosineParts(r);
  const head = bm25
    ? html`${r.id}: BM25 ${fixed3(r.bm25)}, relative ${fixed3(r.relevance)}, score ${fixed3(r.score)}`
    : html`${r.id}: cosine ${fixed3(r.cosine)}, score ${fixed3(r.score)}`;
  const blended = bm25 ? "relative BM25" : "cosine";
  const other = bm25
    ? html`Under TF-IDF: cosine ${fixed4(r.cosine)}${r.other_rank ? html`, rank ${r.other_rank}` : ""}.`
    : html`Under BM25: ${fixed4(r.bm25)}${r.other_rank ? html`, rank ${r.other_rank}` : ""}.`;
  return html`<h3 id="breakdown-title">${head}</h3>
<p class="breakdown-question">Question terms after lowercasing and stop words: ${q.terms.length ? q.terms.join(", ") : "none"}${q.dropped_terms.length ? html`; in no record, so dropped: ${q.dropped_terms.join(", ")}` : ""}.</p>
${lexical}
<p class="formula">Recency = 2<sup>−age/24</sup> = 2<sup>−${formatNumber(r.age_hours)}/24</sup> = ${fixed4(r.recency)}</p>
<p class="formula">Score = (1 − ${w}) × ${fixed4(r.relevance)} + ${w} × ${fixed4(r.recency)} = <strong>${fixed4(r.score)}</strong>: (1 − recency weight) × ${blended} + recency weight × recency.</p>
<p class="formula other-scorer">${other}</p>
<p class="formula">${badge(r.outcome)} ${r.reason}</p>`;
}

/**
 * The cosine's parts: for each shared term (a row group, so the panel needs no sideways
 * scrolling) its count, tf and weight in the record and in the question, its idf and
 * its contribution; the contributions sum to the cosine.
 * @param {RecordResult} r
 */
function cosineParts(r) {
  if (!r.terms.length) {
    return html`<p>${r.id} shares no term with the question, so its cosine is 0 and it cannot be retrieved at any recency weight.</p>`;
  }
  const parts = /** @type {import("../core/shapes.js").TermPart[]} */ (r.terms);
  return html`<table class="terms">
  <caption>Shared terms of ${r.id} and the question. Weight = tf × idf, divided by the length of the whole vector (record or question), so each vector has length 1.</caption>
  <thead><tr><th scope="col">Term</th><th scope="col">In the record</th><th scope="col">In the question</th></tr></thead>
  ${parts.map(
    (t) => html`<tbody>
  <tr class="term-head"><th scope="rowgroup" colspan="3">${t.term}</th></tr>
  <tr><th scope="row">Count in record, in question</th><td>${t.record_count}</td><td>${t.query_count}</td></tr>
  <tr><th scope="row">tf = 1 + ln(count)</th><td>${fixed4(t.record_tf)}</td><td>${fixed4(t.query_tf)}</td></tr>
  <tr><th scope="row">idf</th><td colspan="2">${fixed4(t.idf)}</td></tr>
  <tr><th scope="row">Weight in record, in question</th><td>${fixed4(t.record_weight)}</td><td>${fixed4(t.query_weight)}</td></tr>
  <tr class="contribution"><th scope="row">Contribution = ${fixed4(t.record_weight)} × ${fixed4(t.query_weight)}</th><td colspan="2">${fixed4(t.contribution)}</td></tr>
</tbody>`,
  )}
  <tfoot><tr><th scope="row" colspan="2">Cosine = sum of contributions</th><td>${fixed4(r.cosine)}</td></tr></tfoot>
</table>`;
}

/**
 * BM25's parts: for each shared term its count in the record (tf) and in the question,
 * idf, the record's length factor and the contribution, which sum to the record's BM25;
 * then that BM25's share of the question's best.
 * @param {Result} result @param {RecordResult} r
 */
function bm25Parts(result, r) {
  const { bm25_k1: k1, bm25_b: b } = result.policy;
  const q = result.question;
  if (!r.terms.length) {
    return html`<p>${r.id} shares no term with the question, so its BM25 is 0 and it cannot be retrieved at any recency weight.</p>`;
  }
  const parts = /** @type {import("../core/shapes.js").BM25Part[]} */ (r.terms);
  const first = parts[0];
  const best = result.records.find((x) => x.bm25 === q.best_bm25);
  return html`<p class="formula">Length factor = 1 − b + b × length / average length = 1 − ${b} + ${b} × ${first.record_length} / ${fixed4(q.average_length)} = ${fixed4(first.length_factor)}: ${r.id} has ${first.record_length} terms after stop words.</p>
<table class="terms">
  <caption>Shared terms of ${r.id} and the question, scored by BM25 (k1 ${k1}, b ${b}). idf = ln(1 + (N − n + 0.5) / (n + 0.5)) for N records, n of them holding the term.</caption>
  <thead><tr><th scope="col">Term</th><th scope="col">Value</th></tr></thead>
  ${parts.map(
    (t) => html`<tbody>
  <tr class="term-head"><th scope="rowgroup" colspan="2">${t.term}</th></tr>
  <tr><th scope="row">Count in record (tf)</th><td>${t.record_count}</td></tr>
  <tr><th scope="row">Count in question</th><td>${t.query_count}</td></tr>
  <tr><th scope="row">idf</th><td>${fixed4(t.idf)}</td></tr>
  <tr><th scope="row">Length factor</th><td>${fixed4(t.length_factor)}</td></tr>
  <tr class="contribution"><th scope="row">Contribution = ${t.query_count} × ${fixed4(t.idf)} × ${t.record_count} / (${t.record_count} + ${k1} × ${fixed4(t.length_factor)})</th><td>${fixed4(t.contribution)}</td></tr>
</tbody>`,
  )}
  <tfoot><tr><th scope="row">BM25 = sum of contributions</th><td>${fixed4(r.bm25)}</td></tr></tfoot>
</table>
<p class="formula">A term's contribution grows with its count but ever more slowly (k1 sets how soon it levels off), and shrinks as the record grows longer than average (b sets how much).</p>
<p class="formula">Relative BM25 = ${fixed4(r.bm25)} / ${fixed4(q.best_bm25)}, the highest BM25 of any record for this question${best ? html` (${best.id})` : ""}, = ${fixed4(r.relevance)}</p>`;
}

/** @param {number} x */
const fixed4 = (x) => x.toFixed(4);

/**
 * @param {RecordResult[]} records  the records to chart (a page of a large store)
 * @param {Scorer} [scorer]  the policy's scorer: its relevance (cosine, or BM25 relative to the best) is the upper bar
 */
export function renderChart(records, scorer = "tfidf") {
  const relevance = relevanceName(scorer);
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

/** @typedef {{id: string, title: string, intro?: string, steps: {title: string, look_for: string, policy?: Partial<import("../core/tables.js").Policy>}[]}} Guide */

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
 * of how many, what it set, what to look for, and the way to the steps either side.
 * @param {Guide} guide @param {number} index @param {boolean} changed  a setting was changed by hand since
 */
export function renderGuideBar(guide, index, changed) {
  const step = guide.steps[index];
  const last = index === guide.steps.length - 1;
  return html`<div class="guide-bar-text" tabindex="0" role="group" aria-labelledby="guide-bar-count">
  <p class="guide-bar-head"><strong id="guide-bar-count" tabindex="-1">Step ${index + 1} of ${guide.steps.length}</strong> · <span class="guide-bar-title">${guide.title}</span></p>
  <p class="guide-bar-step">${step.title}</p>
  <p class="look-for"><span class="look-label">Look for:</span> ${step.look_for}</p>
  ${changed ? html`<p class="guide-bar-changed">A setting was changed by hand since this step was applied.</p>` : ""}
</div>
<div class="guide-bar-buttons">
  <button type="button" class="small" data-guide-go="${guide.id}:${index - 1}"${index === 0 ? html` disabled` : ""}>Previous</button>
  ${changed ? html`<button type="button" class="small" data-guide-go="${guide.id}:${index}">Apply again</button>` : ""}
  ${last ? html`<button type="button" class="small primary" data-guide-close>Finish</button>` : html`<button type="button" class="small primary" data-guide-go="${guide.id}:${index + 1}">Next step</button>`}
  ${last ? "" : html`<button type="button" class="small" data-guide-close>Close</button>`}
</div>`;
}

// How each scorer matches a record to the question, as the experiment's introduction says it.
/** @type {Record<string, string>} */
const SCORER_INTRO = {
  tfidf: "TF-IDF cosine: the words it shares with the question, each weighted by how few records hold it",
  bm25: "BM25: the words it shares with the question, repeats counting ever less and long records discounted",
  embedding: "a static embedding: how close its meaning is to the question's, from fixed word-piece vectors, whatever the spelling",
  hybrid: "hybrid ranking: its BM25 rank and its embedding rank, fused by Reciprocal Rank Fusion",
};

/**
 * The experiment's introduction: the question asked (one of the store's, or the learner's
 * own) of which tenant, and how the scorer in force matches records.
 * @param {Result} result @param {Record<string, string>} tenantLabels
 */
export function renderIntro(result, tenantLabels) {
  const q = result.question;
  const tenant = tenantLabels[result.policy.tenant] ?? result.policy.tenant;
  const scorer = SCORER_INTRO[result.policy.scorer] ?? SCORER_NAMES[result.policy.scorer];
  const asked = q.own
    ? html`You ask your own question, “${q.text}”, of ${tenant}'s memory. It is read with the store's words and weights and has no declared answer: judge the tray by reading it.`
    : html`You ask one of the store's questions, “${q.text}”, of ${tenant}'s memory.`;
  return html`${asked} Each record in scope is scored by ${scorer}, then blended with recency. Change one setting at a time and read what each stage keeps: an empty tray is a valid result, and the table explains every exclusion.`;
}
