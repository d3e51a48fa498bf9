// The engine in this thread, for Node (Vitest, scripts): Node 20's fetch cannot read file:
// URLs, so the .wasm bytes are read from disk and given to Emscripten as `wasmBinary`.
// Never bundled into the page (index.js imports it only where there is no Worker).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import createPplan from './generated/pplan.mjs';

// A string, not `new URL(...)`: under jsdom the global URL is jsdom's, which Node's fs refuses.
const wasmPath = fileURLToPath(import.meta.url.replace(/[^/]*$/, 'generated/pplan.wasm'));

export default function createNodeEngine() {
  return createPplan({ wasmBinary: readFileSync(wasmPath) });
}
