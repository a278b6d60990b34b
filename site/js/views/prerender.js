// The prerender: a store's default result drawn as the page's HTML fragments and stage
// texts, by the very renderer the page uses for every update. build.py runs it under Node
// (tools/prerender.mjs); the page runs it for its own downloads (panels/packaging-flow.js).
// Both hand the same JSON text in and take JSON text out, so a package made in the page
// holds the index.html build.py writes.

import { PAGE_SIZE } from "../core/page-core.js";
import { policyFields } from "../core/state.js";
import { renderOptions } from "./controls.js";
import { STAGES } from "./experiment.js";
import { renderGuides, renderStart } from "./guides.js";
import { renderPredictionChoices } from "./prediction.js";
import { resultViews } from "./result-views.js";
import { spanOf, trueSinceOf } from "./timeline.js";

// The template's name for each result view's container.
/** @type {Record<string, string>} */
const TEMPLATE_NAMES = {
  cards: "cards",
  "records-head": "head",
  diagram: "diagram",
  "records-body": "rows",
  "tray-body": "tray",
  chart: "chart",
  "score-breakdown": "breakdown",
  "experiment-intro": "intro",
  "question-reading": "reading",
  "timeline-lanes": "timeline",
  "timeline-text": "timelineText",
};

/**
 * The fragments for a prerender request (sitebuild/assemble.py, Prepared.prerender_request).
 * @param {string} request  JSON text: {store, result, tenantLabels, chosenId}
 * @returns {string} JSON text: {html, options, stages, pageSize, timelineSpan}
 */
export function prerender(request) {
  const { store, result, tenantLabels, chosenId } = JSON.parse(request);
  const policy = result.policy;
  /** A view's markup as one string: a list of elements (cards, table rows) joined. @param {unknown} made */
  const markup = (made) => (Array.isArray(made) ? made.join("") : String(made));
  const fragments = {
    ...Object.fromEntries(
      resultViews(result, { tenantLabels, chosenId, page: 0, trueSince: trueSinceOf(store.records) }).map(([id, make]) => [TEMPLATE_NAMES[id], markup(make())]),
    ),
    predictionChoices: renderPredictionChoices(store.records.slice(0, PAGE_SIZE), new Set()),
    guides: renderGuides(store.guides ?? []),
    start: renderStart(store.guides ?? []),
  };
  const html = Object.fromEntries(Object.entries(fragments).map(([k, v]) => [k, String(v)]));
  // Each choice control's options, as the page lists them.
  const options = Object.fromEntries(
    policyFields(store)
      .filter((field) => field.options)
      .map((field) => [field.name, String(renderOptions(/** @type {any} */ (field.options), String(policy[field.name])))]),
  );
  // The timeline's span, in hours: the as-of slider's maximum, which the template writes.
  return JSON.stringify({ html, options, stages: STAGES, pageSize: PAGE_SIZE, timelineSpan: spanOf(store.records) });
}
