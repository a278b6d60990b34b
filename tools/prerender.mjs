// Build-time prerender: reads {store, result, tenantLabels, chosenId, storeLabels} as
// JSON on stdin and prints the page's HTML fragments and stage texts as JSON, made by
// the very renderer the page uses for every update.
import {
  PAGE_SIZE,
  STAGES,
  renderBreakdown,
  renderCards,
  renderChart,
  renderDiagram,
  renderGuides,
  renderOptions,
  renderPredictionChoices,
  renderTableRows,
  renderTray,
} from "../site/js/render.js";

let input = "";
for await (const chunk of process.stdin) input += chunk;
const { store, result, tenantLabels, chosenId, storeLabels } = JSON.parse(input);
const policy = result.policy;
const fragments = {
  cards: renderCards(result.records.slice(0, PAGE_SIZE), tenantLabels),
  diagram: renderDiagram(result),
  rows: renderTableRows(result.records.slice(0, PAGE_SIZE), chosenId),
  tray: renderTray(result, tenantLabels),
  chart: renderChart(result.records.slice(0, PAGE_SIZE)),
  breakdown: renderBreakdown(result, chosenId),
  questionOptions: renderOptions(store.questions.map((q) => ({ value: q.id, label: q.text })), policy.question),
  tenantOptions: renderOptions(store.tenants.map((t) => ({ value: t.id, label: t.label })), policy.tenant),
  storeOptions: renderOptions(storeLabels.map(([value, label]) => ({ value, label })), policy.store),
  predictionChoices: renderPredictionChoices(store.records.slice(0, PAGE_SIZE), new Set()),
  guides: renderGuides(store.guides ?? []),
};
const html = Object.fromEntries(Object.entries(fragments).map(([k, v]) => [k, String(v)]));
process.stdout.write(JSON.stringify({ html, stages: STAGES, pageSize: PAGE_SIZE }));
