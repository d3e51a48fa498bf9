// The engine facade: the only module that talks to the wasm. JSON envelopes in and out
// (shared/spec/contract.md); ok:false becomes a PlannerError; infeasible plans are data.
// The generated module is imported lazily and created once, so the page shell renders first.

/** An error the engine reported (bad input) or an engine crash (code "internal"). */
export class PlannerError extends Error {
  constructor(code, message, path = '') {
    super(message);
    this.name = 'PlannerError';
    this.code = code;
    this.path = path;
  }
}

let modulePromise = null;

/** A performance mark for the e2e timing breakdown (no-op where unsupported). */
export function mark(name) {
  try { globalThis.performance?.mark?.(name); } catch { /* ignore */ }
}

/** Loads and instantiates the engine once; later calls share the same instance. */
export function loadEngine() {
  if (!modulePromise) {
    mark('pplan:engine-import');
    modulePromise = import('./generated/pplan.mjs')
      .then((generated) => { mark('pplan:engine-fetched'); return generated.default(); })
      .then((engine) => { mark('pplan:engine-ready'); return engine; })
      .catch((e) => {
        modulePromise = null;
        throw new PlannerError('internal', `the engine failed to load: ${e && e.message ? e.message : e}`);
      });
  }
  return modulePromise;
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

/** Runs one request and returns the engine's JSON text exactly as produced (for parity tests). */
export async function requestText(request) {
  const engine = await loadEngine();
  return callEngine(engine, typeof request === 'string' ? request : JSON.stringify(request));
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
export async function request(envelope) {
  return unwrap(await requestText(envelope));
}

export const plan = (scenario, top = 10) => request({ command: 'plan', scenario, top });
export const evaluate = (scenario) => request({ command: 'evaluate', scenario });
export const launch = (scenario, format) => request({ command: 'launch', scenario, format });
export const presets = () => request({ command: 'presets' });
export const engineVersion = async () => (await loadEngine()).version();
