// Drafts kept in this browser as they are edited, and which tab may write each one.
//
// A draft (its store, the editor's undo history, where it started) is written to
// IndexedDB on every save, so a reload, a crashed tab or a lost connection loses
// nothing. One tab writes a draft at a time: it holds the draft's Web Lock, and
// BroadcastChannel tells the other tabs. A second tab is told and chooses: take the
// draft over (the first tab is told and stops writing) or open a copy. Underneath both,
// every write is a compare-and-swap on the draft's revision, so a tab whose browser has
// neither still never writes over a save it has not seen.
//
// States (KeeperStatus.state), for the tab that holds a draft:
//
//   idle --start/open/restore--> saved <--save-- (writes each save, newest wins)
//   saved --another tab opens it--> watched (still writes)
//   saved/watched --another tab takes it over--> taken (no longer writes)
//   saved/watched --a write finds a newer revision--> conflict (no longer writes)
//   saved/watched --storage refuses a write--> refused (retries on the next save)
//   open/restore a draft held elsewhere --> elsewhere (does not write)
//   elsewhere/taken/conflict --takeOver--> saved;  --copy--> saved (a new draft id)

const DB_NAME = "retrieval-workbench-drafts";
const DB_STORE = "drafts";
const CHANNEL_NAME = "retrieval-workbench-drafts";
const SESSION_KEY = "retrieval-workbench:draft";
const LOCK_PREFIX = "retrieval-workbench-draft:";

/**
 * @typedef {object} DraftMeta
 * @property {string} id          the draft's own id, for its whole life
 * @property {string} base        where it started, in the caller's words ("default", "file", "link", "new"…)
 * @property {number} updated     when it was last saved, in ms since the epoch
 * @property {number} revision    counts its saves: a tab writes only over the revision it last read or wrote
 * @property {string} writer      the tab that saved it last
 * @property {string} title       the store's title at that save, to list drafts by
 * @property {string | null} copyOf  the draft it was copied from
 */

/**
 * @typedef {object} Draft
 * @property {DraftMeta} meta
 * @property {any} store            the store as edited (it may be invalid mid-edit)
 * @property {any} history          the editor's undo history, as it gave it (structured-cloneable), or null
 * @property {string | null} original  the text of the file or link it was opened from (store-file-io.js exportText)
 */

/**
 * @typedef {object} DraftStorage  where drafts are kept: IndexedDB in the page, memory in tests
 * @property {(id: string) => Promise<Draft | undefined>} get
 * @property {(draft: Draft, expected: number | null) => Promise<Draft | null>} swap
 *   write draft if the kept one's revision is expected (null: none is kept); otherwise
 *   write nothing and resolve with the kept one. Rejects with a StorageRefused.
 * @property {() => Promise<DraftMeta[]>} list
 * @property {(id: string) => Promise<void>} remove
 */

/**
 * @typedef {object} KeeperStatus
 * @property {"idle" | "saved" | "watched" | "elsewhere" | "taken" | "conflict" | "refused"} state
 * @property {string | null} id         the draft's id
 * @property {number | null} savedAt    when this tab last saved it
 * @property {"quota" | "unavailable" | null} reason  why storage refused (state "refused")
 * @property {string} detail            the browser's own words, for a refusal
 */

/**
 * @typedef {object} SessionSlot  which draft this tab edits, kept across its reloads
 * @property {() => string | null} get
 * @property {(id: string) => void} set
 * @property {() => void} clear
 */

/**
 * @typedef {object} LockLike  the part of navigator.locks used here
 * @property {(name: string, options: {ifAvailable?: boolean, steal?: boolean}, callback: (lock: any) => Promise<void> | null) => Promise<unknown>} request
 */

/** @typedef {{postMessage: (message: any) => void, addEventListener: (type: "message", listener: (event: MessageEvent) => void) => void}} ChannelLike */

/** A refusal by the browser's storage: full, or not allowed at all. */
export class StorageRefused extends Error {
  /** @param {"quota" | "unavailable"} reason @param {string} detail */
  constructor(reason, detail) {
    super(detail);
    this.name = "StorageRefused";
    this.reason = reason;
    this.detail = detail;
  }
}

/** @param {unknown} error @returns {StorageRefused} */
export function refusal(error) {
  if (error instanceof StorageRefused) return error;
  // IndexedDB fails with DOMExceptions, which are not Errors in every engine.
  const { name = "", message = String(error) } = error && typeof error === "object" ? /** @type {{name?: string, message?: string}} */ (error) : {};
  const detail = name ? `${name}: ${message}` : message;
  return new StorageRefused(name === "QuotaExceededError" ? "quota" : "unavailable", detail);
}

/**
 * What the page says about a keeper's status: the sentence for the draft's status line.
 * @param {KeeperStatus} status @param {(at: number) => string} [clock]  a time as the page writes it
 * @returns {string}
 */
export function statusMessage(status, clock = (at) => new Date(at).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })) {
  switch (status.state) {
    case "idle":
      return "";
    case "saved":
      return status.savedAt === null ? "Draft kept in this browser." : `Draft saved in this browser at ${clock(status.savedAt)}.`;
    case "watched":
      return "This draft is also open in another tab. This tab keeps saving it unless the other tab takes it over.";
    case "elsewhere":
      return "This draft is open in another tab, which saves it. Take it over here (the other tab stops saving), or open a copy.";
    case "taken":
      return "Another tab took this draft over, so this tab no longer saves it. Open a copy to keep this tab's edits, or take it back.";
    case "conflict":
      return "Another tab saved this draft since this tab last did, so this tab stopped saving rather than write over it. Take it over here, or open a copy.";
    case "refused":
      return status.reason === "quota"
        ? "This browser's storage for the page is full, so the draft's last edit is not saved here. " +
            "Export store keeps your work as a file; saving resumes once space is freed."
        : `This browser does not let the page keep drafts (${status.detail}), as in a private window or with site storage ` +
            "turned off: edits are lost on reload. Export store keeps your work as a file.";
  }
}

/** @template T @param {IDBRequest<T>} request @returns {Promise<T>} */
const settled = (request) =>
  new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });

/**
 * Drafts in IndexedDB. The database opens on first use; a browser that refuses it
 * (private mode, storage turned off) makes every call reject with a StorageRefused.
 * @param {IDBFactory | undefined} [factory]
 * @returns {DraftStorage}
 */
export function indexedDBStorage(factory = globalThis.indexedDB) {
  /** @type {Promise<IDBDatabase> | null} */
  let opening = null;
  const db = () => {
    opening ??= new Promise((resolve, reject) => {
      if (!factory) return reject(new StorageRefused("unavailable", "IndexedDB is missing"));
      const request = factory.open(DB_NAME, 1);
      request.onupgradeneeded = () => request.result.createObjectStore(DB_STORE, { keyPath: "meta.id" });
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(refusal(request.error));
      request.onblocked = () => reject(new StorageRefused("unavailable", "the drafts database is held by an older page in another tab"));
    });
    // A failed open is tried again next time (the learner may have freed space or allowed storage).
    opening.catch(() => (opening = null));
    return opening;
  };
  /** @template T @param {IDBTransactionMode} mode @param {(store: IDBObjectStore) => Promise<T>} work @returns {Promise<T>} */
  const within = async (mode, work) => {
    try {
      const transaction = (await db()).transaction(DB_STORE, mode);
      const done = new Promise((resolve, reject) => {
        transaction.oncomplete = resolve;
        transaction.onerror = () => reject(transaction.error);
        transaction.onabort = () => reject(transaction.error ?? new DOMException("the write was aborted", "AbortError"));
      });
      const result = await work(transaction.objectStore(DB_STORE));
      await done;
      return result;
    } catch (error) {
      throw refusal(error);
    }
  };
  return {
    get: (id) => within("readonly", (store) => settled(store.get(id))),
    swap: (draft, expected) =>
      within("readwrite", async (store) => {
        // One transaction: no other tab's write can come between the read and the write.
        const kept = /** @type {Draft | undefined} */ (await settled(store.get(draft.meta.id)));
        if ((kept?.meta.revision ?? null) !== expected) return kept ?? null;
        await settled(store.put(draft));
        return null;
      }),
    list: () => within("readonly", async (store) => /** @type {Draft[]} */ (await settled(store.getAll())).map((d) => d.meta)),
    remove: (id) => within("readwrite", (store) => settled(store.delete(id)).then(() => {})),
  };
}

/**
 * Drafts in memory, copied in and out as IndexedDB does; shared by the keepers given it
 * (tabs, in tests). quota makes writes fail as a full storage does.
 * @returns {DraftStorage & {full: boolean}}
 */
export function memoryStorage() {
  /** @type {Map<string, Draft>} */
  const kept = new Map();
  return {
    full: false,
    async get(id) {
      const draft = kept.get(id);
      return draft && structuredClone(draft);
    },
    async swap(draft, expected) {
      const now = kept.get(draft.meta.id);
      if ((now?.meta.revision ?? null) !== expected) return now ? structuredClone(now) : null;
      if (this.full) throw new StorageRefused("quota", "QuotaExceededError: the quota has been exceeded.");
      kept.set(draft.meta.id, structuredClone(draft));
      return null;
    },
    async list() {
      return [...kept.values()].map((d) => structuredClone(d.meta));
    },
    async remove(id) {
      kept.delete(id);
    },
  };
}

/** This tab's draft id in sessionStorage: a reload of the tab (or of a crashed tab) finds it. @returns {SessionSlot} */
export function sessionSlot() {
  return {
    get() {
      try {
        return sessionStorage.getItem(SESSION_KEY);
      } catch {
        return null;
      }
    },
    set(id) {
      try {
        sessionStorage.setItem(SESSION_KEY, id);
      } catch {
        // the draft is still kept; a reload just does not find it by itself
      }
    },
    clear() {
      try {
        sessionStorage.removeItem(SESSION_KEY);
      } catch {
        // nothing was kept
      }
    },
  };
}

// randomUUID needs a secure context; a page opened over plain http from a LAN address has none.
const newId = () =>
  globalThis.isSecureContext === false || !globalThis.crypto
    ? `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`
    : crypto.randomUUID();

/**
 * @typedef {object} KeeperOptions
 * @property {DraftStorage} storage
 * @property {LockLike | null} [locks]        navigator.locks where the browser has it
 * @property {ChannelLike | null} [channel]   a BroadcastChannel shared by the page's tabs
 * @property {SessionSlot} [session]
 * @property {string} [tab]                   this tab's id
 * @property {() => number} [now]
 * @property {(status: KeeperStatus) => void} [onStatus]
 */

/**
 * Keeps this tab's draft: see the states in this module's header.
 * @param {KeeperOptions} options
 */
export function createDraftKeeper({
  storage,
  locks = globalThis.navigator?.locks ?? null,
  channel = typeof BroadcastChannel === "function" ? new BroadcastChannel(CHANNEL_NAME) : null,
  session = sessionSlot(),
  tab = newId(),
  now = Date.now,
  onStatus = () => {},
}) {
  /** @type {KeeperStatus} */
  let status = { state: "idle", id: null, savedAt: null, reason: null, detail: "" };
  /** @type {Draft | null} the draft as this tab holds it: the last content given, and the kept revision it knows */
  let draft = null;
  /** @type {(() => void) | null} ends this tab's hold on the draft's lock */
  let release = null;
  let writing = false;
  let due = false;
  /** @type {Promise<Draft | null> | null} */
  let restoring = null;
  /** @type {Set<(status: KeeperStatus) => void>} */
  const listeners = new Set([onStatus]);

  /** @param {Partial<KeeperStatus>} change */
  const set = (change) => {
    status = { ...status, reason: null, detail: "", ...change, id: draft?.meta.id ?? null };
    for (const listener of listeners) listener(status);
  };
  const writes = () => status.state === "saved" || status.state === "watched" || status.state === "refused";
  /** @param {any} message */
  const tell = (message) => channel?.postMessage({ ...message, tab });

  channel?.addEventListener("message", (event) => {
    const message = event.data;
    if (!draft || !message || message.id !== draft.meta.id || message.tab === tab) return;
    if (message.type === "opened" && writes()) {
      tell({ type: "held", id: draft.meta.id });
      if (status.state === "saved") set({ state: "watched" });
    } else if (message.type === "held" && !release && status.state === "saved") {
      // No locks here: another tab answered that it writes this draft.
      set({ state: "elsewhere" });
    } else if (message.type === "taken" && writes()) {
      letGo();
      set({ state: "taken" });
    } else if (message.type === "left" && status.state === "watched") {
      set({ state: "saved" });
    }
  });

  const letGo = () => {
    release?.();
    release = null;
  };

  /**
   * Hold the draft's lock: at once if it is free (or stolen from its holder with steal).
   * Resolves false when another tab holds it; true also where the browser has no locks.
   * @param {string} id @param {boolean} steal
   */
  const hold = (id, steal) => {
    if (!locks) return Promise.resolve(true);
    return new Promise((resolve) => {
      const request = locks.request(LOCK_PREFIX + id, steal ? { steal: true } : { ifAvailable: true }, (lock) => {
        if (!lock) {
          resolve(false);
          return null;
        }
        resolve(true);
        return new Promise((done) => (release = () => done()));
      });
      // Stolen by a tab that took the draft over.
      request.catch(() => {
        if (draft?.meta.id !== id || !writes()) return;
        release = null;
        set({ state: "taken" });
      });
    });
  };

  /** @param {Draft} kept @returns {Promise<Draft>} */
  const claim = async (kept) => {
    letGo();
    draft = kept;
    session.set(kept.meta.id);
    const mine = await hold(kept.meta.id, false);
    set({ state: mine ? "saved" : "elsewhere", savedAt: null });
    tell({ type: "opened", id: kept.meta.id });
    return structuredClone(kept);
  };

  const write = async () => {
    if (writing) return void (due = true);
    writing = true;
    try {
      while (draft && writes()) {
        due = false;
        const known = draft.meta.revision;
        const next = { ...draft, meta: { ...draft.meta, revision: known + 1, updated: now(), writer: tab, title: String(draft.store?.title ?? "") } };
        try {
          const newer = await storage.swap(next, known);
          if (newer) {
            set({ state: "conflict" });
            break;
          }
          if (draft.meta.id === next.meta.id) draft = { ...draft, meta: next.meta };
          if (!due) set({ state: status.state === "refused" ? "saved" : status.state, savedAt: next.meta.updated });
        } catch (error) {
          const refused = refusal(error);
          set({ state: "refused", reason: refused.reason, detail: refused.detail });
          break;
        }
        if (!due) break;
      }
    } finally {
      writing = false;
    }
  };

  /** @param {{store: any, history?: any, base: string, original?: string | null, copyOf?: string | null}} from */
  const begin = async ({ store, history = null, base, original = null, copyOf = null }) => {
    const id = newId();
    /** @type {DraftMeta} */
    const meta = { id, base, updated: now(), revision: 0, writer: tab, title: String(store?.title ?? ""), copyOf };
    /** @type {Draft} */
    const fresh = { meta, store: structuredClone(store), history: structuredClone(history), original };
    letGo();
    draft = fresh;
    session.set(id);
    await hold(id, false);
    set({ state: "saved", savedAt: null });
    try {
      const kept = await storage.swap(fresh, null);
      if (kept) set({ state: "conflict" });
      else set({ savedAt: fresh.meta.updated });
    } catch (error) {
      const refused = refusal(error);
      set({ state: "refused", reason: refused.reason, detail: refused.detail });
    }
    return structuredClone(fresh);
  };

  return {
    /** @returns {KeeperStatus} */
    get status() {
      return status;
    },

    /** The draft this tab holds (a copy), or null. @returns {Draft | null} */
    get draft() {
      return draft && structuredClone(draft);
    },

    /** Be told every status from now on. @param {(status: KeeperStatus) => void} listener @returns {() => void} stop */
    listen(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    /**
     * The draft this tab was editing before a reload (or a crash and its restore), held
     * again; null if none. Called more than once, it answers the first call's draft.
     * @returns {Promise<Draft | null>}
     */
    restore() {
      restoring ??= (async () => {
        const id = session.get();
        if (!id) return null;
        let kept;
        try {
          kept = await storage.get(id);
        } catch (error) {
          const refused = refusal(error);
          set({ state: "refused", reason: refused.reason, detail: refused.detail });
          return null;
        }
        if (!kept) {
          session.clear();
          return null;
        }
        return claim(kept);
      })();
      return restoring;
    },

    /**
     * Start a new draft from a store (a new id), held and saved at once.
     * @param {{store: any, history?: any, base: string, original?: string | null}} from
     * @returns {Promise<Draft>}
     */
    start(from) {
      return begin(from);
    },

    /**
     * Open a kept draft by id (from list()): held by this tab if no other tab holds it,
     * "elsewhere" otherwise. Null when no such draft is kept.
     * @param {string} id @returns {Promise<Draft | null>}
     */
    async open(id) {
      const kept = await storage.get(id);
      return kept ? claim(kept) : null;
    },

    /**
     * Save the draft's new content: written at once, or right after the write under way
     * (only the newest content is written then). Written only while this tab holds it.
     * @param {any} store @param {any} [history]
     */
    save(store, history = null) {
      if (!draft) return;
      draft = { ...draft, store: structuredClone(store), history: structuredClone(history) };
      if (writes()) void write();
    },

    /**
     * Make this tab the draft's writer (the tab that held it is told and stops writing).
     * Resolves with the draft as last saved, which the editor shows from now on.
     * @returns {Promise<Draft | null>}
     */
    async takeOver() {
      if (!draft) return null;
      const id = draft.meta.id;
      letGo();
      await hold(id, true);
      tell({ type: "taken", id });
      const kept = await storage.get(id);
      if (!kept) return null;
      draft = kept;
      session.set(id);
      set({ state: "saved", savedAt: null });
      return structuredClone(kept);
    },

    /**
     * Save this tab's content as a new draft (a new id) and hold that one; the draft it
     * came from stays with the tab that holds it.
     * @returns {Promise<Draft | null>}
     */
    async copy() {
      if (!draft) return null;
      const { meta, store, history, original } = draft;
      tell({ type: "left", id: meta.id });
      return begin({ store, history, base: meta.base, original, copyOf: meta.id });
    },

    /** Every kept draft, newest first. @returns {Promise<DraftMeta[]>} */
    async list() {
      return (await storage.list()).sort((a, b) => b.updated - a.updated);
    },

    /** Stop editing the draft in this tab (it stays kept); a reload no longer restores it. */
    close() {
      if (draft) tell({ type: "left", id: draft.meta.id });
      letGo();
      draft = null;
      session.clear();
      set({ state: "idle", savedAt: null });
    },

    /** Delete a kept draft; this tab's own is closed first. @param {string} id */
    async discard(id) {
      if (draft?.meta.id === id) this.close();
      await storage.remove(id);
    },
  };
}

/** @typedef {ReturnType<typeof createDraftKeeper>} DraftKeeper */
