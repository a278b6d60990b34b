// The learner's notes: the notebook's text, the observations and scoreboards kept in it, the
// baseline, whether saving works, and saved notes that could not be read. Pure, like page-core.js.

import { mergeNotes } from "../lms/lms-core.js";
import { observationText, scoreboardText, snapshot } from "./observations.js";

/** @typedef {import("./page-core.js").State} State */
/** @typedef {import("./page-core.js").Effect} Effect */
/** @typedef {import("../browser/notes.js").Notebook} Notebook */

/**
 * @typedef {object} Notes
 * @property {Notebook} notebook
 * @property {"ok" | "blocked" | "full"} storage  once saving failed, the notes live in this tab only
 * @property {string | null} recovered    saved notes that could not be read, kept for export
 */

/**
 * The events only this slice decides.
 * @typedef {{type: "notes-typed", text: string}
 *   | {type: "observation-added", entry: ReturnType<typeof import("./observations.js").observation>, text: string}
 *   | {type: "scoreboard-kept", entry: import("./observations.js").KeptScoreboard}
 *   | {type: "notes-saved", outcome: "ok" | "blocked" | "full"}
 *   | {type: "baseline-captured"}
 *   | {type: "baseline-cleared"}
 *   | {type: "recovered-discarded"}} NotesEvent
 */

/** @param {State} state @param {Partial<Notes>} change @returns {State} */
function withNotes(state, change) {
  return { ...state, notes: { ...state.notes, ...change } };
}

/** @param {State} state @param {Partial<Notebook>} change @returns {State} */
function withNotebook(state, change) {
  return withNotes(state, { notebook: { ...state.notes.notebook, ...change } });
}

/**
 * An entry kept after the notes, as text and as a structured copy, and saved.
 * @param {State} state @param {string} before  the notes as they stand @param {string} text @param {object} entry @param {Effect[]} effects
 */
function kept(state, before, text, entry, effects) {
  effects.push({ type: "show-notebook" }, { type: "save-notes" });
  const appended = `${before.trimEnd()}${before.trim() ? "\n\n" : ""}${text}\n`;
  return withNotebook(state, { text: appended, observations: [...state.notes.notebook.observations, entry] });
}

/**
 * A relaunch from an LMS brings back the notes and baseline it kept; notes this browser
 * holds that differ from the LMS's copy are kept after it.
 * @param {State} state @param {import("../lms/lms-core.js").Resume} resume @param {Effect[]} effects
 */
export function notesResumed(state, resume, effects) {
  const { notebook } = state.notes;
  effects.push({ type: "show-notebook" }, { type: "show-baseline" }, { type: "save-notes" });
  return withNotebook(state, { text: mergeNotes(notebook.text, resume.notes), baseline: resume.baseline ?? notebook.baseline });
}

/** @type {import("./page-core.js").On<NotesEvent>} */
export const ON_NOTES = {
  "notes-typed": (state, { text }, effects) => {
    effects.push({ type: "save-notes" });
    return withNotebook(state, { text });
  },
  "observation-added": (state, { entry, text }, effects) => kept(state, text, observationText(entry), entry, effects),
  "scoreboard-kept": (state, { entry }, effects) => kept(state, state.notes.notebook.text, scoreboardText(entry), entry, effects),
  "notes-saved": (state, { outcome }, effects) => {
    effects.push({ type: "show-storage-warning" });
    // Once saving has failed the notes live in this tab only, and the warning stays.
    return outcome === "ok" ? state : withNotes(state, { storage: outcome });
  },
  "baseline-captured": (state, _, effects) => {
    effects.push({ type: "save-notes" }, { type: "show-baseline" });
    return withNotebook(state, { baseline: snapshot(state.shown) });
  },
  "baseline-cleared": (state, _, effects) => {
    effects.push({ type: "save-notes" }, { type: "show-baseline" });
    return withNotebook(state, { baseline: null });
  },
  "recovered-discarded": (state, _, effects) => {
    effects.push({ type: "show-storage-warning" });
    return withNotes(state, { recovered: null });
  },
};
