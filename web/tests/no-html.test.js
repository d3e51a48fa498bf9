// @vitest-environment node
// The page never turns text into markup or code: no HTML sinks, no eval, in any source file
// (the generated engine is built with -sDYNAMIC_EXECUTION=0 and is checked separately).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = fileURLToPath(new URL('../src/', import.meta.url));
const SINKS = /dangerouslySetInnerHTML|\.innerHTML|\.outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function\(|setTimeout\(\s*['"`]/;

function sources(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'generated' ? [] : sources(path);
    return /\.(jsx?|mjs)$/.test(name) ? [path] : [];
  });
}

describe('no HTML or code sinks', () => {
  it('in the page sources', () => {
    const files = sources(src);
    expect(files.length).toBeGreaterThan(20);
    for (const file of files) expect(readFileSync(file, 'utf8'), file).not.toMatch(SINKS);
  });
  it('in the generated engines (DYNAMIC_EXECUTION=0: no new Function, no eval)', () => {
    for (const glue of ['pplan-plan.mjs', 'pplan.mjs']) {
      const engine = readFileSync(join(src, `engine/generated/${glue}`), 'utf8');
      expect(engine, glue).not.toMatch(/new Function\(|\beval\(/);
    }
  });
});
