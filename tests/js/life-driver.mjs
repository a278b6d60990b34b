// What the tests of engine-life.js share: driving its transition function event by event,
// picking effects out by type, and a ready engine with a store open. Not a test file:
// node --test runs only names such as *.test.mjs.
import { initialLife, life } from "../../site/js/python/engine-life.js";

/** @typedef {import("../../site/js/python/engine-life.js").Life} Life */
/** @typedef {import("../../site/js/python/engine-life.js").Event} Event */
/** @typedef {import("../../site/js/python/engine-life.js").Effect} Effect */

export const STORE_A = '{"records":[{"id":"A1"}]}';
export const READY = { type: "ready", seconds: 1.25, python: "3.14.0", engine: "0.1.0", boot: "fresh" };

/**
 * Feed events in turn; the last state and every effect, in order.
 * @param {Event[]} events @param {Life} [from]
 */
export function drive(events, from = initialLife()) {
  let state = from;
  /** @type {Effect[]} */
  const effects = [];
  for (const event of events) {
    const next = life(state, event);
    state = next.state;
    effects.push(...next.effects);
  }
  return { state, effects };
}

/** @param {Effect[]} effects @param {string} type */
export const only = (effects, type) => effects.filter((e) => e.type === type);
/** @param {Effect[]} effects */
export const posted = (effects) => only(effects, "post").map((e) => /** @type {any} */ (e).message);

/** A ready engine with store A in force (opened as request 1), at time `now`. */
export function readyWithStore(now = 1000) {
  return drive([
    { type: "start" },
    { type: "boot" },
    { type: "request", id: 1, kind: "open", body: STORE_A, kept: "A", now: 0 },
    { ...READY, now },
    { type: "reply", id: 1, response: '{"records":1,"words":[3],"recency":[1]}', now },
  ]).state;
}
