// Build-time prerender: reads {store, result, tenantLabels, chosenId} as
// JSON on stdin and prints the page's HTML fragments and stage texts as JSON, made by
// the very renderer the page uses for every update.
import { PAGE_SIZE } from "../site/js/core/page-core.js";
import { policyFields } from "../site/js/core/state.js";
import { renderOptions } from "../site/js/views/controls.js";
import { STAGES } from "../site/js/views/experiment.js";
import { renderGuides, renderStart } from "../site/js/views/guides.js";
import { renderPredictionChoices } from "../site/js/views/prediction.js";
import { resultViews } from "../site/js/views/result-views.js";
import { spanOf, trueSinceOf } from "../site/js/views/timeline.js";

// The template's name for each result view's container.
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

let input = "";
for await (const chunk of process.stdin) input += chunk;
const { store, result, tenantLabels, chosenId } = JSON.parse(input);
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
    .map((field) => [field.name, String(renderOptions(field.options, String(policy[field.name])))]),
);
// The timeline's span, in hours: the as-of slider's maximum, which the template writes.
process.stdout.write(JSON.stringify({ html, options, stages: STAGES, pageSize: PAGE_SIZE, timelineSpan: spanOf(store.records) }));
