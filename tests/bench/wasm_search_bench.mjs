// The same searches as search_bench.cpp, in the wasm engine under Node (issue #3: < 100 ms).
// Run after `npm --prefix web run build:wasm`: node tests/bench/wasm_search_bench.mjs
import createNodeEngine from '../../web/src/engine/node-engine.js';
const m = await createNodeEngine();
const cases = {
  'megatron-1t/3072 A100': {model:'megatron-1t',cluster:{gpu:'a100-80gb',gpus:3072,gpus_per_node:8},training:{seq_len:2048,global_batch:3072}},
  'llama3-405b/16384 H100': {model:'llama3-405b',cluster:{gpu:'h100-sxm',gpus:16384,gpus_per_node:8},training:{seq_len:8192,global_batch:2048}},
  'mixtral-8x7b/256 H100': {model:'mixtral-8x7b',cluster:{gpu:'h100-sxm',gpus:256,gpus_per_node:8},training:{seq_len:4096,global_batch:1024,precision:'bf16'}},
  'deepseek-v3/2048 H100': {model:'deepseek-v3',cluster:{gpu:'h100-sxm',gpus:2048,gpus_per_node:8},training:{seq_len:4096,global_batch:15360,precision:'fp8'}},
};
for (const [name, scenario] of Object.entries(cases)) {
  const req = JSON.stringify({command:'plan', scenario, top:10});
  m.handleRequest(req);
  const runs = 10; let best = 1e9, total = 0, inner = 1e9;
  for (let i = 0; i < runs; i++) { const t0 = performance.now(); const r = JSON.parse(m.handleRequest(req)); const dt = performance.now() - t0; best = Math.min(best, dt); total += dt; inner = Math.min(inner, r.timing.elapsed_ms); }
  console.log(`${name}: best ${best.toFixed(1)} ms per plan request (search alone ${inner.toFixed(1)} ms), mean ${(total/runs).toFixed(1)} ms`);
}
