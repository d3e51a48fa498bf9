// The engine off the main thread (squoosh's idea): typing stays smooth while a large search
// runs. One request at a time; the facade (index.js) queues and supersedes. The page compiles
// the .wasm once, while it downloads, and posts the compiled module to each worker (the planner's
// and the pictures'); a worker given none downloads and compiles it itself.
import createPplan from './generated/pplan.mjs';
import wasmUrl from './generated/pplan.wasm?url';
import { instantiateStreaming } from './instantiate.js';

const failed = (e) => self.postMessage({ type: 'failed', message: String(e && e.message ? e.message : e) });
let giveModule = null;
const moduleGiven = new Promise((resolve) => { giveModule = resolve; });

const ready = createPplan({
  // Emscripten calls this instead of fetching the .wasm itself; the exports arrive later.
  instantiateWasm(imports, receiveInstance) {
    moduleGiven
      .then((module) => (module
        ? WebAssembly.instantiate(module, imports).then((instance) => ({ instance, module }))
        : instantiateStreaming(wasmUrl, imports)))
      .then(({ instance, module }) => receiveInstance(instance, module), failed);
    return {};
  },
});
ready.then(() => self.postMessage({ type: 'ready' }), failed);

self.onmessage = async (event) => {
  if (event.data.type === 'module') {
    giveModule(event.data.module || null);
    return;
  }
  const { id, request } = event.data;
  let engine;
  try {
    engine = await ready;
  } catch {
    self.postMessage({ type: 'reply', id, crashed: true });
    return;
  }
  try {
    const text = engine.handleRequest(request);
    self.postMessage({ type: 'reply', id, text });
  } catch {
    self.postMessage({ type: 'reply', id, crashed: true });
  }
};
