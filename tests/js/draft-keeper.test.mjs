// Drafts kept as they are edited: restored after a reload, one writer per draft, a
// second tab told and given the choice, and a full or refused storage said plainly.
import assert from "node:assert/strict";
import { test } from "node:test";

import { StorageRefused, createDraftKeeper, indexedDBStorage, memoryStorage, statusMessage } from "../../site/js/editor/draft-keeper.js";

/** navigator.locks as the keeper uses it, shared by the "tabs" of one test. */
function fakeLocks() {
  /** @type {Map<string, {reject: (e: Error) => void}>} */
  const held = new Map();
  return {
    held,
    /** @param {string} name @param {{ifAvailable?: boolean, steal?: boolean}} options @param {(lock: any) => any} callback */
    request(name, options, callback) {
      if (held.has(name) && options.ifAvailable) return Promise.resolve(callback(null));
      if (held.has(name) && options.steal) {
        held.get(name)?.reject(new DOMException("The lock request is aborted", "AbortError"));
      } else if (held.has(name)) throw new Error("this fake grants only free or stolen locks");
      return new Promise((resolve, reject) => {
        const entry = { reject };
        held.set(name, entry);
        Promise.resolve(callback({ name })).then(
          (value) => {
            if (held.get(name) === entry) held.delete(name);
            resolve(value);
          },
          reject,
        );
      });
    },
  };
}

/** A BroadcastChannel between the tabs of one test, delivered in order on demand. */
function fakeChannels() {
  /** @type {{from: object, data: any}[]} */
  const queue = [];
  /** @type {{listener: (event: any) => void, port: object}[]} */
  const ports = [];
  return {
    open() {
      const port = {
        postMessage: (/** @type {any} */ data) => queue.push({ from: port, data: structuredClone(data) }),
        addEventListener: (/** @type {string} */ _type, /** @type {(event: any) => void} */ listener) => ports.push({ listener, port }),
      };
      return port;
    },
    /** Deliver every message posted so far (and those they cause). */
    flush() {
      while (queue.length) {
        const { from, data } = /** @type {{from: object, data: any}} */ (queue.shift());
        for (const { listener, port } of ports) if (port !== from) listener({ data });
      }
    },
  };
}

function fakeSession() {
  /** @type {string | null} */
  let id = null;
  return { get: () => id, set: (/** @type {string} */ v) => void (id = v), clear: () => void (id = null) };
}

const STORE = { schema: 1, title: "Course memory", tenants: [{ id: "t", label: "T" }], questions: [], records: [] };
const edited = (title) => ({ ...STORE, title });

/** Wait for the writes under way: the keeper chains them on promises only. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** A browser with tabs sharing storage, locks and a channel; each tab its own session. */
function browser({ locks = true, channel = true } = {}) {
  const storage = memoryStorage();
  const sharedLocks = fakeLocks();
  const channels = fakeChannels();
  let clock = 1_000;
  const tab = (session = fakeSession()) => {
    const statuses = [];
    const keeper = createDraftKeeper({
      storage,
      locks: locks ? sharedLocks : null,
      channel: channel ? channels.open() : null,
      session,
      now: () => clock++,
      onStatus: (status) => statuses.push(status.state),
    });
    return { keeper, session, statuses };
  };
  return { storage, tab, channels, locks: sharedLocks };
}

test("a draft saved as it is edited is restored after a reload, history included", async () => {
  const { tab, storage } = browser();
  const first = tab();
  const started = await first.keeper.start({ store: STORE, base: "default" });
  first.keeper.save(edited("Edited once"), { past: [STORE], future: [] });
  first.keeper.save(edited("Edited twice"), { past: [STORE, edited("Edited once")], future: [] });
  await settle();
  // The reload: the same tab's session, a new page (and keeper), the same storage.
  const reloaded = tab(first.session);
  const draft = await reloaded.keeper.restore();
  assert.ok(draft);
  assert.equal(draft.meta.id, started.meta.id);
  assert.equal(draft.store.title, "Edited twice");
  assert.deepEqual(draft.history.past.map((s) => s.title), ["Course memory", "Edited once"]);
  assert.equal(draft.meta.base, "default");
  assert.equal((await storage.list()).length, 1);
});

test("a tab that never had a draft restores none", async () => {
  const { tab } = browser();
  const fresh = tab();
  assert.equal(await fresh.keeper.restore(), null);
  assert.equal(fresh.keeper.status.state, "idle");
});

test("saves made while a write is under way end with the newest content kept", async () => {
  const { tab, storage } = browser();
  const one = tab();
  const { meta } = await one.keeper.start({ store: STORE, base: "new" });
  for (let i = 1; i <= 20; i++) one.keeper.save(edited(`Edit ${i}`));
  for (let i = 0; i < 5; i++) await settle();
  const kept = await storage.get(meta.id);
  assert.equal(kept?.store.title, "Edit 20");
  assert.ok((kept?.meta.revision ?? 0) < 20, "edits during a write are coalesced, not queued one by one");
  assert.equal(one.keeper.status.state, "saved");
});

test("a second tab on the same draft is told, and the first is told it is watched", async () => {
  const { tab, channels } = browser();
  const first = tab();
  const { meta } = await first.keeper.start({ store: STORE, base: "new" });
  const second = tab();
  second.session.set(meta.id); // e.g. the tab was duplicated
  const draft = await second.keeper.restore();
  channels.flush();
  assert.equal(draft?.store.title, "Course memory");
  assert.equal(second.keeper.status.state, "elsewhere");
  assert.match(statusMessage(second.keeper.status), /open in another tab.*Take it over here.*or open a copy/);
  assert.equal(first.keeper.status.state, "watched");
  // The second tab edits: nothing is written over the first tab's draft.
  second.keeper.save(edited("Second tab's edit"));
  first.keeper.save(edited("First tab's edit"));
  await settle();
  const kept = await first.keeper.list();
  assert.equal(kept.length, 1);
  assert.equal(kept[0].title, "First tab's edit");
});

test("taking a draft over makes the first tab stop writing, and tells it", async () => {
  const { tab, channels, storage } = browser();
  const first = tab();
  const { meta } = await first.keeper.start({ store: STORE, base: "new" });
  first.keeper.save(edited("First tab's work"));
  await settle();
  const second = tab();
  await second.keeper.open(meta.id);
  channels.flush();
  const taken = await second.keeper.takeOver();
  channels.flush();
  await settle();
  assert.equal(taken?.store.title, "First tab's work", "the second tab continues from what was saved");
  assert.equal(second.keeper.status.state, "saved");
  assert.equal(first.keeper.status.state, "taken");
  assert.match(statusMessage(first.keeper.status), /Another tab took this draft over, so this tab no longer saves it/);
  first.keeper.save(edited("Late edit in the first tab"));
  second.keeper.save(edited("Second tab's work"));
  await settle();
  assert.equal((await storage.get(meta.id))?.store.title, "Second tab's work");
});

test("opening a copy gives the second tab a draft of its own and leaves the first one's alone", async () => {
  const { tab, channels, storage } = browser();
  const first = tab();
  const { meta } = await first.keeper.start({ store: STORE, base: "file", original: "{}" });
  const second = tab();
  await second.keeper.open(meta.id);
  channels.flush();
  const copy = await second.keeper.copy();
  channels.flush();
  assert.ok(copy);
  assert.notEqual(copy.meta.id, meta.id);
  assert.equal(copy.meta.copyOf, meta.id);
  assert.equal(copy.original, "{}");
  assert.equal(second.keeper.status.state, "saved");
  assert.equal(first.keeper.status.state, "saved", "the first tab is no longer watched once the other left");
  second.keeper.save(edited("The copy"));
  first.keeper.save(edited("The original"));
  await settle();
  assert.equal((await storage.get(meta.id))?.store.title, "The original");
  assert.equal((await storage.get(copy.meta.id))?.store.title, "The copy");
  assert.equal(second.session.get(), copy.meta.id, "a reload of the second tab restores the copy");
});

test("without locks or a channel, a tab never writes over a save it has not seen", async () => {
  const { tab, storage } = browser({ locks: false, channel: false });
  const first = tab();
  const { meta } = await first.keeper.start({ store: STORE, base: "new" });
  const second = tab();
  await second.keeper.open(meta.id);
  second.keeper.save(edited("Second tab's edit"));
  await settle();
  first.keeper.save(edited("First tab's edit"));
  await settle();
  assert.equal(first.keeper.status.state, "conflict");
  assert.match(statusMessage(first.keeper.status), /stopped saving rather than write over it/);
  assert.equal((await storage.get(meta.id))?.store.title, "Second tab's edit");
  // The first tab keeps its own edit by opening a copy.
  const copy = await first.keeper.copy();
  await settle();
  assert.equal((await storage.get(copy?.meta.id ?? ""))?.store.title, "First tab's edit");
});

test("with a channel but no locks, the tab that writes answers and the newcomer stays back", async () => {
  const { tab, channels } = browser({ locks: false });
  const first = tab();
  const { meta } = await first.keeper.start({ store: STORE, base: "new" });
  const second = tab();
  await second.keeper.open(meta.id);
  channels.flush();
  assert.equal(second.keeper.status.state, "elsewhere");
  assert.equal(first.keeper.status.state, "watched");
  await second.keeper.takeOver();
  channels.flush();
  assert.equal(first.keeper.status.state, "taken");
  assert.equal(second.keeper.status.state, "saved");
});

test("a full storage is said plainly, points to Export, and saving resumes once space is freed", async () => {
  const { tab, storage } = browser();
  const one = tab();
  const { meta } = await one.keeper.start({ store: STORE, base: "new" });
  storage.full = true;
  one.keeper.save(edited("Does not fit"));
  await settle();
  assert.equal(one.keeper.status.state, "refused");
  assert.equal(one.keeper.status.reason, "quota");
  assert.match(statusMessage(one.keeper.status), /storage for the page is full.*not saved.*Export store keeps your work as a file/);
  // The tab still holds the edit, for Export.
  assert.equal(one.keeper.draft?.store.title, "Does not fit");
  storage.full = false;
  one.keeper.save(edited("Fits again"));
  await settle();
  assert.equal(one.keeper.status.state, "saved");
  assert.equal((await storage.get(meta.id))?.store.title, "Fits again");
});

test("a browser that refuses IndexedDB (private mode, storage off) is reported, naming why", async () => {
  const refusing = /** @type {IDBFactory} */ (/** @type {unknown} */ ({
    open() {
      throw new DOMException("The operation is insecure.", "SecurityError");
    },
  }));
  for (const factory of [refusing, undefined]) {
    const statuses = [];
    const keeper = createDraftKeeper({ storage: indexedDBStorage(factory), locks: null, channel: null, session: fakeSession(), onStatus: (s) => statuses.push(s) });
    const draft = await keeper.start({ store: STORE, base: "new" });
    assert.equal(draft.store.title, "Course memory", "the draft is still in the page, for Export");
    assert.equal(keeper.status.state, "refused");
    assert.equal(keeper.status.reason, "unavailable");
    assert.match(statusMessage(keeper.status), /does not let the page keep drafts \((SecurityError: The operation is insecure\.|IndexedDB is missing)\).*lost on reload.*Export store/);
  }
});

test("a refused write of IndexedDB named QuotaExceededError counts as full", async () => {
  const { refusal } = await import("../../site/js/editor/draft-keeper.js");
  assert.equal(refusal(new DOMException("quota", "QuotaExceededError")).reason, "quota");
  assert.equal(refusal(new DOMException("nope", "InvalidStateError")).reason, "unavailable");
  assert.ok(refusal(new StorageRefused("quota", "x")) instanceof StorageRefused);
});

test("closing forgets the tab's draft but keeps it in the list", async () => {
  const { tab } = browser();
  const one = tab();
  const { meta } = await one.keeper.start({ store: STORE, base: "new" });
  one.keeper.close();
  assert.equal(one.session.get(), null);
  assert.equal(await tab(one.session).keeper.restore(), null);
  const listed = await one.keeper.list();
  assert.deepEqual(listed.map((m) => m.id), [meta.id]);
  const reopened = tab();
  assert.equal((await reopened.keeper.open(meta.id))?.meta.id, meta.id);
  assert.equal(reopened.keeper.status.state, "saved", "closing released the lock");
});

test("with locks but no channel, the draft's lock alone tells both tabs", async () => {
  const { tab } = browser({ channel: false });
  const first = tab();
  const { meta } = await first.keeper.start({ store: STORE, base: "new" });
  const second = tab();
  await second.keeper.open(meta.id);
  assert.equal(second.keeper.status.state, "elsewhere");
  await second.keeper.takeOver();
  await settle();
  assert.equal(first.keeper.status.state, "taken", "the stolen lock tells the first tab");
  assert.equal(second.keeper.status.state, "saved");
});
