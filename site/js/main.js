// Entry point: reads the boot data, restores the policy from the URL, follows the
// engine worker (started by engine-start.js) and keeps every view, the playback and
// the experiment tools in step.

import { afterNextFrame, bootPython, engine } from "./engine-start.js";
import { html } from "./html.js";
import { checkPrediction, compare, observation, observationText, snapshot } from "./observations.js";
import { discardRecovered, download, exportMarkdown, loadNotebook, saveNotebook } from "./notes.js";
import { setUpFullscreen } from "./fullscreen.js";
import { announceNewVersion, registerOffline } from "./offline.js";
import { Player } from "./player.js";
import { PAGE_SIZE, renderComparison, renderVerdict } from "./render.js";
import { ScormReporter } from "./scorm.js";
import { SHARE_PARAMS, iframeSnippet, readShareOptions, shareParams } from "./share.js";
import { defaultPolicy, policyFields, readQuery, samePolicy, writeQuery } from "./state.js";
import { forgetStore, readStoreFile, rememberStore, rememberedStore } from "./store-file.js";
import {
  adoptPrerendered,
  place,
  readControls,
  setDisabled,
  setHidden,
  setPending,
  setText,
  showChosen,
  showNotices,
  showPredictionChoices,
  showResult,
  showStatus,
  showStore,
  writeControls,
} from "./view.js";

/** @typedef {import("./types.js").Result} Result */
/** @typedef {import("./types.js").Policy} Policy */

/**
 * @typedef {object} Boot  written by build.py into <script type="application/json" id="boot">
 * @property {any} store
 * @property {import("./state.js").Limits} limits
 * @property {Result} result  the default configuration, computed at build time
 * @property {string} buildId  a hash of every built file
 * @property {string[][]} storeLabels  [value, label] of the Memory store choices
 */

/** @param {string} id */
const byId = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

const boot = /** @type {Boot} */ (JSON.parse(byId("boot").textContent ?? "{}"));
// The active store: the site's own, or one the learner opened in this tab.
const opened = rememberedStore();
let store = opened ?? boot.store;
let fields = policyFields(store, boot.limits);
let tenantLabels = labelsOf(store);
// The request body is the same store every time; serialise it once per store.
let storeText = JSON.stringify(store);
let pageIndex = 0;

const fromLink = readQuery(location.search, fields, SHARE_PARAMS);
const sharing = readShareOptions(location.search, fields.map((f) => f.name));
const embedded = sharing.options.embed;
let policy = fromLink.policy;
/** @type {Result} */
let shown = boot.result;
let chosenId = defaultChoice(shown);
let sequence = 0;
/** @type {number | null} when the control change being answered happened */
let inputAt = null;
/** Set while the address still shows an older policy than the controls (see writeAddress). */
let addressBehind = false;
let predictionMade = false;

const loaded = loadNotebook();
const notebook = loaded.notebook;
let storageState = loaded.storage;
let recovered = loaded.recovered;

const scorm = new ScormReporter();
// Set when a guided step is applied: reaching its final stage completes an LMS activity.
let guideActive = false;
const player = new Player({
  onStage: (stage) => {
    showPrediction();
    if (stage === 4 && guideActive) scorm.complete();
  },
});

function labelsOf(/** @type {any} */ s) {
  return Object.fromEntries(s.tenants.map((/** @type {any} */ t) => [t.id, t.label]));
}

/** The record whose score is explained first: the top of the tray, else of the ranking. */
function defaultChoice(/** @type {Result} */ result) {
  return result.selected[0] ?? result.ranked[0] ?? result.records[0].id;
}

let offlineStarted = false;
/** @param {import("./engine-client.js").Status} status */
function onEngineStatus(status) {
  showStatus(status);
  if (status.state === "ready") {
    performance.mark("rw:engine-ready"); // User Timing, read by bench/ scripts
    recompute();
  }
  // Precache for offline use only once the runtime is in the HTTP cache, so the
  // service worker copies it instead of downloading it a second time.
  if (status.state !== "loading" && !offlineStarted) {
    offlineStarted = true;
    registerOffline(showOfflineStatus);
  }
}
function showOfflineStatus(/** @type {string} */ message) {
  byId("offline-status").textContent = message;
}

// ------------------------------------------------------------------ results

// A running engine answers within a frame or two. Marking the views as pending (an
// outline and a note on two large panels) costs a style and layout pass to set and
// another to clear, which would delay that very answer; so only an answer still
// missing after this long, or one that must wait for Python to start, is marked.
const PENDING_AFTER_MS = 150;
let pendingTimer = 0;
// Set by a policy change: the inspection replays once the new result is shown.
let replayOnAnswer = false;

/** Ask the worker for the current policy's result; only the latest answer is shown. */
async function recompute() {
  const mine = ++sequence;
  await showAnswer(mine);
  // Shown, refused or unanswerable: after a control change the address catches up now.
  if (mine === sequence && addressBehind) writeAddress();
}

/** Request `mine`: show its answer in every view, unless a newer request was made. */
async function showAnswer(/** @type {number} */ mine) {
  const asked = performance.now();
  clearTimeout(pendingTimer);
  if (samePolicy(policy, shown.policy, fields)) setPending(false);
  else if (engine.state !== "ready") setPending(true);
  else pendingTimer = window.setTimeout(() => mine === sequence && setPending(true), PENDING_AFTER_MS);
  const request = `{"store":${storeText},"policy":${JSON.stringify(policy)}}`;
  let answer;
  try {
    answer = await engine.run(request);
  } catch {
    return; // the status line already says why Python is not available
  }
  if (mine !== sequence) return;
  clearTimeout(pendingTimer);
  if (answer.error) {
    setPending(true); // the views still show the last result that could be computed
    showNotices([`The engine refused this configuration: ${answer.error.message}`]);
    return;
  }
  shown = answer;
  if (!shown.records.some((r) => r.id === chosenId)) chosenId = defaultChoice(shown);
  showResult(shown, { tenantLabels, chosenId, page: pageIndex });
  markShown();
  setPending(false);
  if (replayOnAnswer) {
    replayOnAnswer = false;
    player.restartForNewResult();
  }
  showBaseline();
  showPrediction();
  // From the input (or Python becoming ready) to updated views, for bench/ scripts.
  performance.measure("rw:update", { start: inputAt ?? asked });
  inputAt = null;
}

/**
 * Which policy the views show, as a query string, beside the one asked for last
 * (data-asked-policy, set by applyPolicy): a test waits for the two to agree. Neither
 * attribute is styled, so writing them costs no style or layout pass.
 */
function markShown() {
  const query = writeQuery(shown.policy, fields).slice(1);
  const experiment = byId("experiment");
  if (experiment.dataset.shownPolicy !== query) experiment.dataset.shownPolicy = query;
}

/** A new policy from the controls or a guided step: result, inspection, link. */
function applyPolicy(/** @type {Policy} */ next, /** @type {number} */ at) {
  policy = next;
  inputAt = at;
  replayOnAnswer = true;
  addressBehind = true;
  byId("experiment").dataset.askedPolicy = writeQuery(policy, fields).slice(1);
  recompute();
  // A running engine answers within milliseconds, and the address follows its answer
  // (see writeAddress); otherwise the link is written now.
  if (engine.state !== "ready") writeAddress();
  refreshShare();
}

/**
 * Write the current policy into the address, keeping the instructor's sharing options
 * (hidden controls, embed…). history.replaceState took 1.4 ms of the main thread
 * (median; 4 ms at p90, measured), and the worker's answer waited behind it; so after
 * a control change it runs once the answer is shown, not before.
 */
function writeAddress() {
  addressBehind = false;
  history.replaceState(history.state, "", linkToCurrent(shareParams(sharing.options)));
}

function onControlsChanged(/** @type {Event} */ event) {
  const { policy: next, errors } = readControls(fields, policy);
  if (errors || samePolicy(next, policy, fields)) return;
  guideActive = false;
  applyPolicy(next, event.timeStamp);
}

/** @param {Record<string, string>} [extra] */
function linkToCurrent(extra = {}) {
  return new URL(writeQuery(policy, fields, extra), location.href).href;
}

/** Copy text, or leave it selected with a hint where the clipboard is refused. */
async function copyText(/** @type {string} */ text, /** @type {HTMLElement} */ status, /** @type {string} */ done) {
  try {
    await navigator.clipboard.writeText(text);
    status.textContent = done;
  } catch {
    status.textContent = "The browser refused clipboard access here: select the text and copy it yourself.";
  }
}

async function copyLink() {
  const status = byId("copy-link-status");
  const link = linkToCurrent();
  try {
    await navigator.clipboard.writeText(link);
    status.textContent = "Link copied: it opens this exact configuration.";
  } catch {
    // Clipboard access can be refused (an iframe without permission, an old browser):
    // show the link so it can be copied by hand.
    status.textContent = `Copy this link: ${link}`;
  }
}

// ------------------------------------------------------------------ sharing and embedding

/** The options an instructor chose in the share panel. */
function panelOptions() {
  const stage = /** @type {HTMLSelectElement} */ (byId("share-stage")).value;
  return {
    stage: stage ? Number(stage) : null,
    hide: [...document.querySelectorAll('input[name="share-hide"]:checked')].map((i) => /** @type {HTMLInputElement} */ (i).value),
    hideExplanations: /** @type {HTMLInputElement} */ (byId("share-explain")).checked,
    embed: false,
  };
}

function refreshShare() {
  // Written only while the panel is open (and when it opens): setting a text field's
  // value makes Chromium lay the page out, on every control change otherwise.
  if (!(/** @type {HTMLDetailsElement} */ (byId("share")).open)) return;
  const options = panelOptions();
  /** @type {HTMLInputElement} */ (byId("share-link")).value = linkToCurrent(shareParams(options));
  const src = linkToCurrent(shareParams({ ...options, embed: true }));
  /** @type {HTMLTextAreaElement} */ (byId("embed-snippet")).value = iframeSnippet(src, `Retrieval Workbench: ${store.title}`);
}

/** Apply the link's sharing options: hidden controls and explanations, embedding. */
function setUpSharing() {
  const { options } = sharing;
  for (const name of options.hide) {
    const element = /** @type {HTMLFormElement} */ (byId("policy-form")).elements.namedItem(name);
    /** @type {HTMLElement | null} */ (element instanceof HTMLElement ? element.closest(".control") : null)?.setAttribute("hidden", "");
  }
  byId("explanations").hidden = options.hideExplanations;
  byId("share").addEventListener("change", refreshShare);
  byId("share").addEventListener("toggle", refreshShare);
  byId("copy-share-link").addEventListener("click", () =>
    copyText(/** @type {HTMLInputElement} */ (byId("share-link")).value, byId("share-status"), "Share link copied."),
  );
  byId("copy-embed").addEventListener("click", () => {
    /** @type {HTMLTextAreaElement} */ (byId("embed-snippet")).select();
    copyText(/** @type {HTMLTextAreaElement} */ (byId("embed-snippet")).value, byId("share-status"), "Embed code copied.");
  });
  refreshShare();
  if (!embedded) return;
  document.documentElement.dataset.embed = "1";
  if (window.parent === window) return;
  // Tell the host page our height so it can size the iframe without a scrollbar.
  let last = 0;
  new ResizeObserver(() => {
    const height = Math.ceil(document.documentElement.scrollHeight);
    if (height === last) return;
    last = height;
    window.parent.postMessage({ type: "retrieval-workbench:resize", height }, "*");
  }).observe(document.body);
}

// ------------------------------------------------------------------ opening a store

/** @param {string} name @param {{path: string, message: string}[]} problems */
function showStoreProblems(name, problems) {
  const box = byId("store-problems");
  box.replaceChildren();
  box.hidden = problems.length === 0;
  if (!problems.length) return;
  const head = document.createElement("p");
  head.textContent = `${name} was not opened: ${problems.length} problem${problems.length === 1 ? "" : "s"}. The current store stays.`;
  const list = document.createElement("ul");
  for (const problem of problems) {
    const item = document.createElement("li");
    item.textContent = problem.path ? `${problem.path}: ${problem.message}` : problem.message;
    list.append(item);
  }
  box.append(head, list);
}

/** @param {File} file */
async function openStoreFile(file) {
  const hint = byId("store-hint");
  showStoreProblems(file.name, []);
  hint.textContent = `Checking ${file.name}…`;
  const read = await readStoreFile(file);
  if (!read.ok) {
    hint.textContent = "";
    showStoreProblems(file.name, read.problems);
    return;
  }
  let answer;
  try {
    answer = await engine.run(JSON.stringify({ store: read.data, policy: {} }));
  } catch {
    hint.textContent = "";
    showStoreProblems(file.name, [{ path: "", message: "Python is not running, so the file cannot be checked: retry starting it first" }]);
    return;
  }
  if (answer.error) {
    hint.textContent = "";
    showStoreProblems(file.name, answer.error.problems.length ? answer.error.problems : [{ path: "", message: answer.error.message }]);
    return;
  }
  const kept = rememberStore(read.text);
  switchStore(read.data, true);
  hint.textContent = `Opened ${file.name}: ${read.data.records.length} records, scored over this store's own vocabulary.${kept ? "" : " It is too large to keep across reloads."}`;
}

/** Make a store the active one: controls, lists and result follow it. */
function switchStore(/** @type {any} */ next, /** @type {boolean} */ custom) {
  store = next;
  fields = policyFields(store, boot.limits);
  tenantLabels = labelsOf(store);
  storeText = JSON.stringify(store);
  pageIndex = 0;
  predictionMade = false;
  policy = defaultPolicy(fields);
  showStore(store, policy, boot.storeLabels);
  showPredictionChoices(store.records, pageIndex, new Set());
  writeControls(policy, fields);
  byId("store-default").hidden = !custom;
  setPending(true);
  applyPolicy(policy, performance.now());
}

function setUpStoreOpening() {
  const input = /** @type {HTMLInputElement} */ (byId("store-file"));
  input.addEventListener("change", () => {
    const file = input.files?.[0];
    if (file) openStoreFile(file);
    input.value = "";
  });
  byId("store-default").addEventListener("click", () => {
    forgetStore();
    switchStore(boot.store, false);
    byId("store-hint").textContent = "Back to the default store.";
  });
  // Dropping a file anywhere opens it; the page never navigates away to show it.
  document.addEventListener("dragover", (event) => {
    if (!event.dataTransfer?.types.includes("Files")) return;
    event.preventDefault();
    document.documentElement.dataset.dropping = "1";
  });
  document.addEventListener("dragleave", () => delete document.documentElement.dataset.dropping);
  document.addEventListener("drop", (event) => {
    const file = event.dataTransfer?.files[0];
    if (!file) return;
    event.preventDefault();
    delete document.documentElement.dataset.dropping;
    openStoreFile(file);
  });
  byId("store-default").hidden = !opened;
  if (opened) {
    showStore(store, policy, boot.storeLabels);
    showPredictionChoices(store.records, pageIndex, new Set());
    setPending(true);
  }
}

function setUpPaging() {
  const turn = (/** @type {number} */ step) => {
    const pages = Math.ceil(shown.records.length / PAGE_SIZE);
    pageIndex = Math.min(pages - 1, Math.max(0, pageIndex + step));
    showResult(shown, { tenantLabels, chosenId, page: pageIndex });
    showPredictionChoices(store.records, pageIndex, new Set(predicted()));
  };
  byId("page-previous").addEventListener("click", () => turn(-1));
  byId("page-next").addEventListener("click", () => turn(1));
}

// ------------------------------------------------------------------ prediction

function predicted() {
  return [...document.querySelectorAll('#prediction-choices input[name="predict"]:checked')].map(
    (input) => /** @type {HTMLInputElement} */ (input).value,
  );
}

/** Guesses stay open before stage 4; at stage 4 they are locked and checked. */
function showPrediction() {
  const final = player.stage === 4;
  setDisabled(/** @type {HTMLFieldSetElement} */ (byId("prediction-choices")), final);
  if (!final) {
    place("prediction-verdict", predictionMade ? html`Prediction recorded; it is checked when the inspection reaches stage 4.` : "");
    return;
  }
  if (predictionMade) place("prediction-verdict", renderVerdict(checkPrediction(predicted(), shown), predicted()));
  else place("prediction-verdict", html`To predict, press Restart inspection, mark the records you expect, then Play.`);
}

// ------------------------------------------------------------------ baseline and notebook

function showBaseline() {
  setText(byId("baseline-capture"), notebook.baseline ? "Replace baseline" : "Capture baseline");
  setHidden(byId("baseline-clear"), !notebook.baseline);
  if (!notebook.baseline) {
    place("baseline-comparison", "");
    return;
  }
  const before = /** @type {import("./observations.js").Snapshot} */ (notebook.baseline);
  const after = snapshot(shown);
  place("baseline-comparison", renderComparison(before, after, compare(before, after)));
}

function persist() {
  const state = saveNotebook(notebook);
  if (state !== "ok") storageState = state;
  showStorageWarning();
}

function showStorageWarning() {
  const warning = byId("storage-warning");
  const messages = [];
  if (storageState === "blocked") {
    messages.push("This browser does not let the page save notes here, so your notes live only in this tab. Use Export notes to keep them.");
  } else if (storageState === "full") {
    messages.push("Browser storage is full, so your latest notes live only in this tab. Use Export notes to keep them.");
  }
  if (recovered) {
    messages.push("Saved notes from an earlier visit could not be read. They are kept, and Export notes includes them.");
  }
  warning.textContent = messages.join(" ");
  warning.hidden = messages.length === 0;
  if (recovered) {
    const discard = document.createElement("button");
    discard.type = "button";
    discard.className = "small";
    discard.textContent = "Discard the unreadable notes";
    discard.addEventListener("click", () => {
      discardRecovered();
      recovered = null;
      showStorageWarning();
    });
    warning.append(" ", discard);
  }
}

function addObservation() {
  const entry = observation(shown, linkToCurrent(), new Date());
  notebook.observations.push(entry);
  const area = /** @type {HTMLTextAreaElement} */ (byId("notebook"));
  area.value = `${area.value.trimEnd()}${area.value.trim() ? "\n\n" : ""}${observationText(entry)}\n`;
  notebook.text = area.value;
  persist();
  byId("notes-status").textContent = `Observation added: tray ${entry.tray.map((t) => t.id).join(", ") || "empty"}.`;
}

function exportNotes() {
  const when = new Date();
  const text = exportMarkdown(notebook, { title: store.title, when, link: linkToCurrent(), recovered });
  const stamp = when.toISOString().slice(0, 16).replace(/[-:]/g, "").replace("T", "-");
  download(`retrieval-workbench-notes-${stamp}.md`, text);
  byId("notes-status").textContent = "Notes exported as a Markdown file, with a JSON copy of the observations.";
}

// ------------------------------------------------------------------ guided experiments

function applyGuideStep(/** @type {HTMLElement} */ button, /** @type {number} */ at) {
  const [guideId, index] = (button.dataset.guideStep ?? "").split(":");
  const guide = (store.guides ?? []).find((/** @type {any} */ g) => g.id === guideId);
  const step = guide?.steps[Number(index)];
  if (!step) return;
  const next = /** @type {Policy} */ ({ ...defaultPolicy(fields), ...step.policy });
  writeControls(next, fields);
  for (const item of document.querySelectorAll("#guides li[data-step]")) item.removeAttribute("aria-current");
  button.closest("li")?.setAttribute("aria-current", "step");
  byId("stage-announcer").textContent = `Applied: ${step.title} Look for: ${step.look_for}`;
  if (!samePolicy(next, policy, fields)) applyPolicy(next, at);
  else player.restartForNewResult();
  guideActive = true;
  // On narrow screens the controls fill the first screens: show the playback instead.
  const target = matchMedia("(max-width: 900px)").matches ? ".playback" : "#experiment";
  document.querySelector(target)?.scrollIntoView({ block: "start", behavior: matchMedia("(prefers-reduced-motion: reduce)").matches ? "auto" : "smooth" });
}

// ------------------------------------------------------------------ start

function start() {
  // The views hold the build's result for the site's own store, as tools/prerender.mjs made it.
  adoptPrerendered(boot.result, { tenantLabels: labelsOf(boot.store), chosenId: defaultChoice(boot.result), page: 0 });
  writeControls(policy, fields);
  markShown();
  showNotices([...fromLink.notices, ...sharing.notices]);
  if (!samePolicy(policy, defaultPolicy(fields), fields)) setPending(true);
  const form = /** @type {HTMLFormElement} */ (byId("policy-form"));
  form.addEventListener("input", onControlsChanged);
  form.addEventListener("change", onControlsChanged);
  form.addEventListener("submit", (event) => event.preventDefault());

  byId("records-body").addEventListener("click", (event) => {
    const button = /** @type {HTMLElement} */ (event.target).closest("[data-choose]");
    if (!(button instanceof HTMLElement) || !button.dataset.choose) return;
    chosenId = button.dataset.choose;
    showChosen(shown, chosenId);
  });
  byId("engine-retry").addEventListener("click", () => engine.retry());
  byId("copy-link").addEventListener("click", copyLink);

  player.attach();
  player.attachShortcuts();
  byId("prediction-choices").addEventListener("change", () => {
    predictionMade = true;
    showPrediction();
  });
  byId("prediction-clear").addEventListener("click", () => {
    for (const input of document.querySelectorAll('#prediction-choices input[name="predict"]')) {
      /** @type {HTMLInputElement} */ (input).checked = false;
    }
    predictionMade = false;
    showPrediction();
  });

  const area = /** @type {HTMLTextAreaElement} */ (byId("notebook"));
  area.value = notebook.text;
  area.addEventListener("input", () => {
    notebook.text = area.value;
    persist();
  });
  byId("add-observation").addEventListener("click", addObservation);
  byId("export-notes").addEventListener("click", exportNotes);
  byId("baseline-capture").addEventListener("click", () => {
    notebook.baseline = snapshot(shown);
    persist();
    showBaseline();
  });
  byId("baseline-clear").addEventListener("click", () => {
    notebook.baseline = null;
    persist();
    showBaseline();
    byId("baseline-capture").focus();
  });
  showBaseline();
  showStorageWarning();
  setUpFullscreen(byId("experiment"), byId("fullscreen"), byId("fullscreen-note"));
  setUpSharing();
  setUpStoreOpening();
  setUpPaging();
  if (sharing.options.stage !== null) player.showStage(sharing.options.stage);
  announceNewVersion(boot.buildId, showOfflineStatus);
  byId("guides").addEventListener("click", (event) => {
    const button = /** @type {HTMLElement} */ (event.target).closest("[data-guide-step]");
    if (button instanceof HTMLElement) applyGuideStep(button, event.timeStamp);
  });
}

// This module runs in the task where the parser finishes, which also holds Chromium's
// own end-of-parsing work (traced: over a hundred style-and-layout checks across the
// form controls). The page sets itself up in a task of its own, so the two do not add
// up to one long task (measured: a second long task of 53-120 ms came in half of the
// cold loads before, in 1 of 20 after). A message channel rather than a timer: a
// background tab does not defer it, and a test's fake clock leaves it alone.
const setUp = new MessageChannel();
setUp.port1.onmessage = () => {
  start();
  // After start(): a status that arrived meanwhile is replayed now.
  engine.listen(onEngineStatus);
  // Python boots once the page has set itself up and drawn that, so its boot never
  // shares the processor with the page's own start-up work.
  afterNextFrame(bootPython);
};
setUp.port2.postMessage(null);
