// What the page says, where the result is, while the views do not show what the controls
// ask for: an answer still on its way, or settings the page cannot compute, with why.
//
// Pure and produced from the state: the settings named are the ones that differ between
// the result on screen and the controls, so a sentence never names a configuration that
// is not the one shown.

import { SCORERS, scorerRow } from "./scorers.js";

/** @typedef {import("./tables.js").Policy} Policy */
/** @typedef {import("./state.js").Field} Field */

/**
 * Settings that cannot be computed here: the policy asked for, the reason given, and what
 * was missing: the embedding's vectors, Python itself, or the engine's consent (it
 * refused the settings as invalid).
 * @typedef {{policy: Policy, reason: string, cause: "vectors" | "python" | "engine"}} Refusal
 */

/** The most settings a sentence lists before saying how many more differ. */
const LISTED = 3;

/** A setting's value as its control shows it. @param {Field} field @param {unknown} value */
function shownValue(field, value) {
  if (field.kind === "bool") return value ? "on" : "off";
  if (field.kind === "text") return value === "" ? "none" : `“${value}”`;
  const option = field.options?.find((o) => o.value === value);
  return option ? option.label : String(value);
}

/**
 * The settings of the result on screen that differ from the controls', each with its label
 * and the value shown: "Scorer: TF-IDF cosine (not Static embedding)".
 * @param {Policy} shown @param {Policy} asked @param {Field[]} fields @returns {string[]}
 */
export function differences(shown, asked, fields) {
  return fields
    .filter((f) => shown[f.name] !== asked[f.name])
    .map((f) => `${f.label}: ${shownValue(f, shown[f.name])} (not ${shownValue(f, asked[f.name])})`);
}

/** The differences as one clause. @param {string[]} listed */
function clause(listed) {
  const named = listed.slice(0, LISTED).join("; ");
  const more = listed.length - LISTED;
  return more > 0 ? `${named}; and ${more} more setting${more === 1 ? "" : "s"}` : named;
}

/**
 * Whose figures the views hold while they are pending: another store's (the site's own, as
 * built, before Python has opened the learner's), or this store's under other settings.
 * @param {{store: any, shown: import("./shapes.js").Result, policy: Policy, fields: Field[]}} state
 */
function figuresShown({ store, shown, policy, fields }) {
  const ids = store.records;
  const sameStore = shown.records.length === ids.length && shown.records.every((r, i) => r.id === ids[i].id);
  if (!sameStore) return "the figures shown are the site's own store's, not the store you opened";
  const listed = differences(shown.policy, policy, fields);
  return listed.length ? `the figures shown are for ${clause(listed)}` : "";
}

/**
 * The note beside views that show an older result than the controls ask for, as the
 * engine's phase explains it.
 * @param {{engine: string, store: any, shown: import("./shapes.js").Result, policy: Policy, fields: Field[]}} state
 */
export function pendingText(state) {
  const figures = figuresShown(state);
  const tail = figures ? `: ${figures}.` : ".";
  if (state.engine === "failed") return `Python is not running, so these settings cannot be computed until Retry (above) starts it${tail}`;
  if (state.engine === "ready") return `Computing these settings${tail}`;
  return `Waiting for Python to start and compute these settings${tail}`;
}

/**
 * Why the settings asked for cannot be computed, where the result is: the page went back
 * to the settings it shows, and says which, and what would bring the others.
 * @param {Refusal} refused @param {Policy} shown @param {string | null} vectorsFailure  why the vectors failed to load, as their status says it
 */
export function refusalText(refused, shown, vectorsFailure) {
  const asked = scorerRow(refused.policy.scorer).label;
  const kept = scorerRow(shown.scorer).label;
  const back = `The controls, the figures, the address and Copy link are back on the settings shown, scored by ${kept}.`;
  if (refused.cause === "vectors") {
    const why = vectorsFailure ? `its vectors could not be loaded (${vectorsFailure})` : "its vectors are not loaded";
    const without = Object.values(SCORERS).filter((row) => !row.vectors).map((row) => row.label);
    return `${asked} cannot be computed here: ${why}. ${back} ${without.join(" and ")} work without the vectors.`;
  }
  if (refused.cause === "python") return `These settings cannot be computed: ${refused.reason}. ${back} Start Python again to compute them.`;
  return `These settings cannot be computed: the engine refused them (${refused.reason}). ${back}`;
}
