// Fails fast when the generated engine is missing (it is built, not committed).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export default function setup() {
  for (const file of ['pplan.mjs', 'pplan.wasm']) {
    const engine = fileURLToPath(new URL(`../src/engine/generated/${file}`, import.meta.url));
    if (!existsSync(engine)) throw new Error(`${engine} is missing: run \`npm run build:wasm\``);
  }
}
