// Build-time prerender: reads {store, result, tenantLabels, chosenId} as JSON on stdin and
// prints the page's HTML fragments and stage texts as JSON (site/js/views/prerender.js).
import { prerender } from "../site/js/views/prerender.js";

let input = "";
for await (const chunk of process.stdin) input += chunk;
process.stdout.write(prerender(input));
