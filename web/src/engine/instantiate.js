// Compiles the engine's .wasm while it downloads (WebAssembly.instantiateStreaming). Falls back
// to compiling the whole response where the server sends another MIME type than
// application/wasm. Pure (no module state).

/** Resolves to {instance, module} of the .wasm at `url` instantiated with `imports`. */
export function instantiateStreaming(url, imports, fetchImpl = fetch) {
  const whole = () => fetchImpl(url, { credentials: 'same-origin' })
    .then((response) => {
      if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
      return response.arrayBuffer();
    })
    .then((bytes) => WebAssembly.instantiate(bytes, imports));
  if (typeof WebAssembly.instantiateStreaming !== 'function') return whole();
  return WebAssembly.instantiateStreaming(fetchImpl(url, { credentials: 'same-origin' }), imports).catch(whole);
}

/** Resolves to the compiled WebAssembly.Module at `url`, compiled while it downloads. */
export function compileStreaming(url, fetchImpl = fetch) {
  const whole = () => fetchImpl(url, { credentials: 'same-origin' })
    .then((response) => {
      if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
      return response.arrayBuffer();
    })
    .then((bytes) => WebAssembly.compile(bytes));
  if (typeof WebAssembly.compileStreaming !== 'function') return whole();
  return WebAssembly.compileStreaming(fetchImpl(url, { credentials: 'same-origin' })).catch(whole);
}
