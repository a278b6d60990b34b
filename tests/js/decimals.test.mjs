// Fixed places as Python writes them: the scoreboard's figures read as the command line's.
import assert from "node:assert/strict";
import { test } from "node:test";

import { fixedAsPython } from "../../site/js/core/decimals.js";

test("an exact tie goes to the even digit, as Python's format writes it (toFixed goes up)", () => {
  // Each expected string is Python 3's format(x, ".3f") / ".2f" / ".0f".
  const cases = [
    [0.5625, 3, "0.562"], [0.4375, 3, "0.438"], [0.0625, 3, "0.062"], [0.1875, 3, "0.188"], [0.8125, 3, "0.812"],
    [0.9375, 3, "0.938"], [0.3125, 3, "0.312"], [0.125, 2, "0.12"], [2.5, 0, "2"], [0.5625, 0, "1"], [-0.8125, 3, "-0.812"],
  ];
  for (const [x, places, python] of cases) assert.equal(fixedAsPython(/** @type {number} */ (x), /** @type {number} */ (places)), python, `${x} to ${places}`);
  assert.equal((0.5625).toFixed(3), "0.563", "the difference this module exists for");
});

test("values that are not exact ties round as toFixed does", () => {
  for (const [x, places, python] of [[1 / 3, 3, "0.333"], [0.6309297535714575, 3, "0.631"], [0.0005, 3, "0.001"], [0.0015, 3, "0.002"], [1, 3, "1.000"], [0, 3, "0.000"]]) {
    assert.equal(fixedAsPython(/** @type {number} */ (x), /** @type {number} */ (places)), python, `${x}`);
  }
});
