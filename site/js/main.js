// Entry point: reads the boot data, restores the policy from the URL, starts the
// engine worker and keeps every view in step with the controls.

import { EngineClient } from "./engine-client.js";
import { defaultPolicy, policyFields, readQuery, samePolicy, writeQuery } from "./state.js";
import { readControls, setPending, showChosen, showNotices, showResult, showStatus, writeControls } from "./view.js";

/** @typedef {import("./types.js").Result} Result */
/** @typedef {import("./types.js").Policy} Policy */

/**
 * @typedef {object} Boot  written by build.py into <script type="application/json" id="boot">
 * @property {any} store
 * @property {import("./state.js").Limits} limits
 * @property {Result} result  the default configuration, computed at build time
 * @property {{pyodideModule: string, indexURL: string, stdLibURL: string, wheelURL: string, abiVersion: string}} runtime  paths relative to the page
 */

const boot = /** @type {Boot} */ (JSON.parse(/** @type {HTMLElement} */ (document.getElementById("boot")).textContent ?? "{}"));
const fields = policyFields(boot.store, boot.limits);
const tenantLabels = Object.fromEntries(boot.store.tenants.map((/** @type {any} */ t) => [t.id, t.label]));
// The request body is the same store every time; serialise it once.
const storeText = JSON.stringify(boot.store);

const fromLink = readQuery(location.search, fields);
let policy = fromLink.policy;
/** @type {Result} */
let shown = boot.result;
let chosenId = defaultChoice(shown);
let sequence = 0;

/** The record whose score is explained first: the top of the tray, else of the ranking. */
function defaultChoice(/** @type {Result} */ result) {
  return result.selected[0] ?? result.ranked[0] ?? result.records[0].id;
}

const runtime = Object.fromEntries(
  Object.entries(boot.runtime).map(([key, value]) => [key, key === "abiVersion" ? value : new URL(value, document.baseURI).href]),
);
const engine = new EngineClient(/** @type {any} */ (runtime), (status) => {
  showStatus(status);
  if (status.state === "ready") recompute();
  if (status.state === "failed") setPending(!samePolicy(policy, shown.policy, fields));
});

/** Ask the worker for the current policy's result; only the latest answer is shown. */
async function recompute() {
  const mine = ++sequence;
  setPending(!samePolicy(policy, shown.policy, fields));
  const request = `{"store":${storeText},"policy":${JSON.stringify(policy)}}`;
  let answer;
  try {
    answer = await engine.run(request);
  } catch {
    return; // the status line already says why Python is not available
  }
  if (mine !== sequence) return;
  if (answer.error) {
    showNotices([`The engine refused this configuration: ${answer.error.message}`]);
    return;
  }
  shown = answer;
  if (!shown.records.some((r) => r.id === chosenId)) chosenId = defaultChoice(shown);
  showResult(shown, { tenantLabels, chosenId });
  markShown();
  setPending(false);
}

/** Which policy the views show, as a query string: for tests and for the pending state. */
function markShown() {
  /** @type {HTMLElement} */ (document.getElementById("experiment")).dataset.shownPolicy = writeQuery(shown.policy, fields).slice(1);
}

function onControlsChanged() {
  const { policy: next, errors } = readControls(fields, policy);
  if (errors || samePolicy(next, policy, fields)) return;
  policy = next;
  history.replaceState(history.state, "", writeQuery(policy, fields) + location.hash);
  recompute();
}

function start() {
  writeControls(policy, fields);
  markShown();
  showNotices(fromLink.notices);
  if (!samePolicy(policy, defaultPolicy(fields), fields)) setPending(true);
  const form = /** @type {HTMLFormElement} */ (document.getElementById("policy-form"));
  form.addEventListener("input", onControlsChanged);
  form.addEventListener("change", onControlsChanged);
  form.addEventListener("submit", (event) => event.preventDefault());

  document.getElementById("records-body")?.addEventListener("click", (event) => {
    const button = /** @type {HTMLElement} */ (event.target).closest("[data-choose]");
    if (!(button instanceof HTMLElement) || !button.dataset.choose) return;
    chosenId = button.dataset.choose;
    showChosen(shown, chosenId);
  });
  document.getElementById("engine-retry")?.addEventListener("click", () => engine.retry());
  document.getElementById("copy-link")?.addEventListener("click", copyLink);
  engine.start();
}

async function copyLink() {
  const status = /** @type {HTMLElement} */ (document.getElementById("copy-link-status"));
  const link = new URL(writeQuery(policy, fields), location.href).href;
  try {
    await navigator.clipboard.writeText(link);
    status.textContent = "Link copied: it opens this exact configuration.";
  } catch {
    // Clipboard access can be refused (an iframe without permission, an old browser):
    // show the link so it can be copied by hand.
    status.textContent = `Copy this link: ${link}`;
  }
}

start();
