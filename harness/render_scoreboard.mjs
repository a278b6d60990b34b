// Renders the page's scoreboard views under Node, for tests/test_evaluate.py: reads
// {evaluations: [Evaluation], numbers: [number]} as JSON on stdin, writes {scope, means,
// grid: [HTML string], numbers: [string]} as JSON on stdout, each number as the page
// writes a measure.

import { fixedHalfUp } from "../site/js/core/decimals.js";
import { meansTable, questionGrid, scopeNote } from "../site/js/views/scoreboard.js";

let input = "";
for await (const chunk of process.stdin) input += chunk;
const { evaluations, numbers } = JSON.parse(input);
process.stdout.write(
  JSON.stringify({
    scope: evaluations.map((/** @type {any} */ e) => String(scopeNote(e))),
    means: evaluations.map((/** @type {any} */ e) => String(meansTable(e))),
    grid: evaluations.map((/** @type {any} */ e) => String(questionGrid(e))),
    numbers: numbers.map((/** @type {number} */ x) => fixedHalfUp(x, 3)),
  }),
);
