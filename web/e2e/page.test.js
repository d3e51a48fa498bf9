// The served page in real headless Chromium: worked numbers, shared links, URL updates, the
// sandboxed embed, bad and hostile links, offline use, small screens; measures first-plan time
// and the JS+wasm transferred, and saves screenshots to test-results/.
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchChromium } from './browser.js';
import { oncePerUrl } from '../scripts/bench-lib.js';
import { encodeHash, DEFAULT_STATE } from '../src/state/url.js';
import { iframeSnippet } from '../src/state/share.js';
import { PRERENDERED_ID, firstPlanRequest } from '../src/state/first-plan-request.js';
import createNodeEngine from '../src/engine/node-engine.js';

const baseUrl = inject('baseUrl');
const origin = new URL(baseUrl).origin;
const results = fileURLToPath(new URL('../test-results/', import.meta.url));
mkdirSync(results, { recursive: true });
// A guard against a broken load path, not the budget: the first plan's 0.5 s is measured by
// scripts/bench.js (README's table), since the shared 2-core machine's load moves it by 2-3×.
const FIRST_PLAN_BUDGET_MS = 3000;
// Everything loaded until the network is idle (the lazy chunks too); the first plan's 250 KB is
// checked in interview.test.js.
const TRANSFER_BUDGET_KB = 270;

let browser;
beforeAll(async () => { browser = await launchChromium(); });
afterAll(async () => { await browser?.close(); });

/** A fresh context and page that records requests, CSP violations, dialogs and page errors. */
async function openPage(url, { width = 1280, height = 900, serviceWorkers = 'block' } = {}) {
  const context = await browser.newContext({ viewport: { width, height }, serviceWorkers });
  const page = await context.newPage();
  const log = { requests: [], violations: [], dialogs: [], errors: [] };
  page.on('request', (r) => log.requests.push(r.url()));
  page.on('dialog', (d) => { log.dialogs.push(d.message()); d.dismiss(); });
  page.on('pageerror', (e) => log.errors.push(e.message));
  page.on('console', (m) => { if (/Content Security Policy/i.test(m.text())) log.violations.push(m.text()); });
  await context.addInitScript(() => {
    // When the first plan appears (its summary; the worked numbers below the fold follow),
    // measured inside the page as scripts/bench.js does.
    new MutationObserver((_, observer) => {
      if (document.querySelector('[data-testid=plan-summary]')) { window.__firstPlanMs = performance.now(); observer.disconnect(); }
    }).observe(document, { childList: true, subtree: true });
    window.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  if (url) await page.goto(url);
  return { context, page, log };
}

const methodText = (page, id) => page.locator(`[data-testid=${id}]`).first().textContent();
const planText = async (page) => `${await page.locator('.summary').textContent()}|${await page.locator('table.plans').textContent()}`;

describe('the main page', () => {
  it('shows the worked answer, within the time and size budgets, with no request leaving the origin', async () => {
    // Warm the browser process (not the page: each measured context starts with an empty cache),
    // then time three cold loads and judge the median, so one hiccup of a shared CPU does not decide.
    const warm = await openPage(baseUrl);
    await warm.page.waitForSelector('[data-testid=m-min-gpus]', { timeout: 15000 });
    await warm.context.close();
    const timings = [];
    for (let i = 0; i < 2; i++) {
      const run = await openPage(baseUrl);
      await run.page.waitForSelector('[data-testid=m-min-gpus]', { timeout: 15000 });
      timings.push(await run.page.evaluate(() => window.__firstPlanMs));
      await run.context.close();
    }
    const { context, page, log } = await openPage(null);
    const scripts = [];
    page.on('response', async (r) => {
      const type = r.request().resourceType();
      if (type === 'script' || /\.(m?js|wasm)(\?|$)/.test(r.url())) scripts.push(r);
    });
    await page.goto(baseUrl);
    await page.waitForSelector('[data-testid=m-min-gpus]', { timeout: 15000 });
    timings.push(await page.evaluate(() => window.__firstPlanMs));
    const firstPlanMs = [...timings].sort((a, b) => a - b)[1];
    await page.waitForLoadState('networkidle');

    expect(await methodText(page, 'm-states')).toBe('2.8 TB');
    expect(await methodText(page, 'm-min-gpus')).toBe('35 GPUs');
    expect(await methodText(page, 'm-half')).toBe('87.50 GB');
    expect(await methodText(page, 'm-states-gpu')).toBe('43.75 GB');
    expect(await methodText(page, 'm-act')).toBe('10.27 GB');
    expect(await methodText(page, 'm-total')).toBe('54.0 GB');
    expect(await methodText(page, 'm-dp')).toBe('16');
    expect(await methodText(page, 'm-micro')).toBe('96');
    expect(await methodText(page, 'm-bubble')).toBe('7.3%');
    expect(await methodText(page, 'm-distopt')).toBe('13.0 GB');
    expect(await page.locator('.method').textContent()).toContain('7/96');
    // The layout picture comes from the engine's layout_view (its own request after the plan):
    // replica 0 of GPT-3 t8 p8 dp16 is 8 nodes, stage s on node 16·s.
    await page.waitForSelector('svg.layout', { timeout: 15000 });
    expect(await page.locator('svg.layout text.svg-label').allTextContents())
      .toEqual(['node 0', 'node 16', 'node 32', 'node 48', 'node 64', 'node 80', 'node 96', 'node 112']);

    let raw = 0;
    let gzip = 0;
    const unique = oncePerUrl(scripts);
    for (const r of unique) {
      const body = await r.body();
      raw += body.length;
      gzip += gzipSync(body).length;
    }
    const gzipKb = gzip / 1024;
    console.log(`first plan on screen: ${firstPlanMs.toFixed(0)} ms median of ${timings.map((t) => t.toFixed(0)).join(', ')} (budget ${FIRST_PLAN_BUDGET_MS} ms)`);
    console.log(`JS + wasm transferred: ${gzipKb.toFixed(1)} KB gzip (${(raw / 1024).toFixed(0)} KB raw, ${unique.length} files; budget ${TRANSFER_BUDGET_KB} KB)`);
    expect(firstPlanMs).toBeLessThan(FIRST_PLAN_BUDGET_MS);
    expect(gzipKb).toBeLessThan(TRANSFER_BUDGET_KB);

    const offOrigin = log.requests.filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith('data:') && !u.startsWith('blob:'));
    expect(offOrigin).toEqual([]);
    expect(await page.evaluate(() => window.__csp)).toEqual([]);
    expect(log.violations).toEqual([]);
    expect(log.errors).toEqual([]);
    expect(await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content')).toContain("script-src 'self' 'wasm-unsafe-eval'");

    const shot = `${results}main.png`;
    await page.screenshot({ path: shot, fullPage: true });
    console.log(`screenshot: ${shot}`);
    await context.close();
  });

  it('an edit updates the URL, and the link opens the same plan', async () => {
    const { context, page } = await openPage(baseUrl);
    await page.waitForSelector('[data-testid=m-min-gpus]');
    await page.selectOption('#f-model', 'llama3-70b');
    await page.fill('#f-gpus', '512');
    await page.fill('#f-tp', '');
    await page.fill('#f-pp', '');
    await page.fill('#f-dp', '');
    await page.waitForFunction(() => /gpus=512/.test(location.hash) && /model=llama3-70b/.test(location.hash) && !/tp=/.test(location.hash));
    await page.waitForFunction(() => document.querySelectorAll('table.plans tbody tr').length > 1, null, { timeout: 20000 });
    await page.click('button[aria-label="Select plan 2"]');
    await page.waitForFunction(() => /sel=1/.test(location.hash));
    const url = page.url();
    const before = await planText(page);

    const other = await openPage(url);
    await other.page.waitForFunction(() => document.querySelectorAll('table.plans tbody tr').length > 1, null, { timeout: 20000 });
    // Plan #2's own explanation is a second request after the plan: wait for it, not a race.
    await other.page.waitForFunction(() => /30-second answer \(plan #2\)/.test(document.querySelector('.summary')?.textContent || ''), null, { timeout: 20000 });
    expect(await planText(other.page)).toBe(before);
    expect(await other.page.locator('#f-gpus').inputValue()).toBe('512');
    await other.context.close();
    await context.close();
  });

  it('a custom model travels in the compressed payload and loads the same plan', async () => {
    const { context, page } = await openPage(baseUrl);
    await page.waitForSelector('[data-testid=m-min-gpus]');
    await page.click('text=Architecture (edit to customise)');
    await page.fill('#f-model-layers', '48');
    await page.waitForFunction(() => /[#&]z=/.test(location.hash));
    await page.waitForFunction(() => document.querySelector('[data-testid=m-states-gpu]')?.textContent !== '43.75 GB');
    const before = await planText(page);
    const other = await openPage(page.url());
    await other.page.waitForSelector('table.plans');
    expect(await planText(other.page)).toBe(before);
    expect(await other.page.locator('#f-model-layers').inputValue()).toBe('48');
    await other.context.close();
    await context.close();
  });

  it('is usable from the keyboard', async () => {
    const { context, page } = await openPage(baseUrl);
    await page.waitForSelector('[data-testid=m-min-gpus]');
    let reached = false;
    for (let i = 0; i < 40 && !reached; i++) {
      await page.keyboard.press('Tab');
      reached = await page.evaluate(() => document.activeElement && document.activeElement.id === 'f-gbs');
    }
    expect(reached).toBe(true);
    await page.keyboard.press('Control+A');
    await page.keyboard.type('768');
    await page.waitForFunction(() => document.querySelector('[data-testid=m-micro]')?.textContent === '48');
    await context.close();
  });

  it('fits a 375 px wide screen', async () => {
    const { context, page } = await openPage(baseUrl, { width: 375, height: 800 });
    await page.waitForSelector('[data-testid=m-min-gpus]');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(1);
    const shot = `${results}mobile-375.png`;
    await page.screenshot({ path: shot, fullPage: false });
    console.log(`screenshot: ${shot}`);
    await context.close();
  });
});

describe('the prerendered first plan', () => {
  it("is the engine's own answer to the default page's request, shown before the engine starts", async () => {
    const html = readFileSync(fileURLToPath(new URL('../dist/index.html', import.meta.url)), 'utf8');
    const match = html.match(new RegExp(`<script type="application/json" id="${PRERENDERED_ID}">([^<]*)</script>`));
    expect(match).not.toBeNull();
    const { request, response } = JSON.parse(match[1]);
    expect(request).toBe(await firstPlanRequest('', ''));
    // Byte for byte the live engine's answer but for the search's wall time (timing).
    const live = JSON.parse((await createNodeEngine('plan')).handleRequest(request));
    const built = JSON.parse(response);
    expect(built.ok).toBe(true);
    delete live.timing;
    delete built.timing;
    expect(built).toEqual(live);

    const marks = () => page.evaluate(() => Object.fromEntries(['pplan:plan', 'pplan:engine-start']
      .map((name) => [name, performance.getEntriesByName(name)[0]?.startTime ?? null])));
    let { context, page } = await openPage(baseUrl);
    await page.waitForSelector('[data-testid=plan-summary]');
    const own = await marks();
    expect(own['pplan:plan']).not.toBeNull();
    // The engine starts after the answer is shown (its first request then starts it), or not yet.
    if (own['pplan:engine-start'] !== null) expect(own['pplan:plan']).toBeLessThanOrEqual(own['pplan:engine-start']);
    await context.close();

    // A shared link is not the default page: the engine answers it (started first).
    ({ context, page } = await openPage(`${baseUrl}#${await encodeHash({ ...DEFAULT_STATE, gpus: '512' })}`));
    await page.waitForSelector('[data-testid=plan-summary]');
    const shared = await marks();
    expect(shared['pplan:engine-start']).toBeLessThan(shared['pplan:plan']);
    await context.close();
  });
});

describe('links that are bad or hostile', () => {
  it('a corrupt hash shows the banner and the default example', async () => {
    const { context, page } = await openPage(`${baseUrl}#v=1&z=AAAAkill`);
    await page.waitForSelector('[data-testid=link-banner]');
    expect(await page.locator('[data-testid=link-banner]').textContent()).toMatch(/could not be read/);
    await page.waitForSelector('[data-testid=m-min-gpus]');
    expect(await methodText(page, 'm-min-gpus')).toBe('35 GPUs');
    await context.close();
  });

  it('an oversized hash shows the banner', async () => {
    const { context, page } = await openPage(`${baseUrl}#v=1&model=${'a'.repeat(20000)}`);
    await page.waitForSelector('[data-testid=link-banner]');
    expect(await page.locator('[data-testid=link-banner]').textContent()).toMatch(/longer than/);
    await context.close();
  });

  it('script-like values in every field stay text', async () => {
    const evil = '<img src=x onerror=alert(1)><script>alert(2)</script>';
    const hostile = { ...DEFAULT_STATE };
    for (const k of ['gpus', 'gpn', 'seq', 'gbs', 'prec', 'tp', 'pp', 'dp', 'cp', 'ep', 'vpp', 'mbs', 'sp', 'rc', 'zero']) hostile[k] = evil;
    const readable = await encodeHash({ ...hostile, model: evil, gpu: evil });
    const payload = await encodeHash({
      ...hostile,
      model: { name: evil, layers: evil, hidden: evil, heads: evil, ffn_hidden: evil, vocab: evil, activation: evil, moe: { experts: evil } },
      gpu: { name: evil, memory_gb: evil, bf16_tflops: evil, nvlink_gbytes_per_s: evil, network_gbytes_per_s: evil },
    });
    for (const hash of [readable, payload]) {
      const { context, page, log } = await openPage(`${baseUrl}#${hash}`);
      await page.waitForSelector('.notice');
      expect(await page.locator('.notice').first().textContent()).toMatch(/must|unknown|not/);
      expect(await page.locator('img').count()).toBe(0);
      expect(await page.locator('#app script').count()).toBe(0);
      await page.waitForTimeout(200);
      expect(log.dialogs).toEqual([]);
      expect(log.errors).toEqual([]);
      await context.close();
    }
  });
});

describe('embedding', () => {
  it('renders in a sandboxed 600 px iframe, never rewrites its URL, and links out', async () => {
    const { context, page, log } = await openPage(null, { width: 760, height: 700 });
    const frameSrc = `${baseUrl}?embed=1#${await encodeHash(DEFAULT_STATE)}`;
    // The wiki: another origin (its own loopback port) serving the snippet. A real server, not
    // request interception: Chromium's local-network-access checks only let pages that came
    // from the local network frame 127.0.0.1.
    const hostHtml = `<!doctype html><title>wiki</title><h1 style="font:16px sans-serif">Wiki page</h1>
             <div style="width:600px">${iframeSnippet(frameSrc)}</div>`;
    const wiki = createServer((req, res) => { res.writeHead(200, { 'content-type': 'text/html' }); res.end(hostHtml); });
    await new Promise((resolve) => wiki.listen(0, '127.0.0.1', resolve));
    const host = `http://127.0.0.1:${wiki.address().port}/wiki.html`;
    await page.goto(host);
    const frame = page.frameLocator('iframe');
    await frame.locator('[data-testid=m-min-gpus]').waitFor({ timeout: 15000 });
    expect(await frame.locator('[data-testid=m-min-gpus]').textContent()).toBe('35 GPUs');
    const link = frame.getByRole('link', { name: /Open in pplan/ });
    expect(await link.getAttribute('target')).toBe('_blank');
    expect(await link.getAttribute('href')).toMatch(new RegExp(`^${origin}/#v=1&model=gpt3-175b`));
    const shot = `${results}embed.png`;
    await page.screenshot({ path: shot, fullPage: true });
    console.log(`screenshot: ${shot}`);
    await frame.locator('button[aria-label="Select plan 1"]').click();
    await page.waitForTimeout(300);
    const f = page.frames().find((x) => x.url().includes('embed=1'));
    expect(f.url()).toBe(frameSrc);
    expect(page.url()).toBe(host);
    const overflow = await f.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(1);
    const offOrigin = log.requests.filter((u) => !u.startsWith(`${origin}/`) && u !== host && !u.startsWith('data:'));
    expect(offOrigin).toEqual([]);
    await context.close();
    await new Promise((resolve) => wiki.close(resolve));
  });
});

describe('more views', () => {
  it('the gallery shows each run as it was run, with docs/accuracy.md\'s figures, beside pplan\'s best, and loads one in one click', async () => {
    const accuracy = readFileSync(fileURLToPath(new URL('../../docs/accuracy.md', import.meta.url)), 'utf8');
    const { context, page } = await openPage(`${baseUrl}#v=1&model=gpt3-175b&gpu=a100-80gb&gpus=1024&tab=examples`);
    await page.waitForSelector('table.gallery');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=best]').length >= 12, null, { timeout: 60000 });
    const rows = await page.locator('tr[data-case]').evaluateAll((trs) => trs.map((tr) => [tr.dataset.case,
      tr.querySelector('[data-testid=as-run]').textContent, tr.querySelector('[data-testid=best]').textContent]));
    expect(rows.length).toBe(12);
    for (const [id, asRun, best] of rows) {
      // docs/accuracy.md: | id | published | pplan | error |
      const row = accuracy.split('\n').find((line) => line.startsWith(`| ${id} | `));
      expect(row, id).toBeTruthy();
      const [, , , pplan, error] = row.split('|').map((c) => c.trim());
      expect(asRun).toBe(`${pplan} (${error})`);
      expect(best).toMatch(/^(HFU|MFU) \d+\.\d% · /);
    }
    // The 1T run of 2021 on today's stack: Megatron-Core with sequence parallelism.
    expect(rows.find((r) => r[0] === 'narayanan21_t1_1008.0B')[2]).toMatch(/megatron-core.*sequence parallel/);
    // Meta's 8K plan is pinned past the memory headroom the search keeps free: it says so.
    expect(rows.find((r) => r[0] === 'llama3_405b_16384gpu_seq8192')[2]).toMatch(/slower: the published plan uses more memory than the headroom/);
    const shot = `${results}gallery.png`;
    await page.screenshot({ path: shot, fullPage: true });
    console.log(`screenshot: ${shot}`);
    await page.click('button[aria-label="Load Llama 3 405B, 8K context, 16,384 H100"]');
    await page.waitForFunction(() => /gpus=16384/.test(location.hash) || /z=/.test(location.hash));
    await page.waitForSelector('[data-testid=m-min-gpus]');
    expect(await page.locator('#f-gpus').inputValue()).toBe('16384');
    expect(await page.locator('#f-model').inputValue()).toBe('llama3-405b');
    await context.close();
  });

  // The one-click fixes of a refused launch that change the scenario (LaunchPanel.jsx launchFixes).
  const LAUNCH_FIXES = '[data-testid=reprice], [data-testid=fix-schedule], [data-testid=fix-f8s]';
  it('every gallery example plans with no constant chart axis and opens every launch tab: a configuration, or reasons with their fix', async () => {
    const { context, page } = await openPage(`${baseUrl}#v=1&model=gpt3-175b&gpu=a100-80gb&gpus=1024&tab=examples`);
    await page.waitForSelector('table.gallery');
    const titles = await page.locator('article.example button, table.gallery button').evaluateAll((bs) => bs.map((b) => b.getAttribute('aria-label')));
    expect(titles.length).toBe(13);
    const formats = ['SLURM', 'Environment', 'torchtitan (CLI)', 'torchtitan (TOML)', 'DeepSpeed', 'NeMo', 'nccl-tests', 'Rank layout', 'Megatron-LM'];
    const launched = {};
    for (const title of titles) {
      await page.click('nav.tabs button:text-is("Worked examples")');
      await page.click(`button[aria-label="${title}"]`);
      await page.waitForSelector('[data-testid=m-min-gpus]', { timeout: 30000 });
      await page.waitForSelector('[data-testid=scatter]:not([aria-busy=true])', { timeout: 30000 });
      await page.waitForSelector('[data-testid=scaling]:not([aria-busy=true])', { timeout: 30000 });
      // Each chart's axis labels differ: a constant axis would repeat one label.
      const axes = await page.locator('[data-testid=scatter] svg, [data-testid=scaling] svg').evaluateAll((svgs) => svgs.map((svg) =>
        [...svg.querySelectorAll('text[text-anchor=end]')].map((t) => t.textContent).filter((t) => !/capacity/.test(t))));
      for (const labels of axes) expect(`${title}: ${labels.join(" / ")}`).toBe(`${title}: ${[...new Set(labels)].join(" / ")}`);
      await page.click('nav.tabs button:text-is("Launch")');
      launched[title] = [];
      for (const format of formats) {
        await page.click(`.tabs-inline label:text-is("${format}") input`);
        await page.waitForFunction(() => document.querySelector('pre.code, ul.diagnostics li.error, .notice'), null, { timeout: 30000 });
        const refused = await page.locator('ul.diagnostics li.error').count();
        if (!refused) { launched[title].push(format); continue; }
        // A refusal names each reason with what to change: a button, a format or a field.
        const reasons = await page.locator('ul.diagnostics li.error').allTextContents();
        for (const r of reasons) expect(r, `${title} ${format}`).toMatch(/\b(use|set|choose|pin|register|remove|drop|give|make|turn|lower|raise|needs?|must)\b/i);
        if (await page.locator(LAUNCH_FIXES).count()) launched[title].push(`${format} after its fixes`);
      }
      // Megatron-Core takes every example, directly or after one click per fix (last: they change
      // the scenario: its framework, a schedule Megatron-Core runs, a switch it has a flag for).
      expect(launched[title].some((f) => f.startsWith('Megatron-LM')), title).toBe(true);
      if (launched[title].includes('Megatron-LM after its fixes')) {
        for (let i = 0; i < 3 && !(await page.locator('pre.code').count()); i++) {
          const fix = await page.locator(LAUNCH_FIXES).first().getAttribute('data-testid');
          await page.click(`[data-testid=${fix}]`);
          await page.waitForFunction((id) => document.querySelector('pre.code') || !document.querySelector(`[data-testid=${id}]`), fix, { timeout: 30000 });
        }
        await page.waitForSelector('pre.code', { timeout: 30000 });
        expect(await page.locator('pre.code').first().textContent(), title).toContain('pretrain_gpt.py');
      }
    }
    // Each example launches in its own framework: torchtitan's 405B runs in torchtitan.
    expect(launched['Load Llama 3 405B, 8K context, 16,384 H100']).toContain('torchtitan (TOML)');
    expect(launched['Load Llama 3 405B, 128K context, 16,384 H100']).toContain('torchtitan (TOML)');
    expect(launched['Load GPT 1008.0B · 3,072 A100']).toContain('Megatron-LM');
    await context.close();
  }, 240000);

  it('the launch tab shows the Megatron-LM script of the pinned layout', async () => {
    const { context, page } = await openPage(`${baseUrl}#v=1&model=gpt3-175b&gpu=a100-80gb&gpus=1024&gpn=8&seq=2048&gbs=1536&tp=8&pp=8&tab=launch&fmt=megatron`);
    await page.waitForSelector('pre.code', { timeout: 15000 });
    const text = await page.locator('pre.code').first().textContent();
    // GPT-3 175B (96 layers) with the URL's pins: the script carries them, an error notice fails.
    expect(text).toMatch(/--tensor-model-parallel-size 8\b/);
    expect(text).toMatch(/--pipeline-model-parallel-size 8\b/);
    expect(text).toMatch(/--num-layers 96\b/);
    expect(text).toContain('pretrain_gpt.py');
    await context.close();
  });

  it('offers every 2026 preset in the model list and plans one of them', async () => {
    const { context, page } = await openPage(`${baseUrl}#v=1&model=gpt3-175b&gpu=a100-80gb&gpus=1024`);
    await page.waitForSelector('[data-testid=m-min-gpus]');
    const options = await page.locator('#f-model option').evaluateAll((os) => os.map((o) => o.value));
    for (const id of ['qwen3-30b-a3b', 'qwen3-235b-a22b', 'gpt-oss-20b', 'gpt-oss-120b', 'gemma3-27b', 'llama4-scout',
      'llama4-maverick', 'kimi-k2', 'nemotron-h-56b']) expect(options).toContain(id);
    await page.selectOption('#f-model', 'nemotron-h-56b');
    await page.waitForFunction(() => /model=nemotron-h-56b/.test(location.hash));
    await page.waitForSelector('[data-testid=m-min-gpus]', { timeout: 20000 });
    await context.close();
  });

  it('the 405B example, priced for torchtitan, launches in torchtitan and in Megatron-Core after one click', async () => {
    const { context, page } = await openPage(`${baseUrl}#v=1&model=gpt3-175b&gpu=a100-80gb&gpus=1024&tab=examples`);
    await page.waitForSelector('table.gallery');
    await page.click('button[aria-label="Load Llama 3 405B, 8K context, 16,384 H100"]');
    await page.waitForSelector('[data-testid=m-min-gpus]');
    expect(await page.locator('#f-fw').inputValue()).toBe('torchtitan');
    await page.click('nav.tabs button:text-is("Launch")');
    await page.click('text=torchtitan (TOML)');
    await page.waitForSelector('pre.code', { timeout: 20000 });
    expect(await page.locator('pre.code').first().textContent()).toMatch(/tensor_parallel_degree = 8/);
    await page.click('label:has-text("Megatron-LM") input');
    await page.waitForSelector('[data-testid=reprice]', { timeout: 20000 });
    expect(await page.locator('[data-testid=reprice]').textContent()).toBe('Price this plan for Megatron-Core');
    await page.click('[data-testid=reprice]');
    await page.waitForSelector('pre.code', { timeout: 20000 });
    const text = await page.locator('pre.code').first().textContent();
    expect(text).toMatch(/--tensor-model-parallel-size 8\b/);
    expect(text).toMatch(/--pipeline-model-parallel-size 16\b/);
    expect(await page.locator('#f-fw').inputValue()).toBe('megatron-core');
    await context.close();
  });

  it('expert TP 1 under TP 2 and the flex dispatcher are fields: planned, shown beside EP, launched', async () => {
    const { context, page } = await openPage(`${baseUrl}#v=1&model=deepseek-v3&gpu=h100-sxm&gpus=1024&seq=4096&gbs=4096&prec=fp8&tp=2&pp=8&ep=64`);
    await page.waitForSelector('#f-etp');
    await page.fill('#f-etp', '1');
    await page.waitForFunction(() => /etp=1/.test(location.hash), null, { timeout: 20000 });
    await page.selectOption('#f-disp', 'flex');
    await page.waitForFunction(() => /disp=flex/.test(location.hash), null, { timeout: 20000 });
    await page.waitForFunction(() => /64 · etp 1/.test(document.querySelector('table.plans tbody tr')?.textContent || ''),
      null, { timeout: 30000 });
    await page.click('nav.tabs button:text-is("Launch")');
    await page.waitForSelector('pre.code', { timeout: 30000 });
    const text = await page.locator('pre.code').first().textContent();
    expect(text).toMatch(/--expert-model-parallel-size 64\b/);
    expect(text).toMatch(/--expert-tensor-parallel-size 1\b/);
    expect(text).toMatch(/--moe-token-dispatcher-type flex\b/);
    expect(text).toMatch(/--moe-router-group-topk 4\b/);
    await context.close();
  });

  it('the launch tab configures the plan selected in the planner', async () => {
    const { context, page } = await openPage(`${baseUrl}#v=1&model=llama3-70b&gpu=h100-sxm&gpus=512&gpn=8&seq=8192&gbs=512`);
    await page.waitForFunction(() => document.querySelectorAll('table.plans tbody tr').length > 3, null, { timeout: 20000 });
    await page.click('button[aria-label="Select plan 4"]');
    const row = (await page.locator('table.plans tbody tr').nth(3).locator('td').allTextContents()).slice(1, 8);
    await page.click('nav.tabs button:text-is("Launch")');
    await page.waitForSelector('text=For the plan', { timeout: 15000 });
    const line = await page.locator('p:has-text("For the plan")').textContent();
    expect(line).toContain(`TP ${row[0]} · PP ${row[1]}`);
    expect(line).toContain(`DP ${row[3]}`);
    expect(line).toContain(`micro-batch ${row[6]}`);
    await context.close();
  });

  it('the design report reads days to train from the token budget, links each figure to its formula, copies Markdown', async () => {
    const { context, page } = await openPage(baseUrl);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    await page.waitForSelector('[data-testid=m-min-gpus]');
    await page.fill('#f-tokens', '300e9');
    await page.waitForFunction(() => /tokens=300e9/.test(location.hash));
    await page.click('nav.tabs button:text-is("Design report")');
    await page.waitForFunction(() => /tab=report/.test(location.hash));
    const row = (label) => page.locator('table.figures tr').filter({ has: page.locator(`th:text-is("${label}")`) });
    await row('days to train (no failures)').waitFor({ timeout: 15000 });
    const stepS = Number((await row('step time').locator('td.num').textContent()).replace(/ s$/, ''));
    const days = Number((await row('days to train (no failures)').locator('td.num').textContent()).replace(/ days$/, ''));
    // Formula 12 by hand: 300e9 tokens / (1536 · 2048 tokens per step / step time · 86,400 s).
    expect(days).toBeCloseTo(300e9 / ((1536 * 2048) / stepS * 86400), 0);
    const hash = await page.evaluate(() => location.hash);
    const ref = row('days to train (no failures)').locator('a.ref');
    expect(await ref.getAttribute('href')).toBe('#formula-12');
    await ref.click();
    expect(await page.evaluate(() => document.activeElement.id)).toBe('formula-12');
    expect(await page.evaluate(() => location.hash)).toBe(hash); // the state stays in the URL
    expect(await page.locator('#formula-12').textContent()).toContain('Days to train = token budget / tokens per day');
    await page.click('button:text-is("Copy report as Markdown")');
    await page.waitForFunction(() => navigator.clipboard.readText().then((t) => t.startsWith('# Design report: GPT-3 175B')));
    expect(await page.evaluate(() => navigator.clipboard.readText())).toContain('| days to train (no failures) |');
    const shot = `${results}report.png`;
    await page.screenshot({ path: shot, fullPage: true });
    console.log(`screenshot: ${shot}`);
    await context.close();
  });

  it('the design report describes the plan selected in the planner', async () => {
    const { context, page } = await openPage(`${baseUrl}#v=1&model=llama3-70b&gpu=h100-sxm&gpus=512&gpn=8&seq=8192&gbs=512`);
    await page.waitForFunction(() => document.querySelectorAll('table.plans tbody tr').length > 3, null, { timeout: 20000 });
    await page.click('button[aria-label="Select plan 3"]');
    const cells = (await page.locator('table.plans tbody tr').nth(2).locator('td').allTextContents()).slice(1, 8);
    await page.click('nav.tabs button:text-is("Design report")');
    await page.waitForSelector('section[data-section=layout] p', { timeout: 15000 });
    const layout = await page.locator('section[data-section=layout] p').first().textContent();
    // columns: tp, pp, vpp, dp, cp, ep, mb
    expect(layout).toContain(`TP ${cells[0]} · CP ${cells[4]} · PP ${cells[1]} · DP ${cells[3]}`);
    expect(layout).toContain(`vpp ${cells[2]}, micro-batch ${cells[6]}`);
    await context.close();
  });

  it('copies the link, the Markdown table, the scenario JSON and the iframe snippet', async () => {
    const { context, page } = await openPage(baseUrl);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    await page.waitForSelector('[data-testid=m-min-gpus]');
    await page.fill('#f-gpus', '512');
    await page.fill('#f-dp', '8');
    await page.waitForFunction(() => /gpus=512/.test(location.hash));
    const clip = () => page.evaluate(() => navigator.clipboard.readText());
    await page.click('button:text-is("Copy link")');
    await page.waitForFunction(() => navigator.clipboard.readText().then((t) => /gpus=512/.test(t)));
    expect(await clip()).toBe(page.url());
    await page.click('button:text-is("Copy as Markdown")');
    await page.waitForFunction(() => navigator.clipboard.readText().then((t) => t.startsWith('**GPT-3')));
    expect((await clip()).split('\n')[2]).toMatch(/^\| # \| tp \| pp \|/);
    await page.click('button:text-is("Copy scenario JSON")');
    await page.waitForFunction(() => navigator.clipboard.readText().then((t) => t.startsWith('{')));
    expect(JSON.parse(await clip()).cluster).toEqual({ gpu: 'a100-80gb', gpus: 512, gpus_per_node: 8 });
    await page.click('summary:text-is("Embed")');
    await page.click('button:text-is("Copy snippet")');
    await page.waitForFunction(() => navigator.clipboard.readText().then((t) => t.startsWith('<iframe')));
    expect(await clip()).toContain('?embed=1#v=1&amp;model=gpt3-175b');
    await context.close();
  });

  it('follows a link pasted into the same tab', async () => {
    const { context, page } = await openPage(baseUrl);
    await page.waitForSelector('[data-testid=m-min-gpus]');
    await page.evaluate(() => { location.hash = 'v=1&model=llama3-8b&gpu=h100-sxm&gpus=64&gpn=8&seq=8192&gbs=512&tp=1&pp=1'; });
    await page.waitForFunction(() => document.querySelector('#f-gpus')?.value === '64');
    await page.waitForFunction(() => /Llama 3 8B on 64/.test(document.querySelector('.scenario-title')?.textContent || ''));
    await context.close();
  });

  it('works offline once loaded', async () => {
    const { context, page } = await openPage(baseUrl, { serviceWorkers: 'allow' });
    await page.waitForSelector('[data-testid=m-min-gpus]');
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));
    await page.reload(); // now controlled: the service worker caches what the page fetches
    await page.waitForSelector('[data-testid=m-min-gpus]');
    await page.waitForLoadState('networkidle');
    await context.setOffline(true);
    await page.reload();
    await page.waitForSelector('[data-testid=m-min-gpus]', { timeout: 15000 });
    expect(await methodText(page, 'm-min-gpus')).toBe('35 GPUs');
    await context.close();
  });
});
