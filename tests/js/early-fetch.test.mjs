// early-fetch.js: Pyodide's requests for the runtime files get the downloads started
// early, the first request once and every later one a fresh download; anything else
// passes through; failures reach whoever asks.
import assert from "node:assert/strict";
import { test } from "node:test";

import { earlyFetch, fetchOk } from "../../site/js/python/early-fetch.js";
import { LoadError } from "../../site/js/python/load-failure.js";

const URL_A = "https://example.test/pyodide/stdlib.zip";

/** A fake fetch that records its calls and answers each with a numbered response. */
function fakeFetch(status = 200) {
  /** @type {{url: string, init: RequestInit | undefined}[]} */
  const calls = [];
  const fetcher = /** @type {typeof fetch} */ (
    async (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      calls.push({ url, init });
      return new Response(`body ${calls.length} of ${url}`, { status });
    }
  );
  return { calls, fetcher };
}

test("the first request gets the early response, started before anyone asked", async () => {
  const { calls, fetcher } = fakeFetch();
  const early = earlyFetch(fetcher);
  /** @type {boolean[]} */
  const starts = [];
  early.answerEarly(URL_A, (first) => {
    starts.push(first);
    return fetcher(URL_A);
  });
  assert.deepEqual(starts, [true], "started at once, as the first");
  assert.equal(calls.length, 1);
  const response = await early.fetch(URL_A);
  assert.equal(await response.text(), `body 1 of ${URL_A}`);
  assert.equal(calls.length, 1, "no second download for the first request");
});

test("a second request gets a new response, not the one already read", async () => {
  const { fetcher } = fakeFetch();
  const early = earlyFetch(fetcher);
  /** @type {boolean[]} */
  const starts = [];
  early.answerEarly(URL_A, (first) => {
    starts.push(first);
    return fetcher(URL_A);
  });
  const one = await early.fetch(URL_A);
  const two = await early.fetch(new Request(URL_A));
  const three = await early.fetch(URL_A);
  assert.notEqual(one, two);
  assert.notEqual(two, three);
  assert.deepEqual(starts, [true, false, false]);
  assert.deepEqual(await Promise.all([one.text(), two.text(), three.text()]), [1, 2, 3].map((n) => `body ${n} of ${URL_A}`));
});

test("unknown URLs and requests with integrity pass through to the plain fetch unchanged", async () => {
  const { calls, fetcher } = fakeFetch();
  const early = earlyFetch(fetcher);
  early.answerEarly(URL_A, () => Promise.resolve(new Response("early")));
  const init = { integrity: "sha384-abc" };
  assert.equal(await (await early.fetch(URL_A, init)).text(), `body 1 of ${URL_A}`);
  assert.equal(calls[0].init, init);
  const other = "https://example.test/pyodide/other.js";
  assert.equal(await (await early.fetch(other, { cache: "reload" })).text(), `body 2 of ${other}`);
  assert.deepEqual(calls[1], { url: other, init: { cache: "reload" } });
  assert.equal(await (await early.fetch(URL_A)).text(), "early", "the early answer was kept for a plain request");
});

test("fetchOk asks with the given request options; an early answer made with it serves every request", async () => {
  const { calls, fetcher } = fakeFetch();
  const early = earlyFetch(fetcher);
  const wheel = "https://example.test/wheels/engine.whl";
  early.answerEarly(wheel, () => fetchOk(wheel, "the engine wheel", { cache: "reload" }, fetcher));
  assert.deepEqual(calls.map((c) => [c.url, c.init]), [[wheel, { cache: "reload" }]]);
  assert.equal(await (await early.fetch(wheel)).text(), `body 1 of ${wheel}`);
  assert.equal(await (await early.fetch(wheel)).text(), `body 2 of ${wheel}`);
});

test("a failed download reaches the requester as a LoadError naming the file and why: the network's error, or the HTTP status", async () => {
  const broken = /** @type {typeof fetch} */ (async () => Promise.reject(new TypeError("network down")));
  const early = earlyFetch(broken);
  early.answerEarly(URL_A, () => fetchOk(URL_A, "the stdlib", {}, broken));
  const named = { name: "LoadError", message: "the stdlib failed to load (network down)" };
  await assert.rejects(early.fetch(URL_A), (error) => error instanceof LoadError && error.message === named.message);
  await assert.rejects(early.fetch(URL_A), named, "later requests fail too");

  const { fetcher } = fakeFetch(404);
  const missing = earlyFetch(fetcher);
  missing.answerEarly(URL_A, () => fetchOk(URL_A, "the stdlib", {}, fetcher));
  await assert.rejects(missing.fetch(URL_A), { name: "LoadError", message: "the stdlib failed to load (HTTP 404)" });
});
