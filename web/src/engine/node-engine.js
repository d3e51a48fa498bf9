// The engines in this thread, for Node (Vitest, scripts): Node 20's fetch cannot read file:
// URLs, so the .wasm bytes are read from disk and given to Emscripten as `wasmBinary`.
// Never bundled into the page (index.js imports it only where there is no Worker).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import createFirstPlan from './generated/pplan-plan.mjs';
import createFull from './generated/pplan.mjs';

// A string, not `new URL(...)`: under jsdom the global URL is jsdom's, which Node's fs refuses.
const wasmPath = (name) => fileURLToPath(import.meta.url.replace(/[^/]*$/, `generated/${name}`));

/** `kind`: 'plan' for the first-plan engine (pplan-plan.wasm), 'full' for every command. */
export default function createNodeEngine(kind = 'plan') {
  return kind === 'full'
    ? createFull({ wasmBinary: readFileSync(wasmPath('pplan.wasm')) })
    : createFirstPlan({ wasmBinary: readFileSync(wasmPath('pplan-plan.wasm')) });
}
