// Issue 16, "the page an interviewer opens", in real headless Chromium: one test per "Done when"
// item (each failed on the page before the issue), and the smaller points (contrast, mobile,
// embed header, report hint, title, live region, merged timeline, MoE caveat, loaded bytes).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchChromium } from './browser.js';
import { readmeFigures, transferredForFirstPlan } from '../scripts/bench-lib.js';

const baseUrl = inject('baseUrl');
const readme = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');

let browser;
beforeAll(async () => { browser = await launchChromium(); });
afterAll(async () => { await browser?.close(); });

async function open(url, { width = 1280, height = 800 } = {}) {
  const context = await browser.newContext({ viewport: { width, height }, serviceWorkers: 'block' });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  if (url) await page.goto(url);
  return { context, page, errors };
}

// Selectors the page had before issue 16 too (.summary, .scenario-title), so each "done when"
// test failed on the old page for its own reason, not for a missing test id.
const summary = (page) => page.locator('.summary').first();
const LAYOUT = /TP \d+ · PP \d+(?: \(v \d+\))? · DP \d+(?: · CP \d+)?(?: · EP \d+)?/;
const layoutOf = async (page) => ((await summary(page).textContent()).match(LAYOUT) || [''])[0];
const layoutIs = (page, text) => page.waitForFunction((t) => (document.querySelector('.summary')?.textContent || '').includes(t), text);
const title = (page) => page.locator('.scenario-title').first();
const nothingFits = (page) => page.locator('h3:text-is("No configuration fits")');
/** Waits until the results are current (no search running, no stale marker). */
const settled = (page) => page.waitForFunction(() => document.querySelector('.results') && !document.querySelector('.results.stale'));

describe('done when (issue 16)', () => {
  it('the skip link keeps the state: no reload, no banner, focus in the results', async () => {
    const { context, page } = await open(`${baseUrl}#v=1&model=llama3-70b&gpu=h100-sxm&gpus=256&seq=8192&gbs=512`);
    await summary(page).waitFor();
    const hash = await page.evaluate(() => location.hash);
    const before = await layoutOf(page);
    await page.keyboard.press('Tab'); // the skip link is the first stop
    expect(await page.evaluate(() => document.activeElement.textContent)).toBe('Skip to results');
    await page.keyboard.press('Enter');
    await page.waitForTimeout(300);
    expect(await page.evaluate(() => location.hash)).toBe(hash);
    expect(await page.evaluate(() => document.activeElement.id)).toBe('main');
    expect(await page.locator('[data-testid=link-banner]').count()).toBe(0);
    expect(await page.locator('#f-gpus').inputValue()).toBe('256');
    expect(await layoutOf(page)).toBe(before);
    await context.close();
  });

  it('editing GPUs on the default page gives a plan (DP follows the GPU count)', async () => {
    const { context, page } = await open(baseUrl);
    await summary(page).waitFor();
    expect(await layoutOf(page)).toBe('TP 8 · PP 8 · DP 16');
    await page.fill('#f-gpus', '512');
    await layoutIs(page, 'TP 8 · PP 8 · DP 8');
    expect(await nothingFits(page).count()).toBe(0);
    expect(await summary(page).getAttribute('class')).toContain('ok');
    await context.close();
  });

  it('"8k" works: read back, searched, written normally', async () => {
    const { context, page } = await open(`${baseUrl}#v=1&model=llama3-8b&gpu=h100-sxm&gpus=64&seq=4096&gbs=256`);
    await summary(page).waitFor();
    await page.fill('#f-seq', '8k');
    await page.waitForFunction(() => /seq=8k/.test(location.hash));
    await page.waitForTimeout(300);
    await settled(page);
    expect(await page.locator('#f-seq').getAttribute('aria-invalid')).toBeNull();
    expect(await page.locator('[data-testid=input-error]').count()).toBe(0);
    expect(await page.locator('#f-seq-hint').textContent()).toBe('= 8,192');
    await page.locator('#f-seq').blur();
    await page.waitForFunction(() => /seq=8192/.test(location.hash));
    expect(await page.locator('#f-seq').inputValue()).toBe('8192');
    await context.close();
  });

  it('a partial link and the v0 legacy link open a plan', async () => {
    for (const link of ['#v=1&model=llama3-70b&gpu=h100-sxm&gpus=256',
      '#model=llama3-70b&hw=h100-sxm-80gb&gpus=1024&tp=8&pp=4&cp=1&ep=1&mbs=1&gbs=1024']) {
      const { context, page } = await open(`${baseUrl}${link}`);
      await summary(page).waitFor({ timeout: 15000 });
      expect(await summary(page).getAttribute('class'), link).toContain('ok');
      expect(await page.locator('[data-testid=link-banner]').count()).toBe(0);
      expect(await page.locator('.notice[role=alert]').count()).toBe(0);
      expect(await title(page).textContent()).toMatch(/^Llama 3 70B on/);
      await context.close();
    }
  });

  it('257 GPUs suggests 256, in words, and one click opens its plan', async () => {
    const { context, page } = await open(baseUrl);
    await summary(page).waitFor();
    await page.fill('#f-gpus', '257');
    await nothingFits(page).waitFor();
    const card = page.locator('section.card.warn').filter({ has: nothingFits(page) });
    const below = page.locator('button:has-text("Use 256 GPUs")');
    await below.waitFor();
    expect(await below.textContent()).toMatch(/^Use 256 GPUs/);
    expect(await card.locator('p').first().textContent()).not.toMatch(/plan\.[a-z_]+/); // codes only in the details line
    await below.click();
    await page.waitForFunction(() => document.querySelector('#f-gpus').value === '256');
    await layoutIs(page, 'TP 8 · PP 8 · DP 4');
    await context.close();
  });

  it('Back undoes a loaded example', async () => {
    const { context, page } = await open(baseUrl);
    await summary(page).waitFor();
    await page.click('nav.tabs button:text-is("Worked examples")');
    await page.click('button[aria-label="Load Llama 3 405B, 8K context, 16,384 H100"]');
    await page.waitForFunction(() => /gpus=16384|z=/.test(location.hash));
    await page.waitForFunction(() => /^Llama 3 .*405B on 16,384/.test(document.querySelector('.scenario-title')?.textContent || ''));
    expect(await page.evaluate(() => document.activeElement.id)).toBe('main'); // landed on the results, not the bottom
    await page.goBack();
    await page.waitForFunction(() => /tab=examples/.test(location.hash) && /model=gpt3-175b/.test(location.hash));
    await page.goBack();
    await page.waitForFunction(() => /^GPT-3 175B on 1,024/.test(document.querySelector('.scenario-title')?.textContent || ''));
    expect(await page.locator('#f-gpus').inputValue()).toBe('1024');
    expect(page.url().startsWith(baseUrl)).toBe(true);
    await context.close();
  });

  it('the 30-second answer is visible at 1280×800 without scrolling', async () => {
    const { context, page } = await open(baseUrl, { width: 1280, height: 800 });
    const answer = page.locator('[data-testid=thirty-second]');
    await answer.waitFor();
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
    for (const locator of [title(page), summary(page).locator('dl'), answer]) {
      const box = await locator.boundingBox();
      expect(box.y).toBeGreaterThanOrEqual(0);
      expect(box.y + box.height).toBeLessThanOrEqual(800);
    }
    expect(await answer.textContent()).toMatch(/35 GPUs per replica/);
    const keyNumbers = await summary(page).locator('dt').allTextContents();
    expect(keyNumbers).toEqual(['Memory per GPU', 'Step time', 'MFU', 'Bubble (of the step)']);
    await context.close();
  });

  it('the scatter plot\'s recommended point is the plan shown', async () => {
    const { context, page } = await open(`${baseUrl}#v=1&model=gpt3-175b&gpu=a100-80gb&gpus=1024&gpn=8&seq=2048&gbs=1536`);
    await page.locator('[data-testid=scatter][aria-busy=false]').waitFor({ timeout: 30000 }); // of this scenario
    const best = page.locator('[data-testid=scatter-recommended]');
    expect(await page.locator('svg.scatter circle.pt').count()).toBeGreaterThan(50);
    expect(await best.getAttribute('data-plan')).toBe(await page.locator('[data-testid=plan-summary]').getAttribute('data-plan'));
    await best.hover();
    const info = await page.locator('[data-testid=scatter-info]').textContent();
    expect(info).toContain(`Plan #1: ${await layoutOf(page)}`);
    // clicking another ranked point selects that plan
    const second = page.locator('svg.scatter g.ranked[data-rank="1"]');
    await second.dispatchEvent('click');
    await page.waitForFunction(() => /sel=1/.test(location.hash));
    expect(await page.locator('[data-testid=plan-summary]').getAttribute('data-plan')).toBe(await second.getAttribute('data-plan'));
    await context.close();
  });

  it('no figure over 100% appears anywhere for an infeasible scenario', async () => {
    // GPT-3 with the worked example's whole grid pinned on 257 GPUs: tp·pp·dp = 1024 ranks on 257
    // GPUs (the engine's MFU of such a grid counts 1024 ranks' work against 257 GPUs' peak).
    const { context, page } = await open(`${baseUrl}#v=1&model=gpt3-175b&gpu=a100-80gb&gpus=257&gpn=8&seq=2048&gbs=1536&tp=8&pp=8&dp=16&cp=1&mbs=1&rc=selective&zero=0`);
    await nothingFits(page).waitFor();
    await settled(page);
    await page.waitForTimeout(300);
    const percentages = await page.evaluate(() => [...document.body.innerText.matchAll(/(\d+(?:\.\d+)?)\s?%/g)].map((m) => Number(m[1])));
    expect(percentages.length).toBeGreaterThan(0);
    expect(percentages.filter((p) => p > 100)).toEqual([]);
    // and no green "fits" beside "No configuration fits"
    expect(await page.locator('.tag.ok:text-is("fits")').count()).toBe(0);
    await context.close();
  });
});

describe('the smaller points', () => {
  it('text contrast is at least 4.5:1 (WCAG AA)', async () => {
    const { context, page } = await open(`${baseUrl}#v=1&model=gpt3-175b&gpu=a100-80gb&gpus=1024&gpn=8&seq=2048&gbs=1536`);
    await page.locator('[data-testid=scatter-recommended]').waitFor({ timeout: 30000 });
    await settled(page);
    const failures = await page.evaluate(() => {
      const rgb = (c) => (c.match(/[\d.]+/g) || []).map(Number);
      const lum = ([r, g, b]) => [r, g, b].map((v) => { const s = v / 255; return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4; })
        .reduce((t, v, i) => t + v * [0.2126, 0.7152, 0.0722][i], 0);
      const background = (el) => {
        for (let e = el; e; e = e.parentElement) {
          const c = rgb(getComputedStyle(e).backgroundColor);
          if (c.length >= 3 && (c.length < 4 || c[3] > 0.5)) return c;
        }
        return [255, 255, 255];
      };
      const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
      const out = [];
      const check = (el, color, what) => {
        const r = ratio(rgb(color), background(el));
        if (r < 4.5) out.push(`${what} ${r.toFixed(2)}: ${color} on ${background(el)}`);
      };
      for (const el of document.querySelectorAll('body *')) {
        if (el.closest('svg') || !el.getClientRects().length) continue;
        const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
        if (own) check(el, getComputedStyle(el).color, `"${el.textContent.trim().slice(0, 30)}"`);
        if (el.matches('input[placeholder]') && !el.value) check(el, getComputedStyle(el, '::placeholder').color, `placeholder ${el.id}`);
      }
      return out;
    });
    expect(failures).toEqual([]);
    await context.close();
  });

  it('375 px: a sticky "Edit inputs" link and summary, and a scroll cue on wide tables', async () => {
    const { context, page } = await open(baseUrl, { width: 375, height: 740 });
    await summary(page).waitFor();
    const bar = page.locator('[data-testid=mobile-bar]');
    expect(await bar.isVisible()).toBe(true);
    expect(await bar.textContent()).toContain('TP 8 · PP 8 · DP 16');
    await page.mouse.wheel(0, 2500);
    await page.waitForTimeout(200);
    const top = (await bar.boundingBox()).y;
    expect(top).toBeGreaterThanOrEqual(-1);
    expect(top).toBeLessThan(5); // stuck to the top while scrolling
    expect(await page.locator('table.plans .scroll-cue').isVisible()).toBe(true);
    const wrap = page.locator('.table-wrap').first();
    expect(await wrap.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
    await bar.locator('text=Edit inputs').click();
    expect(await page.evaluate(() => document.activeElement.id)).toBe('f-model');
    expect(await page.evaluate(() => location.hash)).not.toBe('#inputs'); // focus moved, the state's fragment untouched
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(1);
    await context.close();
  });

  it('the tab title follows the scenario and a live region announces the new plan', async () => {
    const { context, page } = await open(baseUrl);
    await summary(page).waitFor();
    // The preset names arrive just behind the first plan (store.init): wait for them, don't race them.
    const wanted = 'GPT-3 175B on 1,024 × NVIDIA A100 SXM4 80GB — pplan';
    await page.waitForFunction((t) => document.title === t, wanted, { timeout: 5000 }).catch(() => {});
    expect(await page.title()).toBe(wanted);
    const live = page.locator('[data-testid=live-plan]');
    expect(await live.getAttribute('aria-live')).toBe('polite');
    expect(await live.textContent()).toMatch(/^Recommended plan: TP 8 · PP 8 · DP 16; .* per GPU of 80 GiB \(85\.9 GB\)/);
    await page.fill('#f-gpus', '2048');
    await page.waitForFunction(() => /DP 32/.test(document.querySelector('[data-testid=live-plan]').textContent));
    await page.waitForFunction(() => document.title.startsWith('GPT-3 175B on 2,048'));
    await context.close();
  });

  it('the memory bar, the summary and the copied Markdown say 80 GiB (85.9 GB) alike', async () => {
    const { context, page } = await open(baseUrl);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(baseUrl).origin });
    await summary(page).waitFor();
    expect(await page.locator('#mem-h').textContent()).toMatch(/of 80 GiB \(85\.9 GB\)/);
    expect(await summary(page).textContent()).toMatch(/of 80 GiB \(85\.9 GB\)/);
    await page.click('button:text-is("Copy as Markdown")');
    await page.waitForFunction(() => navigator.clipboard.readText().then((t) => t.startsWith('**GPT-3')));
    expect(await page.evaluate(() => navigator.clipboard.readText())).toMatch(/ of 80 GiB \(85\.9 GB\) \|/);
    await context.close();
  });

  it('the merged timeline still tells forward from backward', async () => {
    const { context, page } = await open(baseUrl); // p = 8, m = 96: 1,536 passes, too many for one box each
    await page.locator('[data-testid=timeline-fwd]').waitFor();
    expect((await page.locator('[data-testid=timeline-fwd]').getAttribute('d')).length).toBeGreaterThan(1000);
    expect((await page.locator('[data-testid=timeline-bwd]').getAttribute('d')).length).toBeGreaterThan(1000);
    const fills = await page.evaluate(() => ['fwd', 'bwd'].map((k) => getComputedStyle(document.querySelector(`[data-testid=timeline-${k}]`)).fill));
    expect(fills[0]).not.toBe(fills[1]);
    await context.close();
  });

  it('the embed header carries the sequence length and the batch', async () => {
    const { context, page } = await open(`${baseUrl}?embed=1#v=1&model=llama3-70b&gpu=h100-sxm&gpus=256&seq=8192&gbs=512`);
    await summary(page).waitFor();
    expect(await page.locator('[data-testid=embed-training]').textContent()).toBe('sequence 8,192 · batch 512 sequences · BF16');
    await context.close();
  });

  it('the report says how to get days to train when no token budget is given', async () => {
    const { context, page } = await open(`${baseUrl}#v=1&model=gpt3-175b&gpu=a100-80gb&gpus=1024&tp=8&pp=8&tab=report`);
    await page.locator('[data-testid=report-hint]').waitFor({ timeout: 15000 });
    expect(await page.locator('[data-testid=report-hint]').textContent()).toMatch(/token budget.*300B/);
    await context.close();
  });

  it('a mixture-of-experts answer with a low MFU carries a caveat', async () => {
    const { context, page } = await open(`${baseUrl}#v=1&model=mixtral-8x7b&gpu=h100-sxm&gpus=256&seq=4096&gbs=1024&tp=1&pp=4&ep=8`);
    await summary(page).waitFor({ timeout: 20000 });
    const mfu = await summary(page).locator('dd').nth(2).textContent();
    const bubble = await summary(page).locator('dd').nth(3).textContent();
    const caveat = page.locator('[data-testid=moe-caveat]');
    if (parseFloat(mfu) < 25 || parseFloat(bubble) > 25) expect(await caveat.textContent()).toMatch(/Mixture of experts/);
    else expect(await caveat.count()).toBe(0);
    await context.close();
  });

  it('choosing another model drops the example\'s pins and searches', async () => {
    const { context, page } = await open(baseUrl);
    await summary(page).waitFor();
    await page.selectOption('#f-model', 'llama3-70b');
    await page.locator('[data-testid=pins-dropped]').waitFor();
    await page.waitForFunction(() => !/[&#]tp=/.test(location.hash) && /model=llama3-70b/.test(location.hash));
    await page.waitForFunction(() => document.querySelectorAll('table.plans tbody tr').length > 1, null, { timeout: 20000 });
    expect(await page.locator('#f-tp').inputValue()).toBe('');
    await context.close();
  });

  it('loads at most 250 KB gzip of JS and wasm for the first plan, as README.md says', async () => {
    const { context, page } = await open(null);
    const bytes = await transferredForFirstPlan(page, baseUrl);
    const kb = bytes.gzip / 1024;
    console.log(`loaded for the first plan: ${kb.toFixed(1)} KB gzip (${bytes.files} files, ${(bytes.raw / 1024).toFixed(0)} KB raw)`);
    expect(kb).toBeLessThanOrEqual(250);
    const quoted = readmeFigures(readme);
    expect(Math.abs(kb - quoted.loadedKb) / quoted.loadedKb).toBeLessThan(0.03);
    await context.close();
  });
});
