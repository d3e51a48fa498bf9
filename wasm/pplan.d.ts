// Hand-written types for the generated module (build/wasm/wasm/pplan.mjs and pplan.wasm, copied
// to web/src/engine/generated/ by `npm run build:wasm`). The API is JSON text in and JSON text
// out; the JSON itself is described in core/include/pplan/io/api.h and the README.

/** One engine instance. Create it once and reuse it: each factory call makes a new instance. */
export interface PplanModule {
  /**
   * Runs one request envelope, e.g. `{"command":"plan","scenario":{...},"top":10}`.
   * Returns `{"ok":true,"schema_version":1,"engine_version":"...",...}` or
   * `{"ok":false,"schema_version":1,"error":{"code","path","message"}}`. Never throws for bad
   * input; an exception means an engine bug (or memory exhausted).
   */
  handleRequest(requestJson: string): string;
  /** The engine version (the CMake project VERSION), separate from the schema version. */
  version(): string;
}

/** Ways to hand the factory the .wasm (it is a separate file). */
export interface PplanOverrides {
  /** The .wasm bytes (Node: Node 20's fetch cannot read file: URLs). */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** Emscripten's hook: instantiate `imports` yourself (the page: a module compiled while it
   * downloaded), call receiveInstance(instance, module), return {}. */
  instantiateWasm?: (imports: WebAssembly.Imports,
                     receiveInstance: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void) => object;
}

/** Module factory (-sMODULARIZE=1 -sEXPORT_NAME=createPplan -sEXPORT_ES6=1). */
export default function createPplan(overrides?: PplanOverrides): Promise<PplanModule>;
