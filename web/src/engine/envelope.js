// Request envelopes, apart from the engine facade (index.js imports the .wasm URLs, which only
// Vite resolves): the build's prerender (vite.config.js) builds the first plan request in Node.

/** The plan request; `nearestGpus`: when nothing fits, the nearest GPU counts that admit a plan. */
export const planEnvelope = (scenario, top = 10, { nearestGpus = false } = {}) =>
  (nearestGpus ? { command: 'plan', scenario, top, nearest_gpus: true } : { command: 'plan', scenario, top });
