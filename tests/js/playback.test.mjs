// Exact-number tests of the pure inspection timing (node --test).
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  elapsed, finished, isPlaying, msUntilShownChanges, nextStage, pause, play, restart, seek, setSpeed, settleEnd, shownSeconds,
  stageAt, stopped,
} from "../../site/js/core/playback.js";

test("at 1x, 30 inspection seconds take 30 s and stages change at 10, 20 and 30 s", () => {
  const t = play(stopped(1), 1000);
  assert.equal(elapsed(t, 1000), 0);
  assert.equal(elapsed(t, 10_999), 9.999);
  assert.equal(stageAt(elapsed(t, 10_999)), 1);
  assert.equal(stageAt(elapsed(t, 11_000)), 2);
  assert.equal(stageAt(elapsed(t, 21_000)), 3);
  assert.equal(stageAt(elapsed(t, 30_999)), 3);
  assert.equal(stageAt(elapsed(t, 31_000)), 4);
  assert.equal(elapsed(t, 99_000), 30); // never past the end
});

test("pause settles elapsed time and freezes it", () => {
  const paused = pause(play(stopped(1), 0), 12_500);
  assert.equal(paused.base, 12.5);
  assert.equal(isPlaying(paused), false);
  assert.equal(elapsed(paused, 50_000), 12.5);
  const resumed = play(paused, 60_000);
  assert.equal(elapsed(resumed, 62_000), 14.5);
});

test("speeds scale inspection time: 0.25x, 0.5x and 2x", () => {
  assert.equal(elapsed(play(stopped(0.25), 0), 8000), 2);
  assert.equal(elapsed(play(stopped(0.5), 0), 8000), 4);
  assert.equal(elapsed(play(stopped(2), 0), 8000), 16);
  assert.equal(stageAt(elapsed(play(stopped(2), 0), 15_000)), 4);
});

test("changing speed settles time at the old pace first", () => {
  let t = play(stopped(1), 0);
  t = setSpeed(t, 2, 4000); // 4 s played at 1x
  assert.equal(t.base, 4);
  assert.equal(elapsed(t, 7000), 10); // then 3 s at 2x
  const paused = setSpeed(pause(t, 7000), 0.5, 9000);
  assert.equal(elapsed(paused, 20_000), 10);
  assert.equal(isPlaying(paused), false);
});

test("next stage pauses at the next 10-second boundary", () => {
  const t = play(stopped(1), 0);
  const a = nextStage(t, 3000);
  assert.deepEqual([a.base, isPlaying(a)], [10, false]);
  const b = nextStage(a, 9000); // exactly on a boundary: go to the following one
  assert.equal(b.base, 20);
  assert.equal(nextStage(nextStage(b, 0), 0).base, 30); // capped at the end
});

test("restart clears playback and keeps the speed", () => {
  const t = restart(play(stopped(2), 0));
  assert.deepEqual(t, { speed: 2, base: 0, since: null });
});

test("play at the end starts again from 0; a finished inspection shows stage 4", () => {
  assert.equal(stageAt(elapsed(finished(), 0)), 4);
  const t = play(finished(1), 5000);
  assert.equal(elapsed(t, 5000), 0);
  assert.equal(elapsed(t, 7000), 2);
});

test("seek jumps and keeps the play state; settleEnd stops at 30 s", () => {
  const t = seek(play(stopped(1), 0), 25, 1000);
  assert.equal(elapsed(t, 3000), 27);
  assert.equal(isPlaying(t), true);
  assert.equal(seek(stopped(), -4, 0).base, 0);
  const end = settleEnd(t, 9000);
  assert.deepEqual([end.base, isPlaying(end)], [30, false]);
  assert.equal(settleEnd(t, 2000), t);
});

test("the shown time is cut to tenths, and changes exactly when a stage begins", () => {
  assert.equal(shownSeconds(9.99), 9.9);
  assert.equal(shownSeconds(0.1 + 0.2), 0.3); // 0.30000000000000004
  assert.equal(shownSeconds(0.7 * 3), 2.1); // 2.0999999999999996
  assert.equal(stageAt(shownSeconds(9.999)), 1);
  assert.equal(stageAt(shownSeconds(10)), 2);
  assert.equal(shownSeconds(30), 30);
});

test("the player wakes when the shown time next changes, at every speed, and never while paused", () => {
  const t = play(stopped(1), 1000);
  assert.equal(msUntilShownChanges(t, 1000), 100);
  assert.ok(Math.abs(msUntilShownChanges(t, 1040) - 60) < 1e-6);
  assert.equal(msUntilShownChanges(play(stopped(0.25), 0), 0), 400);
  assert.equal(msUntilShownChanges(play(stopped(2), 0), 0), 50);
  // At a tenth it waits for the next one, not zero: no wake-up spins.
  assert.ok(Math.abs(msUntilShownChanges(t, 1300) - 100) < 1e-6);
  // Near the end it wakes at the end, where settleEnd stops it.
  assert.ok(Math.abs(msUntilShownChanges(t, 30_950) - 50) < 1e-6);
  assert.equal(msUntilShownChanges(pause(t, 5000), 6000), Infinity);
});
