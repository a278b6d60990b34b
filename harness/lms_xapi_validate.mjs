// xapi-validation (npm, Learning Locker's validator) for the test LRS (harness/cmi5_rules.py):
// one JSON statement per line on stdin, one JSON list of its problems per line on stdout.
import { createRequire } from "node:module";
import { createInterface } from "node:readline";

const validate = createRequire(import.meta.url)("xapi-validation").default;

for await (const line of createInterface({ input: process.stdin })) {
  const warnings = validate(JSON.parse(line));
  const problems = warnings.map((w) => `${w.path.join(".")}: ${w.constructor.name} ${JSON.stringify(w.data)}`);
  process.stdout.write(`${JSON.stringify(problems)}\n`);
}
