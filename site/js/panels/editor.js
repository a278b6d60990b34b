// The store editor's panel: an instructor writes a store in the page, and every edit is
// checked and answered by the engine at once.
//
// Its state is its own (editor/editor-state.js's History); the page's core only hears of a
// draft the engine accepted, as an edited store in force (store-switched). While the draft
// is refused, the workbench keeps the last one accepted, and each of the engine's problems
// is shown at the field it names; each false guided claim at its step's Look for. The draft
// is kept in this browser as it is edited (editor/draft-keeper.js), exported, imported and
// shared in a link (store-file-io.js, store-link.js); a store link opens in the editor.

import { readStoreFile, rememberStore } from "../browser/store-file.js";
import { defaultPolicy } from "../core/state.js";
import { createDraftKeeper, indexedDBStorage, statusMessage } from "../editor/draft-keeper.js";
import { editorForm } from "../editor/editor-form.js";
import {
  addItem,
  capturedStep,
  commitTyping,
  edit,
  fieldOfProblem,
  moveItem,
  newItem,
  newStore,
  pathText,
  policyValueOf,
  redo,
  removeItem,
  replaceDraft,
  startHistory,
  undo,
  valueAt,
  valueOf,
} from "../editor/editor-state.js";
import { exportStore } from "../editor/store-file-io.js";
import { linkPayload, readStoreLink, storeLink, withoutStoreLink } from "../editor/store-link.js";
import { setDisabled, setHidden, setText } from "../views/view.js";
import { PART_PLACES } from "./guides.js";

/** @typedef {import("../editor/editor-state.js").History} History */
/** @typedef {{path: string, message: string}} Problem */
/** @typedef {import("../core/shapes.js").FalseClaim} Claim */

// Ids and labels change what other fields offer (a record's tenant, a step's record) and the
// legends that name items: leaving such a field draws the form again.
const REDRAWN_ON_CHANGE = /^(tenants\[\d+\]\.(id|label)|records\[\d+\]\.id|questions\[\d+\]\.id|guides\[\d+\]\.(id|title))$/;

/** @param {number} count @param {string} one */
const plural = (count, one) => `${count} ${one}${count === 1 ? "" : "s"}`;

/** @param {import("./context.js").Context} context @returns {import("./context.js").Handlers} */
export function setUp({ byId, dispatch, state, engine, started }) {
  const box = byId("editor");
  const form = /** @type {HTMLFormElement} */ (byId("editor-form"));
  const status = byId("editor-status");
  const summary = byId("editor-problems");
  const undoButton = /** @type {HTMLButtonElement} */ (byId("editor-undo"));
  const redoButton = /** @type {HTMLButtonElement} */ (byId("editor-redo"));
  const root = document.documentElement;

  const editor = {
    /** @type {History | null} */
    history: null,
    /** @type {Map<string, HTMLElement>} the form's fields by path */
    fields: new Map(),
    /** @type {Problem[]} the engine's problems with the draft last checked */
    problems: [],
    /** @type {Claim[]} the guided claims the engine found false in the draft last accepted */
    claims: [],
    /** While the engine checks a draft, only the latest one edited since waits. */
    checking: false,
    /** @type {{draft: any, at: number} | null} */
    waiting: null,
  };

  /** Mark each problem and false claim at its field, and list them at the top. */
  const showMarks = () => {
    for (const element of form.querySelectorAll("[aria-invalid]")) element.removeAttribute("aria-invalid");
    for (const error of form.querySelectorAll(".field-error")) {
      /** @type {HTMLElement} */ (error).hidden = true;
      error.textContent = "";
    }
    /** @type {Problem[]} shown at no field */
    const elsewhere = [];
    const claims = editor.claims.map((c) => ({ path: c.path, message: `“${c.named}”: ${c.shows}` }));
    const marks = [...editor.problems, ...claims];
    for (const mark of marks) {
      const at = fieldOfProblem(mark.path, (path) => editor.fields.has(path));
      const element = at ? editor.fields.get(at) : null;
      const error = element ? document.getElementById(`${element.id}-error`) : null;
      if (!element || !error) {
        elsewhere.push(mark);
        continue;
      }
      element.setAttribute("aria-invalid", "true");
      error.hidden = false;
      // The field's own path is implied; a deeper one (an item of a list) is named.
      const where = mark.path === at ? "" : `${mark.path.slice(at?.length ?? 0).replace(/^\./, "")}: `;
      error.textContent = error.textContent ? `${error.textContent} ${where}${mark.message}` : `${where}${mark.message}`;
    }
    summary.replaceChildren();
    setHidden(summary, elsewhere.length === 0);
    if (elsewhere.length) {
      const list = document.createElement("ul");
      for (const mark of elsewhere) {
        const item = document.createElement("li");
        item.textContent = mark.path ? `${mark.path}: ${mark.message}` : mark.message;
        list.append(item);
      }
      summary.append(list);
    }
  };

  /** @param {string} text */
  const say = (text) => setText(status, text);

  /** Draw the form for the draft, keeping the focus on the field (or button) it was on. */
  const draw = () => {
    if (!editor.history) return;
    const focused = /** @type {HTMLElement | null} */ (document.activeElement);
    const focusKey = focused && form.contains(focused) ? keyOf(focused) : null;
    // A step's settings the instructor unfolded stay unfolded.
    const unfolded = new Set([...form.querySelectorAll("details[open]")].map((d) => /** @type {HTMLElement} */ (d).dataset.detailsPath));
    form.innerHTML = String(editorForm(editor.history.present));
    for (const details of form.querySelectorAll("details")) {
      if (unfolded.has(/** @type {HTMLElement} */ (details).dataset.detailsPath)) details.setAttribute("open", "");
    }
    const fields = /** @type {HTMLElement[]} */ ([...form.querySelectorAll("[data-path]")]);
    editor.fields = new Map(fields.map((el) => [el.dataset.path ?? "", el]));
    const again = focusKey ? findByKey(focusKey) : null;
    again?.focus();
    // Drawn while the instructor is in a field: the selection and caret stay where they were.
    if (again && "setSelectionRange" in again && "selectionStart" in /** @type {any} */ (focused)) {
      const { selectionStart, selectionEnd } = /** @type {HTMLInputElement} */ (focused);
      try {
        /** @type {HTMLInputElement} */ (again).setSelectionRange(selectionStart, selectionEnd);
      } catch {
        // a control without a text selection
      }
    }
    showMarks();
    showHistory();
  };

  /** What names a field or button across drawings. @param {HTMLElement} element */
  const keyOf = (element) => {
    const { path, action, list, guide, index = "", step = "" } = element.dataset;
    if (path) return `path:${path}`;
    return action ? `action:${action}:${list ?? guide}:${index}:${step}` : null;
  };
  /** @param {string} key */
  const findByKey = (key) => {
    const all = /** @type {HTMLElement[]} */ ([...form.querySelectorAll("[data-path], [data-action]")]);
    return all.find((el) => keyOf(el) === key) ?? null;
  };

  const showHistory = () => {
    setDisabled(undoButton, !editor.history?.past.length);
    setDisabled(redoButton, !editor.history?.future.length);
  };

  /**
   * Check the draft with the engine; once it accepts it, the workbench answers from it. A
   * draft edited while one is being checked waits, and only the latest: typing never queues.
   * @param {number} at  when the edit happened: the answer's rw:update measure starts there
   */
  const check = async (at) => {
    if (!editor.history) return;
    const draft = editor.history.present;
    if (editor.checking) {
      editor.waiting = { draft, at };
      return;
    }
    editor.checking = true;
    try {
      await checkDraft(draft, at);
    } finally {
      editor.checking = false;
      const next = editor.waiting;
      editor.waiting = null;
      if (next && next.draft === editor.history?.present) check(next.at);
    }
  };

  /** @param {any} draft @param {number} at */
  const checkDraft = async (draft, at) => {
    const text = JSON.stringify(draft);
    let answer;
    try {
      answer = await engine.openStore(text, draft);
      // For bench/editor_answer.py: how much of an edit's rw:update the engine's open of the draft takes.
      performance.mark("rw:draft-opened");
    } catch {
      say("Python is not running, so this draft cannot be checked: start it again with Retry above.");
      return;
    }
    if (draft !== editor.history?.present) return;
    if ("error" in answer) {
      editor.problems = answer.error.problems.length ? answer.error.problems : [{ path: "", message: answer.error.message }];
      editor.claims = [];
      showMarks();
      say(`${plural(editor.problems.length, "problem")} in this draft: the workbench keeps the last valid draft until they are fixed.`);
      return;
    }
    editor.problems = [];
    dispatch({ type: "store-switched", store: draft, custom: true, opened: true, at, edited: true });
    // The tab's store in force, as a file's is: a reload reads the address's policy against it.
    rememberStore(text);
    const shown = `The workbench shows this draft (${plural(Array.isArray(draft.records) ? draft.records.length : 0, "record")}).`;
    /** @param {Claim[]} claims */
    const flag = (claims) => {
      editor.claims = claims;
      showMarks();
      say(claims.length ? `${shown} ${plural(claims.length, "guided claim")} the engine contradicts, flagged at its Look for.` : shown);
    };
    if (!Array.isArray(draft.guides) || draft.guides.length === 0) return flag([]);
    // Checked apart, so that the next edit's answer does not wait for the claims of this one.
    checkClaims(text).then((claims) => draft === editor.history?.present && flag(claims));
  };

  /**
   * The guided claims the engine finds false in an accepted draft (engine/claims.py, through
   * the engine client's checkStore). @param {string} text @returns {Promise<Claim[]>}
   */
  const checkClaims = async (text) => {
    try {
      const checked = await engine.checkStore(text);
      return "error" in checked ? [] : checked.claims;
    } catch {
      return []; // Python stopped: the status line says so, and the next edit checks again
    }
  };

  /**
   * Open the editor on a draft and check it: a new history (kept as a new draft in this
   * browser, base saying where it came from), or a kept draft's own.
   * @param {any} draft @param {number} at @param {{base: string, unread?: Problem[]} | {history: History}} from
   *   unread: why a link's store could not be read (the draft is then the store in force, not checked again)
   */
  const open = (draft, at, from) => {
    editor.history = "history" in from && from.history ? { ...from.history, present: draft, typing: null } : startHistory(draft);
    if ("base" in from) keeper.start({ store: draft, history: editor.history, base: from.base }).catch(() => {});
    editor.problems = [];
    editor.claims = [];
    setHidden(box, false);
    root.dataset.editing = "editor";
    draw();
    byId("editor-title").focus();
    const unread = "unread" in from ? from.unread ?? [] : [];
    if (!unread.length) return check(at);
    editor.problems = unread;
    showMarks();
    say("The link's store was not opened: the workbench keeps the store it had.");
  };

  /** A new history step: show it and check it. @param {History} next @param {number} at @param {boolean} redraw */
  const changed = (next, at, redraw) => {
    editor.history = next;
    keeper.save(next.present, next);
    if (redraw) draw();
    else showHistory();
    check(at);
  };

  byId("editor-edit").addEventListener("click", (event) => {
    if (editor.history && !box.hidden) return byId("editor-title").focus();
    open(state().store, event.timeStamp, { base: state().custom ? "file" : "default" });
  });
  byId("editor-new").addEventListener("click", (event) => open(newStore(), event.timeStamp, { base: "new" }));
  byId("editor-close").addEventListener("click", () => {
    setHidden(box, true);
    delete root.dataset.editing;
    byId("editor-edit").focus();
  });
  // On a phone the editor fills the screen: the workbench's answer is one tap away, and back.
  byId("editor-to-workbench").addEventListener("click", () => {
    root.dataset.editing = "workbench";
    byId("editor-back").focus();
  });
  byId("editor-back").addEventListener("click", () => {
    root.dataset.editing = "editor";
    byId("editor-title").focus();
  });
  undoButton.addEventListener("click", (event) => editor.history && changed(undo(editor.history), event.timeStamp, true));
  redoButton.addEventListener("click", (event) => editor.history && changed(redo(editor.history), event.timeStamp, true));
  box.addEventListener("keydown", (event) => {
    if (!editor.history || !(event.ctrlKey || event.metaKey) || event.altKey) return;
    const key = event.key.toLowerCase();
    const back = key === "z" && !event.shiftKey;
    const forward = (key === "z" && event.shiftKey) || key === "y";
    if (!back && !forward) return;
    // The editor's history holds every edit, typing included: the field's own undo would skip it.
    event.preventDefault();
    changed(back ? undo(editor.history) : redo(editor.history), event.timeStamp, true);
  });

  form.addEventListener("input", (event) => {
    const element = /** @type {HTMLInputElement} */ (event.target);
    const { path, kind = "text", required } = element.dataset;
    if (!editor.history || !path) return;
    const keys = /** @type {(string | number)[]} */ (JSON.parse(element.dataset.keys ?? "[]"));
    const policyField = kind.startsWith("policy:") ? kind.slice("policy:".length) : null;
    const value = policyField ? policyValueOf(policyField, element.value) : valueOf(/** @type {any} */ (kind), element.value, required === "1");
    changed(edit(editor.history, keys, value), event.timeStamp, false);
  });
  form.addEventListener("change", (event) => {
    const element = /** @type {HTMLElement} */ (event.target);
    if (!editor.history) return;
    editor.history = commitTyping(editor.history);
    // Drawn once the focus has moved on, so it lands where the instructor moved it.
    if (REDRAWN_ON_CHANGE.test(element.dataset.path ?? "")) requestAnimationFrame(draw);
  });
  form.addEventListener("click", (event) => {
    const button = /** @type {HTMLElement | null} */ (/** @type {HTMLElement} */ (event.target).closest("[data-action]"));
    if (!button || !editor.history) return;
    const { action, list, index, kind, guide, step } = button.dataset;
    const listPath = list ? /** @type {(string | number)[]} */ (JSON.parse(list)) : [];
    const at = Number(index);
    const history = editor.history;
    if (action === "add") {
      const next = addItem(history, listPath, newItem(/** @type {any} */ (kind), history.present));
      changed(next, event.timeStamp, true);
      focusFirstOf(pathText([...listPath, listLength(next.present, listPath) - 1]));
    } else if (action === "remove") {
      changed(removeItem(history, listPath, at), event.timeStamp, true);
      findByKey(`action:add:${list}::`)?.focus();
    } else if (action === "move") {
      changed(moveItem(history, listPath, at, Number(step)), event.timeStamp, true);
      // The focus follows the item moved, onto its same button unless that end is reached.
      const moved = at + Number(step);
      const same = findByKey(`action:move:${list}:${moved}:${step}`);
      (same && !(/** @type {HTMLButtonElement} */ (same).disabled) ? same : findByKey(`action:move:${list}:${moved}:${-Number(step)}`))?.focus();
    } else if (action === "capture") {
      const g = Number(guide);
      const next = addItem(history, ["guides", g, "steps"], captureStep());
      changed(next, event.timeStamp, true);
      const steps = listLength(next.present, ["guides", g, "steps"]);
      editor.fields.get(`guides[${g}].steps[${steps - 1}].title`)?.focus();
    }
  });

  /** @param {any} draft @param {(string | number)[]} path */
  const listLength = (draft, path) => /** @type {any[]} */ (valueAt(draft, path) ?? []).length;
  /** Focus the first field of a new item. @param {string} itemPath */
  const focusFirstOf = (itemPath) => /** @type {HTMLElement | null} */ (form.querySelector(`[data-item-path="${CSS.escape(itemPath)}"] [data-path]`))?.focus();

  /** The workbench's configuration as a new step: its settings, and the record and part in view. */
  const captureStep = () => {
    const { policy, fields, chosenId } = state();
    const stage = Number(byId("experiment").dataset.stage) || 4;
    return capturedStep(/** @type {any} */ (policy), /** @type {any} */ (defaultPolicy(fields)), { stage, record: chosenId, part: partInView(chosenId) });
  };

  /** The part of the page a guided step can show that has most of itself on screen. @param {string} record */
  const partInView = (record) => {
    let best = { part: "tray", seen: 0 };
    for (const [part, place] of Object.entries(PART_PLACES)) {
      const element = document.querySelector(place(record));
      if (!element) continue;
      const rect = element.getBoundingClientRect();
      const seen = Math.min(rect.bottom, innerHeight) - Math.max(rect.top, 0);
      if (seen > best.seen && rect.width > 0) best = { part, seen };
    }
    return best.part;
  };

  // Kept in this browser: saved on every edit, restored after a reload, one writing tab.
  const saved = byId("editor-saved");
  const choice = byId("editor-tab-choice");
  const keeper = createDraftKeeper({
    storage: indexedDBStorage(),
    onStatus: (kept) => {
      const message = statusMessage(kept);
      // Another tab's draft: this tab chooses to take it over or to go on with a copy.
      const choosing = kept.state === "elsewhere" || kept.state === "taken" || kept.state === "conflict";
      setHidden(choice, !choosing);
      setText(choosing ? byId("editor-tab-text") : saved, message);
      // The line names the minute; tests (and a curious instructor's tools) read the save's own time.
      saved.dataset.savedAt = String(kept.savedAt ?? "");
      if (choosing) setText(saved, "");
    },
  });
  /** A kept draft, in the editor as it was. @param {import("../editor/draft-keeper.js").Draft | null} kept */
  const resume = (kept) => {
    if (kept) open(kept.store, performance.now(), { history: kept.history });
  };
  byId("editor-take-over").addEventListener("click", () => keeper.takeOver().then(resume));
  byId("editor-copy").addEventListener("click", () => keeper.copy());

  byId("editor-export").addEventListener("click", () => {
    if (!editor.history) return;
    const { name } = exportStore(editor.history.present);
    setText(byId("editor-link-status"), `Exported as ${name}.`);
  });
  const importer = /** @type {HTMLInputElement} */ (byId("editor-import"));
  importer.addEventListener("change", async (event) => {
    const file = importer.files?.[0];
    importer.value = "";
    if (!file || !editor.history) return;
    const read = await readStoreFile(file);
    if (!read.ok) {
      editor.problems = read.problems;
      showMarks();
      return say(`${file.name} was not imported: ${read.problems.map((p) => p.message).join("; ")}`);
    }
    // One undoable edit: the engine then checks the imported store like any other draft.
    changed(replaceDraft(editor.history, read.data), event.timeStamp, true);
  });
  byId("editor-link").addEventListener("click", async () => {
    if (!editor.history) return;
    const link = await storeLink(editor.history.present, location.href);
    const line = byId("editor-link-status");
    if (!link.ok) return setText(line, link.message);
    try {
      await navigator.clipboard.writeText(link.url);
      setText(line, `Link copied (${link.chars.toLocaleString("en")} characters): it carries the whole store, so no server ever sees it.`);
    } catch {
      setText(line, `This browser did not let the page copy it; the link is: ${link.url}`);
    }
  });

  // A store link opens in the editor as a new draft, untrusted like a file: the engine's
  // parser checks it and names every problem. Otherwise this tab's draft, after a reload.
  const openLink = async () => {
    const link = await readStoreLink(location.hash);
    history.replaceState(history.state, "", withoutStoreLink(location.href));
    /** @type {Problem[]} */
    let problems = link.ok ? [] : link.problems;
    let data = null;
    if (link.ok) {
      try {
        data = JSON.parse(link.text);
      } catch (error) {
        problems = [{ path: "link", message: `is not valid JSON (${error instanceof Error ? error.message : error})` }];
      }
    }
    open(data ?? state().store, performance.now(), { base: "link", unread: problems });
  };
  if (linkPayload(location.hash) !== null) started.then(openLink);
  else Promise.all([keeper.restore(), started]).then(([kept]) => resume(kept));

  return {};
}
