// Builds the wasm engines with the `wasm` CMake preset and copies build/wasm/wasm/pplan-plan.{mjs,wasm}
// (the first-plan engine: glue and wasm) and pplan.{mjs,wasm} (the full engine) to
// src/engine/generated/ (gitignored). `--if-needed` (used by build/test scripts) skips
// the configure step when build/wasm is already configured: CMake then rebuilds only what changed.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const web = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const root = resolve(web, '..');
const FILES = ['pplan-plan.mjs', 'pplan-plan.wasm', 'pplan.mjs', 'pplan.wasm'];
const built = (f) => resolve(root, 'build/wasm/wasm', f);
const target = (f) => resolve(web, 'src/engine/generated', f);
// emcc's optimiser needs Debian's acorn (Debian ships acorn in /usr/share/nodejs; nodesource Node does not search it).
const env = { ...process.env, NODE_PATH: process.env.NODE_PATH || '/usr/share/nodejs' };
const ifNeeded = process.argv.includes('--if-needed');

function run(args) {
  execFileSync('cmake', args, { cwd: root, env, stdio: ['ignore', 'inherit', 'inherit'] });
}

function haveCmake() {
  try {
    execFileSync('cmake', ['--version'], { stdio: 'ignore' });
    return existsSync('/usr/share/emscripten/cmake/Modules/Platform/Emscripten.cmake');
  } catch {
    return false;
  }
}

if (ifNeeded && !haveCmake()) {
  if (FILES.every((f) => existsSync(target(f)))) process.exit(0);
  console.error('pplan: no Emscripten toolchain and no src/engine/generated/pplan{,-plan}.{mjs,wasm}: run `npm run build:wasm`');
  process.exit(1);
}
if (!ifNeeded || !existsSync(resolve(root, 'build/wasm/CMakeCache.txt'))) run(['--preset', 'wasm']);
run(['--build', '--preset', 'wasm']);
mkdirSync(dirname(target(FILES[0])), { recursive: true });
for (const f of FILES) {
  if (!existsSync(target(f)) || !readFileSync(target(f)).equals(readFileSync(built(f)))) {
    copyFileSync(built(f), target(f));
    console.log(`pplan: engine copied to ${target(f)}`);
  }
}
