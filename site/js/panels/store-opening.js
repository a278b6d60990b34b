// The store-opening panel: an instructor's own store file.
//
// Opening an instructor's store file in the page: read here (nothing is uploaded),
// checked by the engine itself, which then answers from it; kept for this tab. A
// refused file leaves the current store in force, with every problem listed.

import { forgetStore, parseStoreText, readStoreFile, rememberStore } from "../browser/store-file.js";
import { rememberOriginal } from "../editor/store-file-io.js";
import { showStore } from "../views/view.js";

/**
 * The page's one way to open a store's text, whatever brought it (a file, a link, a
 * saved draft): parsed here, checked by the engine, its problems listed in the store
 * panel; on success the store is in force. Resolves with the store, or null if refused.
 * @param {Pick<import("./context.js").Context, "byId" | "dispatch" | "engine">} context
 * @typedef {{path: string, message: string}} Problem
 * @returns {{open: (name: string, text: string, at: number) => Promise<any | null>, refuse: (name: string, problems: Problem[]) => null}}
 */
export function storeOpener({ byId, dispatch, engine }) {
  const hint = byId("store-hint");

  /** @param {string} name @param {{path: string, message: string}[]} problems */
  const showProblems = (name, problems) => {
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
  };

  /** @param {string} name @param {{path: string, message: string}[]} problems */
  const refuse = (name, problems) => {
    hint.textContent = "";
    showProblems(name, problems);
    return null;
  };

  /** @param {string} name @param {string} text @param {number} at  when the learner asked: the rw:update measure starts there */
  const open = async (name, text, at) => {
    showProblems(name, []);
    hint.textContent = `Checking ${name}…`;
    const read = parseStoreText(name, text);
    if (!read.ok) return refuse(name, read.problems);
    let answer;
    try {
      answer = await engine.openStore(text, read.data);
    } catch {
      return refuse(name, [{ path: "", message: "Python is not running, so the store cannot be checked: retry starting it first" }]);
    }
    if ("error" in answer) {
      return refuse(name, answer.error.problems.length ? answer.error.problems : [{ path: "", message: answer.error.message }]);
    }
    dispatch({ type: "store-switched", store: read.data, custom: true, opened: true, at });
    hint.textContent = `Opened ${name}: ${read.data.records.length} records, scored over this store's own vocabulary.`;
    return read.data;
  };
  return { open, refuse };
}

/** @param {import("./context.js").Context} context @returns {import("./context.js").Handlers} */
export function setUp(context) {
  const { byId, dispatch, state, boot, drafts } = context;
  const hint = byId("store-hint");
  const backToDefault = byId("store-default");
  const opener = storeOpener(context);

  /** @param {File} file @param {number} at */
  const open = async (file, at) => {
    const read = await readStoreFile(file);
    if (!read.ok) return opener.refuse(file.name, read.problems);
    const store = await opener.open(file.name, read.text, at);
    if (!store) return;
    rememberOriginal(store, read.text);
    // The file is in force now, not the draft this tab was editing (which stays kept).
    drafts.close();
    if (!rememberStore(read.text)) hint.textContent += " It is too large to keep across reloads.";
  };

  const input = /** @type {HTMLInputElement} */ (byId("store-file"));
  input.addEventListener("change", (event) => {
    const file = input.files?.[0];
    if (file) open(file, event.timeStamp);
    input.value = "";
  });
  backToDefault.addEventListener("click", () => {
    forgetStore();
    drafts.close();
    dispatch({ type: "store-switched", store: boot.store, custom: false, opened: false, at: performance.now() });
    hint.textContent = "Back to the default store.";
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
    open(file, event.timeStamp);
  });
  backToDefault.hidden = !state().custom;
  return {
    // Question and tenant choices, guided experiments and the title follow the store.
    "show-store": () => {
      const { store, policy, fields, custom } = state();
      showStore(store, policy, fields);
      backToDefault.hidden = !custom;
    },
  };
}
