// The first plan request of a page, from its URL alone. The entry sends it before the app has
// loaded, the store's own first request is the same bytes, and the build answers the default
// page's one ahead of time (vite.config.js, prerender). No engine import: Node runs it too.
import { planEnvelope } from '../engine/envelope.js';
import { isEmbed } from './embed.js';
import { toScenario } from './scenario.js';
import { decodeHash } from './url.js';

/** Plans the store asks for: the ranked list of the planner. */
export const TOP_PLANS = 10;

/** Whether a page asks for the nearest GPU counts when nothing fits (not in embeds). */
export const wantsNearestGpus = (embed) => !embed;

/** The first plan request (JSON text) of the page at `hash` and `search`. */
export async function firstPlanRequest(hash, search) {
  const { state } = await decodeHash(hash);
  const envelope = planEnvelope(toScenario(state), TOP_PLANS, { nearestGpus: wantsNearestGpus(isEmbed(search)) });
  return JSON.stringify(envelope);
}

export { PRERENDERED_ID } from './prerendered-id.js';
