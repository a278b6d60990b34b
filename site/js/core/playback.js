// Inspection timing, pure: elapsed seconds and stages from a start, a speed and pauses.
//
// Inspection timing, pure: elapsed inspection seconds from a start, a speed and
// pause/resume events. No clock is read here; every function takes `now` (ms), so
// tests can give exact numbers and the player decides where time comes from.

export const STAGE_SECONDS = 10;
export const TOTAL_SECONDS = 30;
export const SPEEDS = [0.25, 0.5, 1, 2];

/**
 * @typedef {object} Timing
 * @property {number} speed      inspection seconds per wall-clock second
 * @property {number} base       inspection seconds settled so far
 * @property {number | null} since  wall-clock ms when playing resumed, null while paused
 */

/** @param {number} [speed] @returns {Timing} */
export function stopped(speed = 1) {
  return { speed, base: 0, since: null };
}

/** A finished inspection: everything revealed, paused (the page opens like this). */
export function finished(speed = 1) {
  return { speed, base: TOTAL_SECONDS, since: null };
}

/** @param {Timing} t @param {number} now */
export function elapsed(t, now) {
  const running = t.since === null ? 0 : ((now - t.since) / 1000) * t.speed;
  return Math.min(TOTAL_SECONDS, t.base + Math.max(0, running));
}

/** @param {Timing} t */
export function isPlaying(t) {
  return t.since !== null;
}

/** Stage 1 from 0 s, 2 from 10 s, 3 from 20 s, 4 (the tray) at 30 s. @param {number} seconds */
export function stageAt(seconds) {
  return Math.min(4, Math.floor(seconds / STAGE_SECONDS) + 1);
}

/** Play; at the end, play again from the start. @param {Timing} t @param {number} now */
export function play(t, now) {
  if (isPlaying(t)) return t;
  const base = elapsed(t, now) >= TOTAL_SECONDS ? 0 : t.base;
  return { ...t, base, since: now };
}

/** Pause: settle the elapsed time and freeze it. @param {Timing} t @param {number} now */
export function pause(t, now) {
  return { ...t, base: elapsed(t, now), since: null };
}

/** Change speed, settling the time already played at the old pace first. */
export function setSpeed(/** @type {Timing} */ t, /** @type {number} */ speed, /** @type {number} */ now) {
  return { speed, base: elapsed(t, now), since: isPlaying(t) ? now : null };
}

/** Jump to a time (clamped), keeping whether it plays. */
export function seek(/** @type {Timing} */ t, /** @type {number} */ seconds, /** @type {number} */ now) {
  const base = Math.min(TOTAL_SECONDS, Math.max(0, seconds));
  return { ...t, base, since: isPlaying(t) ? now : null };
}

/** Next stage: pause at the next 10-second boundary. @param {Timing} t @param {number} now */
export function nextStage(t, now) {
  const current = elapsed(t, now);
  const boundary = Math.min(TOTAL_SECONDS, (Math.floor(current / STAGE_SECONDS) + 1) * STAGE_SECONDS);
  return { ...t, base: boundary, since: null };
}

/** Restart: clear playback to 0 s, paused, keeping the speed. @param {Timing} t */
export function restart(t) {
  return { ...t, base: 0, since: null };
}

/** Playing and reached the end: stop there. @param {Timing} t @param {number} now */
export function settleEnd(t, now) {
  return isPlaying(t) && elapsed(t, now) >= TOTAL_SECONDS ? pause(t, now) : t;
}

/**
 * The time the page shows: whole tenths of a second, cut rather than rounded, so the
 * clock reads 10.0 exactly when stage 2 begins. The small allowance keeps a sum such as
 * 0.1 + 0.2 on the tenth it stands for.
 * @param {number} seconds
 */
export function shownSeconds(seconds) {
  return Math.floor(seconds * 10 + 1e-9) / 10;
}

/** Wall-clock ms until the shown time next changes; Infinity while paused. @param {Timing} t @param {number} now */
export function msUntilShownChanges(t, now) {
  if (!isPlaying(t)) return Infinity;
  const seconds = elapsed(t, now);
  const next = Math.min(TOTAL_SECONDS, shownSeconds(seconds) + 0.1);
  return Math.max(0, ((next - seconds) * 1000) / t.speed);
}
