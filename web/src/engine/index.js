// The engine facade: the only module that talks to the wasm. JSON envelopes in and out
// (docs/cli.md, scenario fields); ok:false becomes a PlannerError; infeasible plans are data.
// The engine is built twice from the same core (wasm/README.md): the first-plan engine
// (pplan-plan.wasm) answers every command but FULL_COMMANDS; the full one (pplan.wasm) answers
// all of them and loads only when one of those is first asked (the launch, report or import panel).
// In a browser the engines run in module Workers: one first-plan engine answers the planner, a
// second one (started after the first plan) draws the pictures of the whole search, so a long
// landscape or scaling sweep never delays the next plan; a third worker runs the full engine.
// Where there is no Worker (Node, jsdom tests) the engines are imported lazily into this thread
// (node-engine.js, never bundled). Either way the API is async, so callers do not care where it runs.

import { planEnvelope } from './envelope.js';
import firstPlanWasmUrl from './generated/pplan-plan.wasm?url';
import fullWasmUrl from './generated/pplan.wasm?url';
import { compileStreaming } from './instantiate.js';

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

// A variable, so Vite leaves the import alone: the page never loads node-engine.js (it reads the
// .wasm from disk); only Node, which has no Worker, does.
const NODE_ENGINE = './node-engine.js';

function inThreadBackend(kind) {
  const engine = import(/* @vite-ignore */ NODE_ENGINE).then((loaded) => loaded.default(kind === 'full' ? 'full' : 'plan'));
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
    /** Sends a message outside the request queue (the compiled module for another worker). */
    post: (message) => worker.postMessage(message),
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

// Literal `new URL(...)`s, so Vite bundles each worker with its own engine's glue.
function workerBackend(kind) {
  const worker = kind === 'full'
    ? new Worker(new URL('./worker-full.js', import.meta.url), { type: 'module', name: 'pplan-full' })
    : new Worker(new URL('./worker.js', import.meta.url), { type: 'module', name: kind === 'planner' ? 'pplan-engine' : 'pplan-pictures' });
  return createWorkerBackend(worker);
}

const backends = {};
const compiled = {};

/** An engine compiled once, in this thread, while it downloads (null when that failed: each
 * worker then loads it itself). The planner's and the pictures' workers share the first-plan one. */
function compiledEngine(url) {
  if (!compiled[url]) compiled[url] = compileStreaming(url).catch(() => null);
  return compiled[url];
}
/** Channels answered by the pictures engine; every other request goes to the planner's. */
const PICTURE_CHANNELS = new Set(['landscape', 'scaling']);
/** The commands only the full engine answers (the first-plan one says request.not_in_this_engine;
 * tests/engine.test.js checks both lists against the engines). */
export const FULL_COMMANDS = new Set(['launch', 'report', 'import_model', 'calibrate']);

/** The request as an object, or null when it is not JSON (the planner's engine says why). */
function objectOf(request) {
  if (typeof request !== 'string') return request;
  try {
    return JSON.parse(request);
  } catch {
    return null;
  }
}

/** Whether only the full engine answers `request`: FULL_COMMANDS, and the presets with their
 * sources (the first-plan engine carries the presets without them: wasm/CMakeLists.txt). */
export function needsFullEngine(request) {
  const object = objectOf(request);
  const command = String(object?.command ?? '');
  return FULL_COMMANDS.has(command) || (command === 'presets' && object?.sources !== false);
}

function getBackend(kind = 'planner') {
  if (!backends[kind]) {
    const hasWorker = typeof window !== 'undefined' && typeof Worker === 'function';
    if (!hasWorker && kind === 'pictures') return getBackend('planner'); // one first-plan engine in Node
    if (kind === 'planner') mark('pplan:engine-start');
    let backend;
    try {
      backend = hasWorker ? workerBackend(kind) : inThreadBackend(kind);
    } catch {
      backend = inThreadBackend(kind);
    }
    const url = kind === 'full' ? fullWasmUrl : firstPlanWasmUrl;
    if (backend.post) compiledEngine(url).then((module) => backend.post({ type: 'module', module }));
    if (kind === 'planner') backend.ready.then(() => mark('pplan:engine-ready'), () => {});
    backends[kind] = backend;
  }
  return backends[kind];
}

/** Starts the planner's engine (download, compile) once; resolves when it can answer. */
export function loadEngine() {
  return getBackend('planner').ready;
}

/** Starts the pictures engine (after the first plan: it compiles from the HTTP cache). */
export function loadPicturesEngine() {
  return getBackend('pictures').ready;
}

const prefetched = new Map(); // request JSON -> its answer (a promise), asked for before the app ran

/** Sends a request (an envelope or its JSON text) now (the first plan, from the page's entry,
 * while the app still loads); the same request made later takes this answer instead of asking again. */
export function prefetch(envelope) {
  const json = typeof envelope === 'string' ? envelope : JSON.stringify(envelope);
  if (prefetched.has(json)) return;
  // No channel: one prefetch (the first plan, the presets) must never supersede another.
  const answer = getBackend('planner').call(json);
  answer.catch(() => {}); // whoever takes the answer sees its error; nobody may take it
  prefetched.set(json, answer);
}

/** Gives the request `json` the answer `text` the same engine computed ahead of time (the build's
 * prerendered first plan): the same request made later takes it without asking the engine. */
export function seedAnswer(json, text) {
  if (!prefetched.has(json)) prefetched.set(json, Promise.resolve(text));
}

/** Runs one request and returns the engine's JSON text exactly as produced (for parity tests).
 * `channel`: requests on the same channel supersede each other while queued. */
export async function requestText(request, channel) {
  const json = typeof request === 'string' ? request : JSON.stringify(request);
  const early = prefetched.get(json);
  if (early) {
    prefetched.delete(json);
    return early;
  }
  const kind = needsFullEngine(request) ? 'full' : PICTURE_CHANNELS.has(channel) ? 'pictures' : 'planner';
  return getBackend(kind).call(json, channel);
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

export { planEnvelope };
/** The ranked plans of a scenario. */
export const plan = (scenario, top = 10, channel, options = {}) => request(planEnvelope(scenario, top, options), channel);
export const evaluate = (scenario) => request({ command: 'evaluate', scenario });
export const launch = (scenario, format) => request({ command: 'launch', scenario, format }, 'launch');
export const report = (scenario) => request({ command: 'report', scenario }, 'report');
/** The layout picture's replica view of the scenario's chosen plan (layout.h replica_view). */
export const layoutView = (scenario) => request({ command: 'layout_view', scenario }, 'layout');
/** The timeline picture's pipeline schedule of the scenario's chosen plan (pipeline_schedule.h). */
export const schedule = (scenario) => request({ command: 'schedule', scenario }, 'schedule');
/** A Hugging Face config.json as a pplan model: {model, mapped_from, notes} (hf_config.h). */
export const importModel = (config) => request({ command: 'import_model', config }, 'import');
/** The presets without their sources (the page shows none): the first-plan engine answers. */
export const presets = () => request({ command: 'presets', sources: false });
/** Refits the constants pasted nccl-tests outputs and measured steps identify (calibrate/fit.h):
 * {gpu, constants, measurements, rms_log_error, notes, plan_before, plan_after, ...}. */
export const calibrate = (scenario, ncclTests, steps) => request({
  command: 'calibrate', scenario, ...(ncclTests.length ? { nccl_tests: ncclTests } : {}), ...(steps.length ? { steps } : {}),
}, 'calibrate');
/** A bounded sample of the feasible configurations, the Pareto front, the ranked plans marked
 * (search/landscape.h); `top` must match the plan request's so the ranks agree. */
export const landscape = (scenario, top = 10) => request({ command: 'landscape', scenario, top }, 'landscape');
/** The search's best plan at GPU counts around the cluster's (scaling_sweep). */
export const scaling = (scenario) => request({ command: 'scaling', scenario }, 'scaling');
export const engineVersion = async () => (await request({ command: 'version' })).engine_version;
