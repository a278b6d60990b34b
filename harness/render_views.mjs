// Renders the page's views of answers under Node, for tests/test_claims.py: reads
// [{result, chosenId, choice}] as JSON on stdin, writes [{breakdown, reading, tray,
// diagram, head, stage3}] (HTML strings) as JSON on stdout.

import { renderBreakdown } from "../site/js/views/breakdown.js";
import { renderReading } from "../site/js/views/reading.js";
import { renderDiagram, stageExplanation } from "../site/js/views/experiment.js";
import { renderTableHead } from "../site/js/views/records.js";
import { renderTray } from "../site/js/views/tray.js";

let input = "";
for await (const chunk of process.stdin) input += chunk;
const cases = JSON.parse(input);
const out = cases.map((/** @type {any} */ c) => ({
  breakdown: String(renderBreakdown(c.result, c.chosenId, c.choice)),
  reading: String(renderReading(c.result.question)),
  tray: String(renderTray(c.result, {})),
  diagram: String(renderDiagram(c.result)),
  head: String(renderTableHead(c.result.policy.scorer, c.result.policy.blend)),
  stage3: stageExplanation(3, c.result.policy.scorer),
}));
process.stdout.write(JSON.stringify(out));
