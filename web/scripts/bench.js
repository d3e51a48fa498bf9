// The page benchmark (a script that prints figures, not a timed test): the built page in the
// machine's Chromium, served by Vite's preview server on 127.0.0.1.
//   node scripts/bench.js            build dist/, measure, print the table README.md quotes
//   node scripts/bench.js --check    also compare README.md's quoted figures with this run
//                                    (bytes within 3%, times within a factor of 2: a shared
//                                    machine's load moves them); exit 1 when they disagree
//   node scripts/bench.js --write-readme   write this run's table into README.md
//   --no-build                       measure the dist/ that is there
// Figures: first plan on screen from a cold load of the default page and of a shared link (fresh
// context, empty cache; median of 5 after a warm-up of the browser process), result after an
// edit (GPUs typed, median of 10, on the default page and with every layout searched), JS + wasm
// bytes loaded before the first plan (gzip).
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { build, preview } from 'vite';
import { launchChromium } from '../e2e/browser.js';
import { FIRST_PLAN_SCRIPT, benchTable, editToResult, median, readmeFigures, transferredForFirstPlan } from './bench-lib.js';

const web = fileURLToPath(new URL('..', import.meta.url));
const args = new Set(process.argv.slice(2));
const COLD_LOADS = 5;
const EDITS = 10;
const SEARCHED = '#v=1&model=gpt3-175b&gpu=a100-80gb&gpus=1024&gpn=8&seq=2048&gbs=1536';
// A shared link: not the default page, so its first plan waits for the engine (no prerender).
const SHARED = '#v=1&model=llama3-70b&gpu=h100-sxm&gpus=256&gpn=8&seq=8192&gbs=512';

if (!args.has('--no-build')) await build({ root: web, logLevel: 'warn' });
const server = await preview({ root: web, preview: { host: '127.0.0.1', port: 0, strictPort: false }, logLevel: 'warn' });
const baseUrl = `http://127.0.0.1:${server.httpServer.address().port}/`;
const browser = await launchChromium();

async function fresh() {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, serviceWorkers: 'block' });
  await context.addInitScript(FIRST_PLAN_SCRIPT);
  return { context, page: await context.newPage() };
}

async function firstPlanMs(url = baseUrl) {
  const { context, page } = await fresh();
  await page.goto(url);
  await page.waitForSelector('[data-testid=plan-summary]', { timeout: 20000 });
  const ms = await page.evaluate(() => window.__firstPlanMs);
  await context.close();
  return ms;
}

async function edits(url, counts) {
  const { context, page } = await fresh();
  await page.goto(url);
  await page.waitForSelector('[data-testid=plan-summary]', { timeout: 20000 });
  await page.waitForTimeout(1500); // let the pictures engine start and the first pictures finish
  const times = [];
  for (let i = 0; i < EDITS; i++) {
    times.push(await editToResult(page, counts[i % counts.length]));
    await page.waitForTimeout(400); // the pictures of this result run in their own worker meanwhile
  }
  await context.close();
  return times;
}

try {
  await firstPlanMs(); // warm the browser process
  const loads = [];
  for (let i = 0; i < COLD_LOADS; i++) loads.push(await firstPlanMs());
  const sharedLoads = [];
  for (let i = 0; i < COLD_LOADS; i++) sharedLoads.push(await firstPlanMs(`${baseUrl}${SHARED}`));
  const bytesRun = await fresh();
  const bytes = await transferredForFirstPlan(bytesRun.page, baseUrl);
  await bytesRun.context.close();
  const pinned = await edits(baseUrl, [512, 1024]);
  const searched = await edits(`${baseUrl}${SEARCHED}`, [512, 1024]);

  const figures = {
    date: new Date().toISOString().slice(0, 10), load: loadavg()[0].toFixed(1),
    firstPlanMs: median(loads), sharedFirstPlanMs: median(sharedLoads), editMs: median(pinned), searchedEditMs: median(searched), loadedKb: bytes.gzip / 1024,
    runs: { loads, sharedLoads, pinned, searched, bytes },
  };
  const list = (xs) => xs.map((x) => x.toFixed(0)).join(', ');
  console.log(`first plan on screen: ${figures.firstPlanMs.toFixed(0)} ms (median of ${COLD_LOADS} cold loads: ${list(loads)})`);
  console.log(`first plan from a shared link: ${figures.sharedFirstPlanMs.toFixed(0)} ms (median of ${COLD_LOADS} cold loads: ${list(sharedLoads)})`);
  console.log(`edit to result: ${figures.editMs.toFixed(0)} ms (median of ${EDITS} GPU-count edits on the default page: ${list(pinned)})`);
  console.log(`edit to result, every layout searched: ${figures.searchedEditMs.toFixed(0)} ms (median of ${EDITS}: ${list(searched)})`);
  console.log(`loaded for the first plan: ${figures.loadedKb.toFixed(1)} KB gzip of JS + wasm (${bytes.files} files, ${(bytes.raw / 1024).toFixed(0)} KB raw)`);
  const table = benchTable(figures);
  console.log(`\n${table}`);
  const readmePath = `${web}../README.md`;
  if (args.has('--write-readme')) {
    const readme = readFileSync(readmePath, 'utf8');
    const next = /<!-- bench:start -->[\s\S]*?<!-- bench:end -->/.test(readme)
      ? readme.replace(/<!-- bench:start -->[\s\S]*?<!-- bench:end -->/, table) : readme.replace('BENCH_TABLE', table);
    writeFileSync(readmePath, next);
    console.log('README.md: table written');
  }
  mkdirSync(`${web}test-results`, { recursive: true });
  writeFileSync(`${web}test-results/bench.json`, `${JSON.stringify(figures, null, 2)}\n`);

  if (args.has('--check')) {
    const quoted = readmeFigures(readFileSync(readmePath, 'utf8'));
    const problems = [];
    if (Math.abs(figures.loadedKb - quoted.loadedKb) / quoted.loadedKb > 0.03) problems.push(`loaded ${figures.loadedKb.toFixed(1)} KB vs README ${quoted.loadedKb} KB`);
    for (const [name, now, then] of [['first plan', figures.firstPlanMs, quoted.firstPlanMs], ['shared link', figures.sharedFirstPlanMs, quoted.sharedFirstPlanMs], ['edit to result', figures.editMs, quoted.editMs],
      ['edit to result, searched', figures.searchedEditMs, quoted.searchedEditMs]]) {
      if (now > 2 * then || now < then / 2) problems.push(`${name} ${now.toFixed(0)} ms vs README ${then} ms`);
    }
    console.log(problems.length ? `README.md disagrees with this run: ${problems.join('; ')}` : 'README.md agrees with this run (bytes within 3%, times within a factor of 2)');
    if (problems.length) process.exitCode = 1;
  }
} finally {
  await browser.close();
  await new Promise((resolve) => server.httpServer.close(resolve));
}
