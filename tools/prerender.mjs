// Build-time prerender: reads {store, result, tenantLabels, chosenId} as
// JSON on stdin and prints the page's HTML fragments and stage texts as JSON, made by
// the very renderer the page uses for every update.
import { PAGE_SIZE } from "../site/js/core/page-core.js";
import { policyFields } from "../site/js/core/state.js";
import {
  STAGES,
  renderBreakdown,
  renderCards,
  renderChart,
  renderDiagram,
  renderGuides,
  renderIntro,
  renderOptions,
  renderPredictionChoices,
  renderReading,
  renderStart,
  renderTableHead,
  renderTableRows,
  renderTray,
} from "../site/js/views/render.js";

let input = "";
for await (const chunk of process.stdin) input += chunk;
const { store, result, tenantLabels, chosenId } = JSON.parse(input);
const policy = result.policy;
const fragments = {
  cards: renderCards(result.records.slice(0, PAGE_SIZE), tenantLabels, policy.scorer),
  diagram: renderDiagram(result),
  head: renderTableHead(policy.scorer),
  rows: renderTableRows(result.records.slice(0, PAGE_SIZE), chosenId, policy.scorer),
  tray: renderTray(result, tenantLabels),
  chart: renderChart(result.records.slice(0, PAGE_SIZE), policy.scorer),
  breakdown: renderBreakdown(result, chosenId),
  predictionChoices: renderPredictionChoices(store.records.slice(0, PAGE_SIZE), new Set()),
  guides: renderGuides(store.guides ?? []),
  start: renderStart(store.guides ?? []),
  intro: renderIntro(result, tenantLabels),
  reading: renderReading(result.question, policy.scorer),
};
const html = Object.fromEntries(Object.entries(fragments).map(([k, v]) => [k, String(v)]));
// Each choice control's options, as the page lists them.
const options = Object.fromEntries(
  policyFields(store)
    .filter((field) => field.options)
    .map((field) => [field.name, String(renderOptions(field.options, String(policy[field.name])))]),
);
process.stdout.write(JSON.stringify({ html, options, stages: STAGES, pageSize: PAGE_SIZE }));
