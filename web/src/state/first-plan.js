// The first plan, asked for by the page's entry as soon as it can (before the app has loaded):
// the store's own first request, byte for byte, then takes this answer (engine prefetch). The
// default page's answer is already in the page (the build computed it with the same engine), so
// it shows before the engine has even compiled.
import { prefetch, seedAnswer } from '../engine/index.js';
import { PRERENDERED_ID, firstPlanRequest } from './first-plan-request.js';

export { TOP_PLANS, wantsNearestGpus } from './first-plan-request.js';

/** The build's answer to the request `json` when `doc` carries one for exactly that request. */
export function prerenderedAnswer(doc, json) {
  const element = doc.getElementById(PRERENDERED_ID);
  if (!element) return null;
  try {
    const { request, response } = JSON.parse(element.textContent);
    return request === json && typeof response === 'string' ? response : null;
  } catch {
    return null;
  }
}

/** Sends the first plan request of the page at `win`'s URL (or takes the build's answer). */
export async function prefetchFirstPlan(win) {
  const json = await firstPlanRequest(win.location.hash, win.location.search);
  const answer = prerenderedAnswer(win.document, json);
  if (answer) {
    seedAnswer(json, answer); // the engine starts after it is shown (main.jsx); the store asks for the presets
    return;
  }
  prefetch(json);
  // The preset names (the tab title, the form): with the first-plan engine ready before the app
  // has loaded, asking only when the app runs left the title on preset ids for a moment.
  prefetch({ command: 'presets', sources: false }); // as engine/index.js presets() asks
}
