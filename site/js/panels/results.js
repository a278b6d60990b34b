// The results panel: the result views, the chosen record, paging and notices.
//
// The result views (cards, diagram, table, tray, chart, score breakdown), the record
// whose score is explained, paging through large stores, the pending mark and notices.

import { defaultChoice, labelsOf } from "../core/page-core.js";
import { trueSinceOf } from "../views/timeline.js";
import { adoptPrerendered, setPending, showChosen, showNotices, showResult } from "../views/view.js";

/** @param {import("./context.js").Context} context @returns {import("./context.js").Handlers} */
export function setUp({ byId, dispatch, state, boot, placed }) {
  const experiment = byId("experiment");
  byId("records-body").addEventListener("click", (event) => {
    const button = /** @type {HTMLElement} */ (event.target).closest("[data-choose]");
    if (button instanceof HTMLElement && button.dataset.choose) dispatch({ type: "choose-record", id: button.dataset.choose });
  });
  byId("page-previous").addEventListener("click", () => dispatch({ type: "turn-page", step: -1 }));
  byId("page-next").addEventListener("click", () => dispatch({ type: "turn-page", step: 1 }));
  return {
    // The views hold the build's result for the site's own store, as tools/prerender.mjs made it.
    "adopt-prerendered": () =>
      adoptPrerendered(placed, boot.result, {
        tenantLabels: labelsOf(boot.store),
        chosenId: defaultChoice(boot.result),
        page: 0,
        trueSince: trueSinceOf(boot.store.records),
      }),
    "show-result": () => {
      const { shown, tenantLabels, chosenId, choice, page, store } = state();
      showResult(placed, shown, { tenantLabels, chosenId, choice, page, trueSince: trueSinceOf(store.records) });
    },
    "show-chosen": () => showChosen(placed, state().shown, state().chosenId, state().choice),
    pending: ({ text }) => setPending(text),
    "show-notices": ({ messages }) => showNotices(messages),
    // The policy asked for last and the one the views show, as query strings: a test
    // waits for the two to agree. Neither attribute is styled, so writing them costs no
    // style or layout pass.
    "mark-asked": ({ query }) => {
      experiment.dataset.askedPolicy = query;
    },
    "mark-shown": ({ query }) => {
      if (experiment.dataset.shownPolicy !== query) experiment.dataset.shownPolicy = query;
    },
  };
}
