// TF-IDF's breakdown: the cosine taken apart term by term.

import { SHARED_INDEX } from "../core/scorers.js";
import { fixed3, fixed4, scoreText } from "./format.js";
import { indexAsOf } from "./timeline.js";
import { html } from "./html.js";

/** @typedef {import("../core/shapes.js").Result} Result */
/** @typedef {import("../core/shapes.js").RecordResult} RecordResult */

/**
 * For each shared term (a row group, so the panel needs no sideways scrolling) its count,
 * tf and weight in the record and in the question, its idf and its contribution; the
 * contributions sum to the cosine.
 * @param {Result} result @param {RecordResult} r
 */
export function cosineBreakdown(result, r) {
  const q = result.question;
  const head = html`${r.id}: cosine ${fixed3(r.cosine)}, score ${scoreText(r.score)}`;
  const terms = html`<p class="breakdown-question">Question terms after lowercasing and stop words: ${q.terms.length ? q.terms.join(", ") : "none"}${q.dropped_terms.length ? html`; in no record, so dropped: ${q.dropped_terms.join(", ")}` : ""}.</p>`;
  if (!r.terms.length) {
    return { head, body: html`${terms}<p>${r.id} shares no term with the question, so its cosine is 0 and it cannot be retrieved at any recency weight.</p>` };
  }
  const parts = /** @type {import("../core/shapes.js").TermPart[]} */ (r.terms);
  return {
    head,
    body: html`${terms}<table class="terms">
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
</table>
<p class="formula shared-index">idf = ln((1 + N) / (1 + df)) + 1: ${SHARED_INDEX}.${indexAsOf(result, "df counts")}</p>`,
  };
}
