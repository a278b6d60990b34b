// Measures written to a fixed number of places as the command line prints them
// (engine/evaluate.py printed): the float's shortest decimal digits, the ones Python's repr
// and JavaScript's String write alike, rounded half up, away from zero, as a learner
// rounds by hand. 0.5625 is 0.563; toFixed (and Python's format) round the float's exact
// binary value instead, and can land either side of a written tie: 2.675 is 2.67 there.

/**
 * x to `places` decimals, rounded half up on its shortest digits.
 * @param {number} x @param {number} places
 */
export function fixedHalfUp(x, places) {
  if (!Number.isFinite(x)) return String(x);
  // toExponential() with no argument writes as many digits as telling x apart needs: String's.
  const [mantissa, power] = Math.abs(x).toExponential().split("e");
  const digits = BigInt(mantissa.replace(".", ""));
  // x = digits × 10^scale
  const scale = Number(power) - (mantissa.length - (mantissa.includes(".") ? 2 : 1));
  let units;
  if (scale + places >= 0) {
    units = digits * 10n ** BigInt(scale + places);
  } else {
    const drop = 10n ** BigInt(-(scale + places));
    units = digits / drop + (2n * (digits % drop) >= drop ? 1n : 0n);
  }
  const text = units.toString().padStart(places + 1, "0");
  const whole = places ? `${text.slice(0, -places)}.${text.slice(-places)}` : text;
  return `${x < 0 || Object.is(x, -0) ? "-" : ""}${whole}`;
}
