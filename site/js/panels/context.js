// The one context every panel is set up from.
//
// What every panel is set up from: one context, so a panel reaches the page's state,
// the engine and the player the same way, and changes the state only by dispatching.

import { queryOf } from "../core/page-core.js";

/** @typedef {import("../core/page-core.js").State} State */
/** @typedef {import("../core/page-core.js").Event} Event */
/** @typedef {import("../core/page-core.js").Effect} Effect */

/**
 * @typedef {object} Boot  written by build.py into <script type="application/json" id="boot">
 * @property {any} store
 * @property {import("../core/shapes.js").Result} result  the default configuration, computed at build time
 * @property {string} buildId  a hash of every built file
 */

/**
 * @typedef {object} Context
 * @property {(id: string) => HTMLElement} byId
 * @property {(event: Event) => void} dispatch  the only way to change the state
 * @property {() => State} state  the current state, to read
 * @property {import("../python/engine-client.js").EngineClient} engine
 * @property {import("../views/player.js").Player} player
 * @property {import("../views/view.js").Placed} placed  what the views last placed, which every view is placed through
 * @property {Boot} boot
 * @property {Promise<unknown>} started  resolves once the page has started, which asks the engine to open the
 *   store in force: a store a panel opens at load (a link's, a kept draft's) waits for it, or it is overtaken
 * @property {(extra?: Record<string, string>) => string} link  the current configuration's address
 */

/** @typedef {import("../core/page-core.js").Handlers} Handlers  what a panel's setUp returns */

/**
 * @param {Omit<Context, "byId" | "link">} parts
 * @returns {Context}
 */
export function createContext(parts) {
  return {
    ...parts,
    byId: (id) => /** @type {HTMLElement} */ (document.getElementById(id)),
    link: (extra = {}) => new URL(queryOf(parts.state(), extra), location.href).href,
  };
}
