// The result's views, one list: each container's id and how to make its markup. The page
// places them on every update (view.js) and the build's prerender fills the same
// containers from them (tools/prerender.mjs), so the two cannot drift apart.

import { PAGE_SIZE } from "../core/page-core.js";
import { renderBreakdown } from "./breakdown.js";
import { renderReading } from "./reading.js";
import { renderDiagram, renderIntro } from "./experiment.js";
import { cardItems, renderChart, renderTableHead, scoreCeiling, tableRowItems } from "./records.js";
import { renderTimelineLanes, renderTimelineText } from "./timeline.js";
import { renderTray } from "./tray.js";

/** @typedef {import("../core/shapes.js").Result} Result */

/**
 * @typedef {{tenantLabels: Record<string, string>, chosenId: string, choice?: import("../core/page-core.js").Choice, page: number,
 *   trueSince?: number[]}} ViewContext  trueSince: each record's hours since its fact became true, in store order
 */

/**
 * Each result view's container id and how to make its markup (made only when asked for).
 * Cards and table rows come as lists of single elements, so the page replaces only those
 * that changed.
 * @param {Result} result @param {ViewContext} context
 * @returns {[string, () => unknown][]}
 */
export function resultViews(result, context) {
  const records = result.records.slice(context.page * PAGE_SIZE, (context.page + 1) * PAGE_SIZE);
  return [
    ["cards", () => cardItems(records, context.tenantLabels, result.policy.scorer, result.policy.as_of_hours)],
    ["records-head", () => renderTableHead(result.policy.scorer, result.policy.blend)],
    ["diagram", () => renderDiagram(result)],
    ["records-body", () => tableRowItems(records, context.chosenId, result.policy.scorer, result.policy.as_of_hours)],
    ["tray-body", () => renderTray(result, context.tenantLabels)],
    ["timeline-lanes", () => renderTimelineLanes(result, context)],
    ["timeline-text", () => renderTimelineText(result, context)],
    ["chart", () => renderChart(records, result.policy.scorer, scoreCeiling(result))],
    ["score-breakdown", () => renderBreakdown(result, context.chosenId, context.choice)],
    ["experiment-intro", () => renderIntro(result, context.tenantLabels)],
    ["question-reading", () => renderReading(result.question)],
  ];
}
