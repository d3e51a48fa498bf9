// The first plan, asked for by the page's entry as soon as it can (before the app has loaded):
// the store's own first request, byte for byte, then takes this answer (engine prefetch).
import { planEnvelope, prefetch } from '../engine/index.js';
import { isEmbed } from './embed.js';
import { toScenario } from './scenario.js';
import { decodeHash } from './url.js';

/** Plans the store asks for: the ranked list of the planner. */
export const TOP_PLANS = 10;

/** Whether a page asks for the nearest GPU counts when nothing fits (not in embeds). */
export const wantsNearestGpus = (embed) => !embed;

/** Sends the first plan request of the page at `win`'s URL. */
export async function prefetchFirstPlan(win) {
  const { state } = await decodeHash(win.location.hash);
  const embed = isEmbed(win.location.search);
  prefetch(planEnvelope(toScenario(state), TOP_PLANS, { nearestGpus: wantsNearestGpus(embed) }));
  // The preset names (the tab title, the form): with the first-plan engine ready before the app
  // has loaded, asking only when the app runs left the title on preset ids for a moment.
  prefetch({ command: 'presets' });
}
