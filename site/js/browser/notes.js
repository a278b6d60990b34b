// The notebook's storage in this browser, and its export.
//
// The notebook's storage and export. Notes are saved under a versioned key; when
// storage is blocked or full they live in this tab only and the page says so, and
// unreadable saved data is kept and offered for export, never dropped silently.

export const STORAGE_KEY = "retrieval-workbench:notebook:v1";
// Saved data this version cannot read is copied here before anything overwrites it.
export const UNREADABLE_KEY = "retrieval-workbench:notebook:unreadable";

/**
 * @typedef {object} Notebook
 * @property {string} text                what the learner typed (and observations added)
 * @property {object[]} observations      structured copies of added observations
 * @property {object | null} baseline     the captured baseline snapshot, if any
 */

/** @returns {Notebook} */
export function emptyNotebook() {
  return { text: "", observations: [], baseline: null };
}

/** @returns {Storage | null} null where the browser refuses storage (blocked cookies, sandbox) */
function localStore() {
  try {
    const storage = window.localStorage;
    storage.getItem(STORAGE_KEY); // some browsers only throw on first use
    return storage;
  } catch {
    return null;
  }
}

/**
 * @typedef {object} Loaded
 * @property {Notebook} notebook
 * @property {"ok" | "blocked"} storage
 * @property {string | null} recovered  saved data that could not be read, kept for export
 */

/** @returns {Loaded} */
export function loadNotebook() {
  const storage = localStore();
  if (!storage) return { notebook: emptyNotebook(), storage: "blocked", recovered: null };
  const raw = storage.getItem(STORAGE_KEY);
  const kept = storage.getItem(UNREADABLE_KEY);
  if (raw === null) return { notebook: emptyNotebook(), storage: "ok", recovered: kept };
  try {
    const data = JSON.parse(raw);
    if (typeof data?.text !== "string" || !Array.isArray(data.observations)) throw new Error("unexpected shape");
    return {
      notebook: { text: data.text, observations: data.observations, baseline: data.baseline ?? null },
      storage: "ok",
      recovered: kept,
    };
  } catch {
    // Corrupt, or written by another version: keep it aside, never drop it silently.
    const recovered = kept ? `${kept}\n\n${raw}` : raw;
    try {
      storage.setItem(UNREADABLE_KEY, recovered);
      storage.removeItem(STORAGE_KEY);
    } catch {
      // Storage full: it stays where it is, and is still offered for export below.
    }
    return { notebook: emptyNotebook(), storage: "ok", recovered };
  }
}

/** The learner has exported the unreadable data and chose to discard it. */
export function discardRecovered() {
  try {
    localStore()?.removeItem(UNREADABLE_KEY);
  } catch {
    // nothing to do: it simply stays stored
  }
}

/**
 * Save the notebook; never throws.
 * @param {Notebook} notebook
 * @returns {"ok" | "blocked" | "full"}
 */
export function saveNotebook(notebook) {
  const storage = localStore();
  if (!storage) return "blocked";
  try {
    storage.setItem(STORAGE_KEY, JSON.stringify(notebook));
    return "ok";
  } catch (error) {
    return error instanceof DOMException && error.name === "QuotaExceededError" ? "full" : "blocked";
  }
}

/**
 * The exported file: the notebook as Markdown, with a JSON copy of the observations.
 * @param {Notebook} notebook
 * @param {{title: string, when: Date, link: string, recovered: string | null,
 *          settings?: {name: string, label: string, value: unknown}[]}} context
 *   settings: every policy field of the current configuration, in field-table order
 */
export function exportMarkdown(notebook, context) {
  const parts = [
    "# Retrieval Workbench notes",
    "",
    `Store: ${context.title}  `,
    `Exported: ${context.when.toISOString()}  `,
    `Current configuration: ${context.link}`,
    "",
  ];
  if (context.settings?.length) {
    parts.push("## Current settings", "", ...context.settings.map((s) => `- ${s.name} (${s.label}): ${s.value === "" ? "(empty)" : s.value}`), "");
  }
  parts.push(
    "## Notebook",
    "",
    notebook.text.trim() || "(empty)",
    "",
    "## Observations (JSON)",
    "",
    "```json",
    JSON.stringify(notebook.observations, null, 2),
    "```",
  );
  if (notebook.baseline) parts.push("", "## Baseline (JSON)", "", "```json", JSON.stringify(notebook.baseline, null, 2), "```");
  if (context.recovered) parts.push("", "## Saved data that could not be read", "", "```", context.recovered, "```");
  return `${parts.join("\n")}\n`;
}

