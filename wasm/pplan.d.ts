// Hand-written types for the generated module (build/wasm/wasm/pplan.mjs, copied to
// web/src/engine/generated/pplan.mjs by `npm run build:wasm`). The API is JSON text in and
// JSON text out; the JSON itself is described in core/include/pplan/io/api.h and the README.

/** One engine instance. Create it once and reuse it: each factory call makes a new instance. */
export interface PplanModule {
  /**
   * Runs one request envelope, e.g. `{"command":"plan","scenario":{...},"top":10}`.
   * Returns `{"ok":true,"schema_version":1,"engine_version":"...",...}` or
   * `{"ok":false,"schema_version":1,"error":{"code","path","message"}}`. Never throws for bad
   * input; a thrown number or WebAssembly.Exception means an engine bug.
   */
  handleRequest(requestJson: string): string;
  /** The engine version (the CMake project VERSION), separate from the schema version. */
  version(): string;
}

/** Module factory (-sMODULARIZE=1 -sEXPORT_NAME=createPplan -sEXPORT_ES6=1). */
export default function createPplan(overrides?: Record<string, unknown>): Promise<PplanModule>;
