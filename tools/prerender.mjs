// Build-time prerender: reads {result, tenantLabels, chosenId} as JSON on stdin and
// prints the page's result fragments and stage texts as JSON, using the very renderer the page uses.
import { STAGES, renderBreakdown, renderCards, renderChart, renderDiagram, renderTableRows, renderTray } from "../site/js/render.js";

let input = "";
for await (const chunk of process.stdin) input += chunk;
const { result, tenantLabels, chosenId } = JSON.parse(input);
const fragments = {
  cards: renderCards(result, tenantLabels),
  diagram: renderDiagram(result),
  rows: renderTableRows(result, chosenId),
  tray: renderTray(result, tenantLabels),
  chart: renderChart(result),
  breakdown: renderBreakdown(result, chosenId),
};
const html = Object.fromEntries(Object.entries(fragments).map(([k, v]) => [k, String(v)]));
process.stdout.write(JSON.stringify({ html, stages: STAGES }));
