// What the page benchmark measures, shared by scripts/bench.js (which prints the figures) and
// the e2e test that checks README.md's quoted bytes. Playwright pages in, numbers out.
import { gzipSync } from 'node:zlib';

/** When the first plan is on screen: the plan summary exists (performance.now() in the page). */
export const FIRST_PLAN_SCRIPT = () => {
  new MutationObserver((_, observer) => {
    if (document.querySelector('[data-testid=plan-summary]')) {
      window.__firstPlanMs = performance.now();
      observer.disconnect();
    }
  }).observe(document, { childList: true, subtree: true });
};

const isCode = (response) => {
  const type = response.request().resourceType();
  return type === 'script' || /\.(m?js|wasm)(\?|$)/.test(response.url());
};

/**
 * Loads `url` in `page` (a fresh context: empty cache) and sums the JS and wasm responses whose
 * requests started before the first plan arrived: {gzip, raw, files} in bytes (gzip: zlib's
 * default level, what a static host serves). What loads after it (the pictures engine, the lazy
 * chunks of the figures below the fold) is not counted.
 */
/** Each URL's response once: the planner's and the pictures' workers run the same worker.js, and
 * the browser answers its second fetch from its cache (a 304 at most), so its bytes cross once. */
export const oncePerUrl = (responses) => [...new Map(responses.map((r) => [r.url(), r])).values()];

export async function transferredForFirstPlan(page, url) {
  const responses = [];
  page.on('response', (r) => { if (isCode(r)) responses.push(r); });
  await page.addInitScript(FIRST_PLAN_SCRIPT);
  await page.goto(url);
  await page.waitForSelector('[data-testid=plan-summary]', { timeout: 20000 });
  // The answer's arrival (the store's mark, set before it renders): what the render then loads
  // lazily (the figures below the fold) is not needed for the first plan.
  const firstPlanEpochMs = await page.evaluate(() => performance.timeOrigin
    + (performance.getEntriesByName('pplan:plan')[0] || { startTime: window.__firstPlanMs }).startTime);
  let gzip = 0;
  let raw = 0;
  let files = 0;
  for (const r of oncePerUrl(responses)) {
    if (r.request().timing().startTime > firstPlanEpochMs) continue;
    const body = await r.body();
    raw += body.length;
    gzip += gzipSync(body).length;
    files += 1;
  }
  return { gzip, raw, files };
}

/**
 * Milliseconds from an edit (the GPU count typed into #f-gpus, as one input event) to its plan on
 * screen: the summary shows a new layout and the results are no longer marked stale, measured in
 * the page up to the next animation frame (the frame that paints it).
 */
export function editToResult(page, gpus) {
  return page.evaluate((value) => new Promise((resolve, reject) => {
    const field = document.querySelector('#f-gpus');
    const before = document.querySelector('[data-testid=plan-summary]')?.getAttribute('data-plan');
    const start = performance.now();
    const timeout = setTimeout(() => { observer.disconnect(); reject(new Error('no result within 10 s')); }, 10000);
    const observer = new MutationObserver(() => {
      const s = document.querySelector('[data-testid=plan-summary]');
      if (s && s.getAttribute('data-plan') !== before && !document.querySelector('.results.stale')) {
        observer.disconnect();
        clearTimeout(timeout);
        requestAnimationFrame(() => resolve(performance.now() - start));
      }
    });
    observer.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    field.value = value;
    field.dispatchEvent(new Event('input', { bubbles: true }));
  }), String(gpus));
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** The table README.md quotes, between <!-- bench:start --> and <!-- bench:end --> (scripts/bench.js prints it). */
export function benchTable({ firstPlanMs, sharedFirstPlanMs, editMs, searchedEditMs, loadedKb, date, load }) {
  return [
    '<!-- bench:start -->',
    `| measure (\`npm --prefix web run bench\`, ${date}, 2 shared cores, load average ${load}) | figure | budget |`,
    '|---|---|---|',
    `| first plan on screen, cold load of the default page (median of 5; its answer is prerendered) | ${firstPlanMs.toFixed(0)} ms | ≤ 500 ms |`,
    `| first plan from a shared link, cold load (Llama 3 70B, 256 H100, every layout searched; median of 5) | ${sharedFirstPlanMs.toFixed(0)} ms | none |`,
    `| result after an edit (median of 10 GPU-count edits, the default page) | ${editMs.toFixed(0)} ms | ≤ 150 ms |`,
    `| result after an edit, every layout searched (GPT-3 175B, 1,024 GPUs; median of 10) | ${searchedEditMs.toFixed(0)} ms | ≤ 150 ms |`,
    `| JS + wasm loaded for the first plan | ${loadedKb.toFixed(1)} KB gzip | ≤ 250 KB |`,
    '<!-- bench:end -->',
  ].join('\n');
}

/** The figures README.md quotes (see benchTable), as numbers. Throws when the table is missing. */
export function readmeFigures(readme) {
  const block = /<!-- bench:start -->([\s\S]*?)<!-- bench:end -->/.exec(readme);
  if (!block) throw new Error('README.md has no <!-- bench:start --> table');
  const figure = (label, unit) => {
    const m = new RegExp(`\\| ${label}[^|]*\\| ([\\d.]+) ${unit}`).exec(block[1]);
    if (!m) throw new Error(`README.md bench table has no "${label}" row`);
    return Number(m[1]);
  };
  return {
    firstPlanMs: figure('first plan on screen', 'ms'), sharedFirstPlanMs: figure('first plan from a shared link', 'ms'), editMs: figure('result after an edit \\(', 'ms'),
    searchedEditMs: figure('result after an edit, every layout searched', 'ms'), loadedKb: figure('JS \\+ wasm loaded', 'KB'),
  };
}
