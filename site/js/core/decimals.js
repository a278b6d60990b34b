// Numbers written to a fixed number of places as Python writes them, so the page's figures
// read as the command line's.
//
// Python's format(x, ".3f") rounds the exact value of the float, an exact tie to the even
// digit; toFixed rounds an exact tie away from zero. Means of a few questions land on ties
// often (0.5625 is 9/16): there toFixed writes 0.563 where the command line writes 0.562.

// Digits past the kept ones that decide a tie: a float in the range of a measure differs
// from a tie, when it does, well within this many places.
const TIE_DIGITS = 25;

/**
 * x to `places` decimals, as Python's format(x, f".{places}f").
 * @param {number} x @param {number} places
 */
export function fixedAsPython(x, places) {
  const rounded = x.toFixed(places);
  if (!Number.isFinite(x)) return rounded;
  const long = Math.abs(x).toFixed(places + TIE_DIGITS);
  const cut = long.length - TIE_DIGITS;
  if (!/^50*$/.test(long.slice(cut))) return rounded;
  // An exact tie: toFixed went away from zero, to the even digit only when the kept one is odd.
  const kept = long.slice(0, cut).replace(/\.$/, "");
  if (Number(kept.at(-1)) % 2 === 1) return rounded;
  return `${x < 0 ? "-" : ""}${kept}`;
}
