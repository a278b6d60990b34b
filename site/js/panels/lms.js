// Reporting to a learning management system (scorm.js): incomplete from the start,
// completed when the learner reaches the final stage of a guided experiment.

import { ScormReporter } from "../scorm.js";

/** @param {import("./context.js").Context} _context @returns {import("./context.js").Handlers} */
export function setUp(_context) {
  const scorm = new ScormReporter();
  return {
    "complete-activity": () => scorm.complete(),
  };
}
