// Early answers to Pyodide's requests for its runtime files.
//
// Answers Pyodide's requests for its runtime files with downloads the worker started
// earlier. Pyodide fetches its WebAssembly module, the standard library and (through
// the worker) the engine wheel with its own fetch calls, deep inside loadPyodide; the
// worker wants those downloads under way while the page still sets itself up, long
// before loadPyodide runs. An HTTP cache cannot be relied on to join the two (some
// hosts, LMSs among them, forbid caching), so the requests are joined here instead.
//
// The contract, for a fetch made through earlyFetch(plainFetch).fetch:
//
// - A URL registered with answerEarly(url, start) has start(true) called at once; its
//   promise answers the first request for that URL, exactly once (a Response body can
//   be read only once). Every later request for the URL gets start(false), a new
//   response, so that a second loadPyodide (after a snapshot that could not be
//   restored) reads a whole file too. start's flag lets the first download do work
//   that is due only once (keeping a copy).
// - A request with an integrity option, or for any URL not registered, goes to
//   plainFetch unchanged: such a request asks for checks the early download skipped.
// - Failures are not caught here. A promise from start reaches the requester as it is,
//   rejection and all. Pyodide swallows a failed WebAssembly download and then waits
//   forever, and turns a missing standard library into an exit of its own, so the worker
//   tells the page of a failed download itself, when it fails (load-failure.js).
//
// No DOM and no worker globals: Node's tests drive it with a fake fetch.

import { LoadError } from "./load-failure.js";

/**
 * @param {typeof fetch} plainFetch  the fetch to pass requests on to, and to download with
 */
export function earlyFetch(plainFetch) {
  /** @type {Map<string, {first: Promise<Response> | null, again: () => Promise<Response>}>} */
  const early = new Map();

  /** The fetch to install as globalThis.fetch. @type {typeof globalThis.fetch} */
  const fetchEarly = (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const answer = early.get(url);
    if (!answer || init?.integrity) return plainFetch(input, init);
    const response = answer.first ?? answer.again();
    answer.first = null;
    return response;
  };

  /**
   * Answer requests for url: start(true) runs now and answers the first request,
   * start(false) runs for each later one.
   * @param {string} url @param {(first: boolean) => Promise<Response>} start
   */
  function answerEarly(url, start) {
    early.set(url, { first: start(true), again: () => start(false) });
  }

  return { fetch: fetchEarly, answerEarly };
}

/**
 * A response that is ok, or a LoadError naming what failed to load and why: the HTTP
 * status, or the network's error when no response came.
 * @param {string} url @param {string} what @param {RequestInit} init @param {typeof fetch} fetcher
 */
export async function fetchOk(url, what, init, fetcher) {
  /** @type {Response} */
  let response;
  try {
    response = await fetcher(url, init);
  } catch (error) {
    throw new LoadError(`${what} failed to load (${error instanceof Error ? error.message : error})`);
  }
  if (!response.ok) throw new LoadError(`${what} failed to load (HTTP ${response.status})`);
  return response;
}
