// The embedding's breakdown: the similarity taken apart token by token
// (contribution = count × v·d̂ / ‖Σv‖, adding up to the similarity).

import { fixed3, fixed4, scoreText } from "./format.js";
import { html } from "./html.js";

/** @typedef {import("../core/shapes.js").Result} Result */
/** @typedef {import("../core/shapes.js").RecordResult} RecordResult */
/** @typedef {import("../core/shapes.js").EmbeddingPart} EmbeddingPart */
/** @typedef {import("../core/shapes.js").NearToken} NearToken */

/** @param {NearToken[]} near */
function nearList(near) {
  return near.length ? near.map((n) => `${n.token} ${fixed3(n.cosine)}`).join(", ") : "none";
}

/**
 * For each question token its contribution, written out, the record's tokens closest to
 * it and its nearest neighbours in the whole vocabulary; the contributions add up to the
 * similarity.
 * @param {Result} result @param {RecordResult} r
 */
export function embeddingBreakdown(result, r) {
  const q = result.question;
  const similarity = r.similarity ?? 0;
  const head = html`${r.id}: similarity ${fixed3(similarity)}, score ${scoreText(r.score)}`;
  const parts = /** @type {EmbeddingPart[]} */ (r.terms);
  if (!parts.length || q.norm === null || q.norm === 0) {
    return { head, body: html`<p>No word piece of the question is in the vocabulary, so the question's vector is zero and every similarity is 0.</p>` };
  }
  const norm = q.norm;
  const neighbours = new Map(q.tokens.map((t) => [t.token, t.neighbours]));
  const min = result.policy.min_similarity;
  return {
    head,
    body: html`<p class="formula">‖Σv‖ = ${fixed4(norm)}: the length of the sum of the question's ${q.tokens.reduce((n, t) => n + t.count, 0)} token vectors. ${r.id}'s vector d̂ is the mean of its own tokens' vectors, scaled to length 1.</p>
<table class="terms embedding-parts">
  <caption>Each question token's part of ${r.id}'s similarity: count × v·d̂ / ‖Σv‖, with v the token's vector. The parts add up to the similarity.</caption>
  <thead><tr><th scope="col">Token</th><th scope="col">Value</th></tr></thead>
  ${parts.map((t) => {
    const dot = (t.contribution * norm) / t.count;
    return html`<tbody>
  <tr class="term-head"><th scope="rowgroup" colspan="2">${t.token}</th></tr>
  <tr class="contribution" data-token="${t.token}" data-contribution="${t.contribution}"><th scope="row">Contribution = ${t.count} × ${fixed4(dot)} / ${fixed4(norm)}</th><td>${fixed4(t.contribution)}</td></tr>
  <tr><th scope="row">${r.id}'s closest tokens</th><td class="near">${t.closest.length ? nearList(t.closest) : "not searched: out of scope"}</td></tr>
  <tr><th scope="row">Nearest in the vocabulary</th><td class="near">${nearList(neighbours.get(t.token) ?? [])}</td></tr>
</tbody>`;
  })}
  <tfoot><tr><th scope="row">Similarity = sum of contributions</th><td>${fixed4(similarity)}</td></tr></tfoot>
</table>
<p class="formula">Similarity ${fixed4(similarity)} ${similarity >= min ? "≥" : "<"} the minimum ${min}${similarity >= min ? "" : ": excluded at any recency weight"}. For the blend, relevance = max(0, similarity) = ${fixed4(r.relevance)}.</p>`,
  };
}
