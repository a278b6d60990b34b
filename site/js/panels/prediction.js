// The prediction panel: the learner's guess at the tray, checked at stage 4.
//
// Predict the tray: the learner marks the records they expect to be selected. Guesses
// stay open before stage 4; at stage 4 they are locked and checked.

import { html } from "../views/html.js";
import { awaitsPrediction } from "../core/guided.js";
import { checkPrediction } from "../core/observations.js";
import { renderVerdict } from "../views/prediction.js";
import { place, setDisabled, showPredictionChoices } from "../views/view.js";

/** @param {import("./context.js").Context} context @returns {import("./context.js").Handlers} */
export function setUp({ byId, dispatch, state, player, placed }) {
  const choices = /** @type {HTMLFieldSetElement} */ (byId("prediction-choices"));
  const predicted = () =>
    [...choices.querySelectorAll('input[name="predict"]:checked')].map((input) => /** @type {HTMLInputElement} */ (input).value);

  // The ids go with the event: the check reported to an LMS reads them from the state.
  choices.addEventListener("change", (event) => dispatch({ type: "prediction-changed", predicted: predicted(), at: event.timeStamp }));
  byId("prediction-verdict").addEventListener("click", (event) => {
    if (!(/** @type {HTMLElement} */ (event.target).closest("[data-show-tray]"))) return;
    // The choices as they stand are the prediction, none marked an empty tray: it is checked.
    if (!state().guided.predictionMade) dispatch({ type: "prediction-changed", predicted: predicted(), at: event.timeStamp });
    player.showStage(4);
  });
  byId("prediction-clear").addEventListener("click", () => {
    for (const input of choices.querySelectorAll('input[name="predict"]')) /** @type {HTMLInputElement} */ (input).checked = false;
    dispatch({ type: "prediction-cleared" });
  });
  return {
    "show-prediction": () => {
      const { guided: { predictionMade }, shown } = state();
      const final = player.stage === 4;
      setDisabled(choices, final);
      if (!final && awaitsPrediction(state())) {
        // A guided step waiting for its prediction before its tray (guided.js guideStep): the
        // button under the choices goes to the tray, as Next stage does, far up a phone's page.
        const ask = predictionMade ? "Prediction recorded: check it to see the tray" : "Predict first: mark the records you expect in the tray, then check them to see it";
        place(placed, "prediction-verdict", html`<p>${ask} (Next stage does too). Your LMS records the check.</p><button type="button" class="primary" data-show-tray>Check and show the tray</button>`);
      } else if (!final) {
        place(placed, "prediction-verdict", predictionMade ? html`Prediction recorded; it is checked when the inspection reaches stage 4.` : "");
      } else if (predictionMade) {
        place(placed, "prediction-verdict", renderVerdict(checkPrediction(predicted(), shown), predicted()));
      } else {
        place(placed, "prediction-verdict", html`To predict, press Restart inspection, mark the records you expect, then Play.`);
      }
    },
    // A guided step asks for its prediction before its tray: the choices come into view.
    "ask-prediction": () => {
      byId("prediction-title").closest("section")?.scrollIntoView({ block: "start" });
    },
    // One box per record on the current page; turning pages keeps what was marked.
    "show-prediction-choices": ({ keep }) => {
      const { store, page } = state();
      showPredictionChoices(store.records, page, new Set(keep ? predicted() : []));
    },
  };
}
