// The engine facade: the only module that talks to the wasm. JSON envelopes in and out
// (README "Scenario format"); ok:false becomes a PlannerError; infeasible plans are data.
// In a browser the engine runs in a module Worker (worker.js); where there is no Worker
// (Node, jsdom tests) it is imported lazily into this thread. Either way it is created once
// and the API is async, so callers do not care where it runs.

/** An error the engine reported (bad input) or an engine crash (code "internal"). */
export class PlannerError extends Error {
  constructor(code, message, path = '') {
    super(message);
    this.name = 'PlannerError';
    this.code = code;
    this.path = path;
  }
}

/** A performance mark for the e2e timing breakdown (no-op where unsupported). */
export function mark(name) {
  try { globalThis.performance?.mark?.(name); } catch { /* ignore */ }
}

/** Calls an engine instance; anything it throws becomes PlannerError('internal'). */
export function callEngine(engine, requestJson) {
  try {
    const text = engine.handleRequest(requestJson);
    if (typeof text !== 'string') throw new Error('no text');
    return text;
  } catch {
    // C++ never throws across the boundary; a number or WebAssembly.Exception here is a bug.
    throw new PlannerError('internal', 'engine crashed');
  }
}

const loadFailed = (e) => new PlannerError('internal', `the engine failed to load: ${e && e.message ? e.message : e}`);

function inThreadBackend() {
  const engine = import('./generated/pplan.mjs').then((generated) => generated.default());
  return {
    ready: engine.then(() => undefined, (e) => { throw loadFailed(e); }),
    call: async (json) => callEngine(await engine.catch((e) => { throw loadFailed(e); }), json),
  };
}

/**
 * A backend over a Worker-like object ({postMessage, onmessage, onerror}) speaking worker.js's
 * protocol: one request in flight; queued requests on the same channel superseded by newer ones.
 */
export function createWorkerBackend(worker) {
  const queue = [];
  let current = null;
  let nextId = 1;
  let dead = null;
  let settleReady;
  const ready = new Promise((resolve, reject) => { settleReady = { resolve, reject }; });
  ready.catch(() => {});

  const fail = (error) => {
    dead = error;
    settleReady.reject(error);
    for (const job of [current, ...queue.splice(0)].filter(Boolean)) job.reject(error);
    current = null;
  };
  const pump = () => {
    if (current || dead || !queue.length) return;
    current = queue.shift();
    worker.postMessage({ id: current.id, request: current.json });
  };
  worker.onmessage = ({ data }) => {
    if (data.type === 'ready') settleReady.resolve();
    else if (data.type === 'failed') fail(loadFailed(data.message));
    else if (data.type === 'reply' && current && data.id === current.id) {
      const job = current;
      current = null;
      if (data.crashed) job.reject(new PlannerError('internal', 'engine crashed'));
      else job.resolve(data.text);
      pump();
    }
  };
  worker.onerror = (event) => { event.preventDefault?.(); fail(loadFailed(event.message || 'worker error')); };

  return {
    ready,
    /** Queues a request; a newer request on the same channel replaces a queued older one. */
    call(json, channel) {
      if (dead) return Promise.reject(dead);
      return new Promise((resolve, reject) => {
        if (channel) {
          for (let i = queue.length - 1; i >= 0; i--) {
            if (queue[i].channel === channel) {
              queue[i].reject(new PlannerError('superseded', 'superseded by a newer request'));
              queue.splice(i, 1);
            }
          }
        }
        queue.push({ id: nextId++, json, channel, resolve, reject });
        pump();
      });
    },
  };
}

function workerBackend() {
  return createWorkerBackend(new Worker(new URL('./worker.js', import.meta.url), { type: 'module', name: 'pplan-engine' }));
}

let backend = null;

function getBackend() {
  if (!backend) {
    mark('pplan:engine-start');
    if (typeof window !== 'undefined' && typeof Worker === 'function') {
      try {
        backend = workerBackend();
      } catch {
        backend = inThreadBackend();
      }
    } else {
      backend = inThreadBackend();
    }
    backend.ready.then(() => mark('pplan:engine-ready'), () => {});
  }
  return backend;
}

/** Starts the engine (download, compile) once; resolves when it can answer. */
export function loadEngine() {
  return getBackend().ready;
}

/** Runs one request and returns the engine's JSON text exactly as produced (for parity tests).
 * `channel`: requests on the same channel supersede each other while queued. */
export async function requestText(request, channel) {
  return getBackend().call(typeof request === 'string' ? request : JSON.stringify(request), channel);
}

/** Parses an envelope: the body when ok, otherwise throws its PlannerError. */
export function unwrap(text) {
  let envelope;
  try {
    envelope = JSON.parse(text);
  } catch {
    throw new PlannerError('internal', 'engine returned malformed JSON');
  }
  if (!envelope || typeof envelope !== 'object') throw new PlannerError('internal', 'engine returned no object');
  if (envelope.ok === true) return envelope;
  const error = envelope.error || {};
  throw new PlannerError(String(error.code || 'internal'), String(error.message || 'unknown engine error'),
                         String(error.path || ''));
}

/** Runs one request envelope ({command, scenario, top, format}); resolves to the body. */
export async function request(envelope, channel) {
  return unwrap(await requestText(envelope, channel));
}

export const plan = (scenario, top = 10, channel) => request({ command: 'plan', scenario, top }, channel);
export const evaluate = (scenario) => request({ command: 'evaluate', scenario });
export const launch = (scenario, format) => request({ command: 'launch', scenario, format }, 'launch');
export const report = (scenario) => request({ command: 'report', scenario }, 'report');
/** The layout picture's replica view of the scenario's chosen plan (layout.h replica_view). */
export const layoutView = (scenario) => request({ command: 'layout_view', scenario }, 'layout');
export const presets = () => request({ command: 'presets' });
export const engineVersion = async () => (await request({ command: 'version' })).engine_version;
