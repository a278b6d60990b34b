// BM25's breakdown: each shared term's part, and the share of the tenant's best BM25.

import { SHARED_INDEX } from "../core/scorers.js";
import { fixed3, fixed4, scoreText } from "./format.js";
import { indexAsOf } from "./timeline.js";
import { html } from "./html.js";

/** @typedef {import("../core/shapes.js").Result} Result */
/** @typedef {import("../core/shapes.js").RecordResult} RecordResult */

/**
 * For each shared term its count in the record (tf) and in the question, idf, the record's
 * length factor and the contribution, which sum to the record's BM25; then that BM25's
 * share of the best among the active tenant's records.
 * @param {Result} result @param {RecordResult} r
 */
export function bm25Breakdown(result, r) {
  const { bm25_k1: k1, bm25_b: b } = result.policy;
  const q = result.question;
  const head = html`${r.id}: BM25 ${fixed3(r.bm25)}, relative ${fixed3(r.relevance)}, score ${scoreText(r.score)}`;
  if (!r.terms.length) {
    return { head, body: html`<p>${r.id} shares no term with the question, so its BM25 is 0 and it cannot be retrieved at any recency weight.</p>` };
  }
  const parts = /** @type {import("../core/shapes.js").BM25Part[]} */ (r.terms);
  const first = parts[0];
  return {
    head,
    body: html`<p class="formula">Length factor = 1 − b + b × length / average length = 1 − ${b} + ${b} × ${first.record_length} / ${fixed4(q.average_length)} = ${fixed4(first.length_factor)}: ${r.id} has ${first.record_length} terms after stop words.</p>
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
<p class="formula">A term's contribution grows with its count but ever more slowly (k1 sets how soon it levels off), and shrinks as the record grows longer than average (b sets how much). ${SHARED_INDEX}.${
  indexAsOf(result, "n and the mean record length count")
}</p>
${relativeLine(result, r)}`,
  };
}

/**
 * The share of the best: the divisor is the highest BM25 among the record's tenant's
 * records, named (the tenant is a hard filter for this number too).
 * @param {Result} result @param {RecordResult} r
 */
function relativeLine(result, r) {
  const q = result.question;
  if (r.tenant !== result.policy.tenant) {
    return html`<p class="formula">${r.id} belongs to another tenant, so its relative BM25 ${fixed4(r.relevance)} is its share of the best BM25 among its own tenant's records.</p>`;
  }
  return html`<p class="formula" data-best="${q.best_bm25_record ?? ""}">Relative BM25 = ${fixed4(r.bm25)} / ${fixed4(q.best_bm25)}, the highest BM25 among the active tenant's records for this question (${q.best_bm25_record}), = ${fixed4(r.relevance)}</p>`;
}
