// The store-opening panel: an instructor's own store file.
//
// Opening an instructor's store file in the page: read here (nothing is uploaded),
// checked by the engine itself, which then answers from it; kept for this tab. A
// refused file leaves the current store in force, with every problem listed.

import { forgetStore, readStoreFile, rememberStore } from "../browser/store-file.js";
import { showStore } from "../views/view.js";

/** @param {import("./context.js").Context} context @returns {import("./context.js").Handlers} */
export function setUp({ byId, dispatch, state, engine, boot }) {
  const hint = byId("store-hint");
  const backToDefault = byId("store-default");

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
  };

  /** @param {File} file @param {number} at  when the learner chose or dropped it: the rw:update measure starts there */
  const open = async (file, at) => {
    showProblems(file.name, []);
    hint.textContent = `Checking ${file.name}…`;
    const read = await readStoreFile(file);
    if (!read.ok) return refuse(file.name, read.problems);
    let answer;
    try {
      answer = await engine.openStore(read.text, read.data);
    } catch {
      return refuse(file.name, [{ path: "", message: "Python is not running, so the file cannot be checked: retry starting it first" }]);
    }
    if ("error" in answer) {
      return refuse(file.name, answer.error.problems.length ? answer.error.problems : [{ path: "", message: answer.error.message }]);
    }
    const kept = rememberStore(read.text);
    dispatch({ type: "store-switched", store: read.data, custom: true, opened: true, at });
    hint.textContent = `Opened ${file.name}: ${read.data.records.length} records, scored over this store's own vocabulary.${kept ? "" : " It is too large to keep across reloads."}`;
  };

  const input = /** @type {HTMLInputElement} */ (byId("store-file"));
  input.addEventListener("change", (event) => {
    const file = input.files?.[0];
    if (file) open(file, event.timeStamp);
    input.value = "";
  });
  backToDefault.addEventListener("click", () => {
    forgetStore();
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
