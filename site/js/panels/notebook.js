// The notebook's panel: notes and observations, saved and exported.
//
// The notebook: typed notes and added observations, saved in this browser on every
// change, exported as Markdown. Where storage is blocked or full the notes live in this
// tab, and saved notes that could not be read are kept and exported, never dropped.

import { keptLinks, observation } from "../core/observations.js";
import { discardRecovered, exportMarkdown, saveNotebook } from "../browser/notes.js";
import { saveFile } from "../browser/save-file.js";
import { html } from "../views/html.js";
import { place } from "../views/view.js";

/** @param {import("./context.js").Context} context @returns {import("./context.js").Handlers} */
export function setUp({ byId, dispatch, state, link, placed }) {
  const area = /** @type {HTMLTextAreaElement} */ (byId("notebook"));
  const status = byId("notes-status");
  const linksBox = byId("notebook-links");

  // A kept link, one click from what it keeps, as the text says it now. Where the notes live
  // only in this tab (storage blocked or full), it opens in another, so they are not lost.
  const showLinks = () => {
    const links = keptLinks(area.value, location.href);
    const away = state().notes.storage !== "ok";
    const items = links.map((kept) => html`<li><a href="${kept.href}"${away ? html` target="_blank" rel="noopener"` : ""}>${kept.title}</a></li>`);
    place(placed, "notebook-links", links.length ? html`<p>Open what you kept:</p><ul>${items}</ul>` : "");
    linksBox.hidden = links.length === 0;
  };

  const showStorageWarning = () => {
    const { storage, recovered } = state().notes;
    const warning = byId("storage-warning");
    const messages = [];
    if (storage === "blocked") {
      messages.push("This browser does not let the page save notes here, so your notes live only in this tab. Use Export notes to keep them.");
    } else if (storage === "full") {
      messages.push("Browser storage is full, so your latest notes live only in this tab. Use Export notes to keep them.");
    }
    if (recovered) messages.push("Saved notes from an earlier visit could not be read. They are kept, and Export notes includes them.");
    warning.textContent = messages.join(" ");
    warning.hidden = messages.length === 0;
    if (!recovered) return;
    const discard = document.createElement("button");
    discard.type = "button";
    discard.className = "small";
    discard.textContent = "Discard the unreadable notes";
    discard.addEventListener("click", () => {
      discardRecovered();
      dispatch({ type: "recovered-discarded" });
    });
    warning.append(" ", discard);
  };

  area.value = state().notes.notebook.text;
  area.addEventListener("input", () => {
    dispatch({ type: "notes-typed", text: area.value });
    showLinks();
  });
  byId("add-observation").addEventListener("click", () => {
    const entry = observation(state().shown, link(), new Date());
    dispatch({ type: "observation-added", entry, text: area.value });
    status.textContent = `Observation added: tray ${entry.tray.map((t) => t.id).join(", ") || "empty"}.`;
  });
  byId("export-notes").addEventListener("click", () => {
    const { notes: { notebook, recovered }, store, fields, policy } = state();
    const when = new Date();
    const settings = fields.map((f) => ({ name: f.name, label: f.label, value: policy[f.name] }));
    const text = exportMarkdown(notebook, { title: store.title, when, link: link(), recovered, settings });
    const stamp = when.toISOString().slice(0, 16).replace(/[-:]/g, "").replace("T", "-");
    saveFile(`retrieval-workbench-notes-${stamp}.md`, text, "text/markdown;charset=utf-8");
    status.textContent = "Notes exported as a Markdown file, with a JSON copy of the observations.";
  });
  showStorageWarning();
  showLinks();
  return {
    "show-notebook": () => {
      area.value = state().notes.notebook.text;
      showLinks();
    },
    "save-notes": () => dispatch({ type: "notes-saved", outcome: saveNotebook(state().notes.notebook) }),
    "show-storage-warning": () => {
      showStorageWarning();
      showLinks();
    },
  };
}
