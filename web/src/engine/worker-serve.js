// The engine off the main thread (squoosh's idea): typing stays smooth while a large search
// runs. One request at a time; the facade (index.js) queues and supersedes. The page compiles
// the .wasm once, while it downloads, and posts the compiled module to each worker that runs it;
// a worker given none downloads and compiles it itself. worker.js (the first-plan engine) and
// worker-full.js (every command) differ only in the module they serve.
import { instantiateStreaming } from './instantiate.js';

/** Answers the facade's messages with the engine `createPplan` builds from the .wasm at `wasmUrl`. */
export function serve(createPplan, wasmUrl) {
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
}
