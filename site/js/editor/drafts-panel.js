// The store panel's draft parts: a store link opened, a saved draft restored, Export,
// Copy link, and what the draft keeper says (another tab, a full storage).
//
// A store from a link or a draft is opened like a file (panels/store-opening.js's
// opener: the engine's parser, the same messages). The link's fragment leaves the
// address once read, and its store becomes this tab's draft, so a reload finds the
// draft rather than the link's first state. Like a file, the store in force is also
// remembered for the tab (browser/store-file.js), which the page reads before its
// first frame: the address's policy is then read against that store, and a restored
// draft that holds the same store needs no second opening.

import { rememberStore, rememberedText } from "../browser/store-file.js";
import { addressParams } from "../core/page-core.js";
import { storeOpener } from "../panels/store-opening.js";
import { statusMessage } from "./draft-keeper.js";
import { exportStore, exportText, originalOf, rememberOriginal, sameJSON, storeText } from "./store-file-io.js";
import { linkPayload, readStoreLink, storeLink, withoutStoreLink } from "./store-link.js";

/** @param {import("../panels/context.js").Context} context @returns {import("../panels/context.js").Handlers} */
export function setUp(context) {
  const { byId, state, drafts, started } = context;
  const opener = storeOpener(context);
  const hint = byId("store-hint");
  const linkStatus = byId("store-link-status");
  const linkText = /** @type {HTMLInputElement} */ (byId("store-link-text"));
  const draftBox = byId("draft-status");
  const takeOver = byId("draft-take-over");
  const copy = byId("draft-copy");

  // A store file remembered for this tab across a reload exports as that file.
  if (state().custom) {
    const text = rememberedText();
    if (text !== null) rememberOriginal(state().store, text);
  }

  /**
   * Open a draft's store in the workbench (as kept: it may be the file it came from, unchanged).
   * @param {import("./draft-keeper.js").Draft} draft @param {string} how
   */
  const showDraft = async (draft, how) => {
    const text = exportText(draft.store, draft.original);
    const store = sameJSON(state().store, draft.store) ? state().store : await opener.open("Your saved draft", text, performance.now());
    if (!store) return null;
    if (draft.original !== null) rememberOriginal(store, draft.original);
    rememberStore(text);
    hint.textContent = `${how} your draft “${store.title}”: ${store.records.length} records.`;
    return store;
  };

  drafts.listen((status) => {
    byId("draft-status-text").textContent = statusMessage(status);
    draftBox.hidden = status.state === "idle";
    draftBox.dataset.state = status.state;
    const choose = status.state === "elsewhere" || status.state === "taken" || status.state === "conflict";
    takeOver.hidden = !choose;
    copy.hidden = !choose;
    takeOver.textContent = status.state === "taken" ? "Take it back" : "Take it over here";
  });
  takeOver.addEventListener("click", async () => {
    const draft = await drafts.takeOver();
    if (draft) await showDraft(draft, "Took over");
  });
  copy.addEventListener("click", () => drafts.copy());

  byId("store-export").addEventListener("click", () => {
    const { store } = state();
    const { name } = exportStore(store, originalOf(store));
    linkStatus.textContent = `Exported ${name}: open it with “Open a store file”, here or in any copy of this page.`;
  });

  byId("store-link").addEventListener("click", async () => {
    // The link keeps the page's options (stage, hidden controls…), not its policy: the
    // policy is read before the link's store is opened, against the site's own.
    const page = new URL(`?${new URLSearchParams(addressParams(state()))}`, location.href).href;
    const link = await storeLink(state().store, page);
    linkText.hidden = !link.ok;
    if (!link.ok) {
      linkStatus.textContent = link.message;
      return;
    }
    linkText.value = link.url;
    linkText.select();
    try {
      await navigator.clipboard.writeText(link.url);
      linkStatus.textContent =
        `Link copied (${link.chars.toLocaleString("en")} characters): it opens this store in the workbench. ` +
        "The store travels in the link itself; no server sees it.";
    } catch {
      linkStatus.textContent = "The browser refused clipboard access here: the link is selected below, copy it yourself.";
    }
  });

  /** Open the store a link's fragment carries, then drop the fragment from the address. @param {string} hash */
  const openLink = async (hash) => {
    history.replaceState(history.state, "", withoutStoreLink(location.href));
    const read = await readStoreLink(hash);
    const name = "This link's store";
    if (!read.ok) return opener.refuse(name, read.problems);
    const store = await opener.open(name, read.text, performance.now());
    if (!store) return;
    hint.textContent = `Opened “${store.title}” from the link: ${store.records.length} records, scored over this store's own vocabulary.`;
    // Kept in the file layout, not the link's compact text: it is what Export writes after a reload.
    rememberStore(storeText(store));
    await drafts.start({ store, base: "link" });
  };
  // A store link pasted into the address bar of this page changes only its fragment.
  addEventListener("hashchange", () => {
    if (linkPayload(location.hash) !== null) openLink(location.hash);
  });
  const hash = location.hash;
  if (linkPayload(hash) !== null) started.then(() => openLink(hash));
  else {
    Promise.all([drafts.restore(), started]).then(([draft]) => {
      if (draft) showDraft(draft, "Restored");
    });
  }
  return {};
}
