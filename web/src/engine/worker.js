// The engine off the main thread (squoosh's idea): typing stays smooth while a large search
// runs. One request at a time; the facade (index.js) queues and supersedes.
import createPplan from './generated/pplan.mjs';

const ready = createPplan();
ready.then(() => self.postMessage({ type: 'ready' }),
  (e) => self.postMessage({ type: 'failed', message: String(e && e.message ? e.message : e) }));

self.onmessage = async (event) => {
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
