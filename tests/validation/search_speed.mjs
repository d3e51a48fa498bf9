// The README's search-speed block: the searches of tests/bench/search_bench.cpp (Google
// Benchmark, native) and tests/bench/wasm_search_bench.mjs (the wasm engine under Node), as a
// Markdown table headed by the machine, the date and the load. Timings vary with both, so
// ctest checks only this block's format (tests/validation/readme_blocks.cpp).
//   node tests/validation/search_speed.mjs                     print the block
//   node tests/validation/search_speed.mjs --write README.md   replace it in README.md
// Needs `cmake --build --preset native` (pplan_bench_search); the wasm column needs
// `npm --prefix web run build:wasm` and reads "not built" without it.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const command = 'node tests/validation/search_speed.mjs';
const bench = `${root}build/native/tests/pplan_bench_search`;
const wasmEngine = `${root}web/src/engine/generated/pplan.wasm`;

// Names in search_bench.cpp -> names in wasm_search_bench.mjs and in the table.
const searches = [
  { native: 'Megatron1tOn3072A100', wasm: 'megatron-1t/3072 A100', label: 'megatron-1t on 3072 A100' },
  { native: 'Llama3_405bOn16384H100', wasm: 'llama3-405b/16384 H100', label: 'llama3-405b on 16384 H100' },
  { native: 'Mixtral8x7bOn256H100', wasm: 'mixtral-8x7b/256 H100', label: 'mixtral-8x7b on 256 H100' },
  { native: 'DeepseekV3On2048H100', wasm: 'deepseek-v3/2048 H100', label: 'deepseek-v3 on 2048 H100, FP8' },
];

if (!existsSync(bench)) {
  console.error(`search_speed: ${bench} is missing; build it with cmake --build --preset native`);
  process.exit(1);
}
// Best of five runs of every search, interleaved (five passes over the four, not five of one
// then five of the next): the shared machine's other load only ever adds time, and it drifts,
// so a ratio between two searches is fair only when each saw the same stretches of it.
const native = Array.from({ length: 5 }, () =>
  JSON.parse(execFileSync(bench, ['--benchmark_format=json'], { encoding: 'utf8' })).benchmarks,
)
  .flat()
  .filter((b) => b.run_type === 'iteration');
const wasmLines = existsSync(wasmEngine)
  ? execFileSync('node', [`${root}tests/bench/wasm_search_bench.mjs`], { encoding: 'utf8' }).split('\n')
  : [];

const timings = searches.map((s) => {
  const runs = native.filter((b) => b.run_name === s.native);
  if (runs.length === 0) throw new Error(`search_speed: no benchmark ${s.native} in pplan_bench_search`);
  const n = runs.reduce((best, b) => (b.real_time < best.real_time ? b : best));
  const line = wasmLines.find((l) => l.startsWith(`${s.wasm}:`));
  const m = line && line.match(/best ([0-9.]+) ms per plan request \(search alone ([0-9.]+) ms\)/);
  return { ...s, configs: n.configs, native_ms: n.real_time, wasm: m && { search: m[2], request: m[1] } };
});
const rows = timings.map((t) => {
  const wasm = t.wasm ? `${t.wasm.search} ms / ${t.wasm.request} ms` : 'not built';
  return `| ${t.label} | ${(t.configs / 1e6).toFixed(2)} M | ${t.native_ms.toFixed(1)} ms | ${wasm} |`;
});
// Issue #22's goal: the unpinned DeepSeek-V3 search within 3x the Llama 3 405B one, on both engines.
const [llama, deepseek] = ['Llama3_405bOn16384H100', 'DeepseekV3On2048H100'].map((name) =>
  timings.find((t) => t.native === name),
);
const times = (a, b) => `${(a / b).toFixed(1)}×`;
const ratio =
  `DeepSeek-V3 over Llama 3 405B: ${times(deepseek.native_ms, llama.native_ms)} native` +
  (deepseek.wasm && llama.wasm
    ? `, ${times(deepseek.wasm.search, llama.wasm.search)} wasm search alone, ` +
      `${times(deepseek.wasm.request, llama.wasm.request)} whole request`
    : ', wasm not built') +
  ' (goal, issue #22: at most 3× on both engines).';

const cpu = os.cpus();
const machine = `${cpu[0].model.replace(/\s+/g, ' ').trim()}`;
const date = new Date().toISOString().slice(0, 10);
const block = [
  `Measured by \`${command}\` on ${machine}, ${date}, ${cpu.length} ${cpu.length === 1 ? 'core' : 'cores'}, ` +
    `load average ${os.loadavg()[0].toFixed(1)}. Timings move with the machine and its load.`,
  '',
  '| search (nothing pinned) | configurations | native (best of 5) | wasm: search alone / whole request |',
  '|---|---|---|---|',
  ...rows,
  '',
  ratio,
  '',
].join('\n');

const at = process.argv.indexOf('--write');
if (at < 0) {
  process.stdout.write(block);
} else {
  const path = process.argv[at + 1] ?? 'README.md';
  const begin = `<!-- ${command}: begin -->\n`;
  const end = `<!-- ${command}: end -->`;
  const text = readFileSync(path, 'utf8');
  const i = text.indexOf(begin);
  const j = text.indexOf(end, i);
  if (i < 0 || j < 0) {
    console.error(`search_speed: ${path} has no block ${begin.trim()} ... ${end}`);
    process.exit(1);
  }
  writeFileSync(path, text.slice(0, i + begin.length) + block + text.slice(j));
  console.log(`search_speed: wrote the block in ${path}`);
}
