// Numbers and ages as the views write them: one place, so every view rounds alike.

/** @param {number} x */
export const fixed3 = (x) => x.toFixed(3);
/** @param {number} x */
export const fixed4 = (x) => x.toFixed(4);
/** @param {number} x */
export const percent = (x) => `${Math.round(x * 100)}%`;

/** A whole number as it is, else to two places. @param {number} x */
export function formatNumber(x) {
  return Number.isInteger(x) ? String(x) : String(Math.round(x * 100) / 100);
}

/** @param {number} hours */
export function age(hours) {
  if (hours < 48) return `${formatNumber(hours)} h`;
  return `${formatNumber(hours)} h (${formatNumber(Math.round((hours / 24) * 10) / 10)} days)`;
}

/**
 * A record's age as of an earlier hour (0: now, its age as it is): the hours between its
 * writing and then, or that it was written after then.
 * @param {number} hours  its age now @param {number} asOf
 */
export function ageAt(hours, asOf) {
  if (asOf === 0) return age(hours);
  if (hours < asOf) return `written ${formatNumber(hours)} h ago, after the as-of`;
  return `${age(hours - asOf)} old as of ${formatNumber(asOf)} h ago`;
}

/** 1st, 2nd, 3rd, 4th… @param {number} n */
export function ordinal(n) {
  const suffix = n % 100 >= 11 && n % 100 <= 13 ? "th" : ({ 1: "st", 2: "nd", 3: "rd" })[n % 10] ?? "th";
  return `${n}${suffix}`;
}

/** A score to three places, "–" for a record a normalising blend gives none. @param {number | null} score */
export const scoreText = (score) => (score === null ? "–" : fixed3(score));
