// Fixed places as the command line prints a measure: shortest digits, rounded half up.
import assert from "node:assert/strict";
import { test } from "node:test";

import { fixedHalfUp } from "../../site/js/core/decimals.js";

test("a written tie rounds up, as by hand and as the command line prints it", () => {
  // Each expected string is engine.evaluate.printed(x, places).
  const cases = [
    [0.5625, 3, "0.563"], [0.4375, 3, "0.438"], [0.0625, 3, "0.063"], [0.1875, 3, "0.188"], [0.8125, 3, "0.813"],
    [0.3125, 3, "0.313"], [0.125, 2, "0.13"], [2.5, 0, "3"], [2.675, 2, "2.68"], [1.005, 2, "1.01"], [-0.8125, 3, "-0.813"],
  ];
  for (const [x, places, printed] of cases) assert.equal(fixedHalfUp(/** @type {number} */ (x), /** @type {number} */ (places)), printed, `${x} to ${places}`);
  assert.equal((2.675).toFixed(2), "2.67", "toFixed reads the binary value, just under 2.675");
});

test("other values round to the nearest, padded to the places asked", () => {
  const cases = [
    [1 / 3, 3, "0.333"], [2 / 3, 3, "0.667"], [0.6309297535714575, 3, "0.631"], [0.0005, 3, "0.001"], [0.00049999, 3, "0.000"],
    [1, 3, "1.000"], [0, 3, "0.000"], [0.9996, 3, "1.000"], [1e-7, 3, "0.000"], [123.4, 3, "123.400"], [1e21, 1, "1000000000000000000000.0"],
  ];
  for (const [x, places, printed] of cases) assert.equal(fixedHalfUp(/** @type {number} */ (x), /** @type {number} */ (places)), printed, `${x}`);
});
