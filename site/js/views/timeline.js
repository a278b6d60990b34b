// The records on a time axis (no DOM: the build's prerender runs it under Node): one lane
// per tenant and key, each record where it was written and, where it differs, where its fact
// became true; which record superseded which; and what the as-of line leaves out. Beside it,
// the same facts as a table. The pure rules of the as-of line (where a pointer or a key moves
// it, what it says) are here too, so the panel only reads events and writes what they give.

import { PAGE_SIZE } from "../core/page-core.js";
import { OUTCOME_TABLE as OUTCOMES, STORE_FORMAT } from "../core/tables.js";
import { formatNumber } from "./format.js";
import { html } from "./html.js";

/** @typedef {import("../core/shapes.js").Result} Result */
/** @typedef {import("../core/shapes.js").RecordResult} RecordResult */

// The record field a missing true_since_hours takes its value from (the store format's row).
const TRUE_SINCE = STORE_FORMAT.record.find((row) => row.name === "true_since_hours");
const TRUE_SINCE_FROM = /** @type {string} */ (TRUE_SINCE?.defaultFrom ?? "age_hours");

/** Each record's hours since its fact became true, in store order. @param {any[]} records @returns {number[]} */
export function trueSinceOf(records) {
  return records.map((r) => (typeof r.true_since_hours === "number" ? r.true_since_hours : r[TRUE_SINCE_FROM]));
}

/** The hours the axis spans: back to the oldest time written or true, at least one. @param {any[]} records */
export function spanOf(records) {
  const times = [...records.map((r) => r.age_hours), ...trueSinceOf(records)];
  return Math.max(1, Math.ceil(Math.max(0, ...times)));
}

// How close two marks of a lane may be (a share of the axis, in percent) before their labels part.
const LABEL_GAP = 9;

/** Where an hour sits on the axis, as a percentage from its left end (the oldest) to now. @param {number} hours @param {number} span */
export const place = (hours, span) => (1 - Math.min(hours, span) / span) * 100;

/** Which way the line's label leans at a place on the axis: inwards near either end. @param {number} at  a percentage */
export const sideOf = (at) => (at > 75 ? "end" : at < 25 ? "start" : "middle");

/** The as-of a point of the axis stands for (its share from the left), in whole hours. @param {number} share @param {number} span */
export function asOfAt(share, span) {
  return Math.round((1 - Math.min(1, Math.max(0, share))) * span);
}

/**
 * The as-of a key moves the line to, or null for a key the line does not take: left and
 * right move it an hour back or forward along the axis (up and down as the slider's value
 * goes: up is further back), Page Up and Page Down a day, Home to now (the least value),
 * End to the oldest record.
 * @param {string} key @param {number} asOf @param {number} span @returns {number | null}
 */
export function asOfByKey(key, asOf, span) {
  const by = { ArrowLeft: 1, ArrowUp: 1, ArrowRight: -1, ArrowDown: -1, PageUp: 24, PageDown: -24 }[key];
  if (by !== undefined) return Math.min(span, Math.max(0, Math.round(asOf) + by));
  if (key === "Home") return 0;
  if (key === "End") return span;
  return null;
}

/** The as-of in words: "now", or "120 hours ago". @param {number} asOf */
export function asOfWords(asOf) {
  return asOf === 0 ? "now" : `${formatNumber(asOf)} hour${asOf === 1 ? "" : "s"} ago`;
}

/**
 * What the slider says of its value, from the result at that as-of: the hour and how many
 * records had been written by then.
 * @param {number} asOf @param {Result} result
 */
export function asOfText(asOf, result) {
  const total = result.records.length;
  if (result.policy.as_of_hours !== asOf) return `As of ${asOfWords(asOf)}`;
  const written = total - result.records.filter((r) => r.outcome === "not_written_yet").length;
  return `As of ${asOfWords(asOf)}: ${written} of ${total} records written`;
}

/**
 * What the index counted as of an earlier hour, with this answer's numbers ("" now): the
 * records written by then, and the statistics (``counted``) that count only among them.
 * @param {Result} result @param {string} counted
 */
export function indexAsOf(result, counted) {
  const asOf = result.policy.as_of_hours;
  if (asOf === 0) return "";
  const written = result.records.length - result.records.filter((r) => r.outcome === "not_written_yet").length;
  return html` <span class="as-of-index">As of ${asOfWords(asOf)} the index held only the ${written} records written by then: N = ${written}, and ${counted} among them.</span>`;
}

/**
 * Each label's line in a lane (its marks left to right): a label too close to the one before
 * goes a line lower, up to two lines, so close records' labels stand apart.
 * @param {number[]} places  the marks' places, in percent @returns {number[]}
 */
export function labelRows(places) {
  /** @type {number[]} */
  const rows = [];
  places.forEach((at, n) => rows.push(n > 0 && Math.abs(places[n - 1] - at) < LABEL_GAP ? (rows[n - 1] + 1) % 3 : 0));
  return rows;
}

/** The positions of the page of records the table shows (every record when no page is given). @param {number} total @param {number} [page] */
function onPage(total, page = 0) {
  const first = page * PAGE_SIZE;
  return new Set(Array.from({ length: Math.max(0, Math.min(total, first + PAGE_SIZE) - first) }, (_, i) => first + i));
}

/** Ticks of the axis: a few round hours ago, now included. @param {number} span @returns {number[]} */
export function ticksOf(span) {
  const step = [1, 2, 6, 12, 24, 48, 96, 168, 336, 720, 1440, 2880, 8760].find((s) => span / s <= 4) ?? Math.ceil(span / 4);
  const ticks = [];
  for (let h = 0; h <= span; h += step) ticks.push(h);
  return ticks;
}

/**
 * The records in lanes: the active tenant's first, each key a lane (its records in the order
 * they were written, oldest first), then the records with no key.
 * @param {RecordResult[]} records @param {string} tenant @param {Set<number>} [shown]  the positions drawn (every one)
 * @returns {{tenant: string, key: string | null, positions: number[]}[]}
 */
export function lanesOf(records, tenant, shown) {
  /** @type {Map<string, {tenant: string, key: string | null, positions: number[]}>} */
  const lanes = new Map();
  records.forEach((r, i) => {
    if (shown && !shown.has(i)) return;
    const name = JSON.stringify([r.tenant, r.key]);
    if (!lanes.has(name)) lanes.set(name, { tenant: r.tenant, key: r.key, positions: [] });
    lanes.get(name)?.positions.push(i);
  });
  const rank = (/** @type {{tenant: string, key: string | null}} */ lane) => (lane.tenant === tenant ? 0 : 2) + (lane.key === null ? 1 : 0);
  return [...lanes.values()]
    .sort((a, b) => rank(a) - rank(b))
    .map((lane) => ({ ...lane, positions: lane.positions.sort((a, b) => records[b].age_hours - records[a].age_hours || a - b) }));
}

/**
 * The timeline of a result: its lanes with each record's marks, supersession arrows and the
 * span the as-of leaves out (renderTimelineText gives its text alternative).
 * @param {Result} result @param {{tenantLabels: Record<string, string>, trueSince?: number[], page?: number}} context
 */
export function renderTimelineLanes(result, context) {
  const records = result.records;
  const trueSince = context.trueSince ?? trueSinceOf(records);
  // The axis spans the whole store; the lanes hold the page of records the table shows.
  const span = spanOf(records.map((r, i) => ({ age_hours: r.age_hours, true_since_hours: trueSince[i] })));
  const shown = onPage(records.length, context.page);
  const asOf = result.policy.as_of_hours;
  const positionOf = new Map(records.map((r, i) => [r.id, i]));
  const lanes = lanesOf(records, result.policy.tenant, shown);
  const label = (/** @type {string} */ tenant) => context.tenantLabels[tenant] ?? tenant;
  const x = (/** @type {number} */ hours) => `${place(hours, span).toFixed(2)}%`;
  // Positions are SVG percentages of the lane's width: no viewBox, so text keeps its size
  // at any width, and no style attribute, which the page's CSP refuses.
  const future = html`<rect class="timeline-future" x="${x(asOf)}" y="0" width="${(100 - place(asOf, span)).toFixed(2)}%" height="100%"></rect>`;
  return html`<div class="timeline-lanes" data-span="${span}" data-as-of="${asOf}">
${lanes.map(
  (lane) => html`<div class="timeline-lane${lane.tenant === result.policy.tenant ? "" : " other-tenant"}">
<p class="timeline-lane-label">${label(lane.tenant)} · ${lane.key ?? "no key"}${lane.tenant === result.policy.tenant ? "" : " (another tenant)"}</p>
${((rows) => html`<svg class="timeline-track" width="100%" height="${62 + 12 * Math.max(0, ...rows)}" aria-hidden="true">${future}<line class="timeline-base" x1="0" x2="100%" y1="${61 + 12 * Math.max(0, ...rows)}" y2="${61 + 12 * Math.max(0, ...rows)}"></line>${lane.positions.map((i, n) => {
    const r = records[i];
    const row = rows[n];
    const target = r.superseded_by === null ? undefined : positionOf.get(r.superseded_by);
    const by = target !== undefined && shown.has(target) ? target : undefined;
    return html`${
      by === undefined
        ? ""
        : html`<line class="timeline-arrow" x1="${x(r.age_hours)}" x2="${x(records[by].age_hours)}" y1="2" y2="2" marker-end="url(#timeline-arrowhead)" data-from="${r.id}" data-to="${r.superseded_by}"></line>`
    }${
      trueSince[i] === r.age_hours
        ? ""
        : html`<line class="timeline-since" x1="${x(r.age_hours)}" x2="${x(trueSince[i])}" y1="7" y2="7"></line><text class="timeline-true" x="${x(trueSince[i])}" y="11" text-anchor="middle">◆</text><text class="timeline-true-id" x="${x(trueSince[i])}" dx="${place(trueSince[i], span) > 80 ? -8 : 8}" y="10" text-anchor="${place(trueSince[i], span) > 80 ? "end" : "start"}">${r.id} true</text>`
    }<g class="timeline-mark" data-record-id="${r.id}" data-outcome="${r.outcome}"><circle cx="${x(r.age_hours)}" cy="24" r="7"></circle><text class="timeline-glyph" x="${x(r.age_hours)}" y="28" text-anchor="middle">${OUTCOMES[r.outcome]?.glyph ?? ""}</text><text class="timeline-id" x="${x(r.age_hours)}" y="${45 + 12 * row}" text-anchor="middle">${r.id}</text></g>`;
  })}</svg>`)(labelRows(lane.positions.map((i) => place(records[i].age_hours, span))))}
</div>`,
)}
<svg class="timeline-axis" width="100%" height="20" aria-hidden="true"><defs><marker id="timeline-arrowhead" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z"></path></marker></defs>${ticksOf(span).map(
  (h) => html`<text x="${x(h)}" y="14" text-anchor="${h === 0 ? "end" : h === span ? "start" : "middle"}">${h === 0 ? "now" : `${formatNumber(h)} h ago`}</text>`,
)}</svg>
</div>`;
}

/**
 * What the timeline's marks mean, what the as-of changes, and the same facts as a table.
 * @param {Result} result @param {{tenantLabels: Record<string, string>, trueSince?: number[], page?: number}} context
 */
export function renderTimelineText(result, context) {
  const records = result.records;
  const trueSince = context.trueSince ?? trueSinceOf(records);
  const asOf = result.policy.as_of_hours;
  const byTrue = result.policy.latest_by === "true";
  const lanes = lanesOf(records, result.policy.tenant, onPage(records.length, context.page));
  return html`<p class="timeline-key">● written, ◆ became true, ⟶ superseded by. The shaded part lies after the as-of: not written yet${byTrue ? " (or, by the time true, not true yet)" : ""}. Ages count from ${asOf === 0 ? "now" : `the as-of, ${asOfWords(asOf)}`}; the latest fact per key is the one ${byTrue ? "that became true last" : "written last"}.</p>
${timelineTable(result, trueSince, lanes)}`;
}

/**
 * The same facts as a table: per lane, each record's times written and true (then as ages at
 * the as-of), its outcome and what superseded it.
 * @param {Result} result @param {number[]} trueSince @param {{tenant: string, key: string | null, positions: number[]}[]} lanes
 */
function timelineTable(result, trueSince, lanes) {
  const asOf = result.policy.as_of_hours;
  const later = (/** @type {number} */ hours) => (hours < asOf ? html` <em>(after the as-of)</em>` : "");
  return html`<details class="timeline-text"><summary>The timeline as a table</summary>
<div class="scroll-x" tabindex="0" role="region" aria-label="The timeline as a table"><table class="timeline-table">
<caption class="visually-hidden">Each record by tenant and key: how many hours ago it was written and its fact became true, its age as of ${asOfWords(asOf)}, its outcome then, and the record that superseded it.</caption>
<thead><tr><th scope="col">Record</th><th scope="col">Tenant · key</th><th scope="col">Written, h ago</th><th scope="col">True since, h ago</th><th scope="col">Age ${asOf === 0 ? "now" : "then"}</th><th scope="col">Outcome</th></tr></thead>
<tbody>${lanes.map((lane) =>
    lane.positions.map((i) => {
      const r = result.records[i];
      return html`<tr data-record-id="${r.id}"><th scope="row">${r.id}</th><td>${r.tenant} · ${r.key ?? "no key"}</td><td class="num">${formatNumber(r.age_hours)}${later(r.age_hours)}</td><td class="num">${formatNumber(trueSince[i])}${later(trueSince[i])}</td><td class="num">${r.age_hours < asOf ? "–" : `${formatNumber(r.age_hours - asOf)} h`}</td><td>${OUTCOMES[r.outcome]?.label ?? r.outcome}${r.superseded_by ? ` by ${r.superseded_by}` : ""}</td></tr>`;
    }),
  )}</tbody></table></div></details>`;
}
