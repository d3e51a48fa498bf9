// The page catching up with the engine, in real headless Chromium: the pipeline timeline drawn
// from the engine's schedule, the topology fields and a GPU preset with overrides in links
// (issue #15), and a Hugging Face config.json pasted in (issue #10).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchChromium } from './browser.js';

const baseUrl = inject('baseUrl');
const llama8b = readFileSync(fileURLToPath(new URL('../../tests/data/hf-configs/meta-llama--Llama-3.1-8B.json', import.meta.url)), 'utf8');

let browser;
beforeAll(async () => { browser = await launchChromium(); });
afterAll(async () => { await browser?.close(); });

async function open(url) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('dialog', (d) => { errors.push(`dialog ${d.message()}`); d.dismiss(); });
  if (url) await page.goto(url);
  return { context, page, errors };
}
const planText = async (page) => `${await page.locator('.summary').first().textContent()}|${await page.locator('table.plans').textContent()}`;

describe('the pipeline timeline', () => {
  it('draws the engine\'s schedule of the worked example: 1F1B, 8 stages, 96 micro-batches', async () => {
    const { context, page, errors } = await open(baseUrl);
    await page.waitForSelector('[data-testid=timeline]', { timeout: 20000 });
    // 2·p·m = 1,536 passes: over 600, drawn as the forward and backward paths.
    const passes = await page.evaluate(() => ['fwd', 'bwd'].map((k) => (document.querySelector(`[data-testid=timeline-${k}]`).getAttribute('d').match(/M/g) || []).length));
    expect(passes).toEqual([768, 768]);
    // (p−1)/(m+p−1) = 7/103 of the step, 7/96 of the ideal time.
    expect(await page.locator('[data-testid=timeline-idle]').textContent()).toContain('6.8% of the step (7.3% of the ideal time)');
    expect(await page.locator('[data-testid=bubble-line]').textContent()).toContain('7.3% of the ideal compute time');
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('topology fields and a GPU preset with overrides (issue #15)', () => {
  it('a link with the topology round-trips and sets the engine\'s cluster', async () => {
    const hash = '#v=1&model=llama3-405b&gpu=gb200&gpus=1152&gpn=4&seq=8192&gbs=2048&prec=bf16&nvd=72&nics=4&nicg=400&rail=true&osub=2';
    const { context, page, errors } = await open(baseUrl + hash);
    await page.waitForSelector('table.plans', { timeout: 30000 });
    expect(await page.locator('details[data-testid=topology]').getAttribute('open')).not.toBeNull();
    expect(await page.locator('#f-nvd').inputValue()).toBe('72');
    expect(await page.locator('#f-osub').inputValue()).toBe('2');
    expect(await page.locator('#f-rail').inputValue()).toBe('true');
    const before = await planText(page);
    // The URL keeps them in the same order and form.
    await page.waitForFunction((h) => location.hash === h, hash);
    const other = await open(page.url());
    await other.page.waitForSelector('table.plans', { timeout: 30000 });
    expect(await planText(other.page)).toBe(before);
    await other.context.close();
    // The oversubscription halves the network the plan sees: another plan or slower.
    await page.fill('#f-osub', '');
    await page.waitForFunction(() => !/osub=/.test(location.hash));
    await page.waitForFunction((b) => {
      const s = document.querySelector('.summary'); const t = document.querySelector('table.plans');
      return s && t && `${s.textContent}|${t.textContent}` !== b;
    }, before, { timeout: 30000 });
    expect(errors).toEqual([]);
    await context.close();
  });

  it('an old link without them opens as before, the topology collapsed and empty', async () => {
    const hash = '#v=1&model=gpt3-175b&gpu=a100-80gb&gpus=1024&gpn=8&seq=2048&gbs=1536&prec=bf16&tp=8&pp=8&dp=16&cp=1&ep=1&vpp=1&mbs=1&sp=true&rc=selective&zero=0';
    const { context, page } = await open(baseUrl + hash);
    await page.waitForSelector('[data-testid=m-min-gpus]', { timeout: 20000 });
    expect(await page.locator('[data-testid=plan-layout]').textContent()).toBe('TP 8 · PP 8 · DP 16');
    expect(await page.locator('details[data-testid=topology]').getAttribute('open')).toBeNull();
    for (const id of ['nvd', 'nics', 'nicg', 'osub']) expect(await page.locator(`#f-${id}`).inputValue()).toBe('');
    expect(page.url().split('#')[1]).toBe(hash.slice(1));
    await context.close();
  });

  it('editing a preset GPU\'s field keeps the preset, names the change, and travels in the link', async () => {
    const { context, page } = await open(baseUrl);
    await page.waitForSelector('[data-testid=m-min-gpus]', { timeout: 20000 });
    await page.click('text=GPU spec (edit to change the preset)');
    await page.fill('#f-gpu-network_gbytes_per_s', '12.5');
    await page.waitForFunction(() => /[#&]z=/.test(location.hash));
    expect(await page.locator('#f-gpu').inputValue()).toBe('a100-80gb');
    expect(await page.locator('[data-testid=gpu-overrides]').textContent()).toContain('Network GB/s per GPU changed');
    await page.waitForFunction(() => !document.querySelector('.results.stale'));
    const before = await planText(page);
    const other = await open(page.url());
    await other.page.waitForSelector('[data-testid=gpu-overrides]', { timeout: 20000 });
    await other.page.waitForFunction(() => document.querySelector('table.plans') && !document.querySelector('.results.stale'));
    expect(await planText(other.page)).toBe(before);
    expect(await other.page.locator('#f-gpu-network_gbytes_per_s').inputValue()).toBe('12.5');
    await other.context.close();
    await page.click('text=Reset to the preset');
    await page.waitForFunction(() => /gpu=a100-80gb/.test(location.hash) && !/z=/.test(location.hash));
    await context.close();
  });
});

describe('a Hugging Face config.json (issue #10)', () => {
  it('pasted, fills the model with the engine\'s import and shows the mapping', async () => {
    const { context, page, errors } = await open(baseUrl);
    await page.waitForSelector('[data-testid=m-min-gpus]', { timeout: 20000 });
    await page.click('text=Import a Hugging Face config.json');
    // A hostile name: it must stay text.
    const config = { ...JSON.parse(llama8b), _name_or_path: '<img src=x onerror=alert(1)>' };
    await page.fill('#f-hf-config', JSON.stringify(config));
    await page.click('button:text-is("Import")');
    await page.waitForSelector('[data-testid=hf-result]');
    expect(await page.locator('#f-model-layers').inputValue()).toBe('32');
    expect(await page.locator('#f-model-kv_heads').inputValue()).toBe('8');
    expect(await page.locator('#f-model-ffn_hidden').inputValue()).toMatch(/^14,?336$/);
    expect(await page.locator('[data-testid=hf-result]').textContent()).toContain('num_hidden_layers');
    // Pins dropped with the previous model: the search finds a plan for the imported one.
    await page.waitForFunction(() => document.querySelectorAll('table.plans tbody tr').length > 1, null, { timeout: 30000 });
    expect(await page.locator('img').count()).toBe(0);
    // A config the engine refuses says why.
    await page.fill('#f-hf-config', '{"architectures": ["FooForCausalLM"], "hidden_size": 8}');
    await page.click('button:text-is("Import")');
    expect(await page.locator('[data-testid=hf-error]').textContent()).toMatch(/^Not imported: .*import\.unknown_architecture/);
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('calibrate to your cluster (issue #28)', () => {
  const data = (name) => readFileSync(fileURLToPath(new URL(`../../tests/data/nccl-tests/${name}`, import.meta.url)), 'utf8');
  it('paste nccl-tests runs and a measured step: the table, the plan, and the calibrated GPU in the link', async () => {
    const { context, page, errors } = await open(`${baseUrl}#v=1&model=llama3-70b&gpu=h100-sxm&gpus=64&gpn=8&seq=8192&gbs=256&prec=fp8&fw=megatron-core&tab=calibrate`);
    await page.waitForSelector('[data-testid=nccl-0]', { timeout: 20000 });
    await page.fill('[data-testid=nccl-0]', data('h100-8gpu-all_reduce.txt'));
    await page.click('text=Add another nccl-tests run');
    await page.fill('[data-testid=nccl-1]', data('h100-2node-16gpu-all_reduce-srun-prefix.txt'));
    await page.fill('[data-testid=step-layout-0]', 'tp=4,pp=8,dp=2,vpp=5,mb=1,zero=1');
    await page.fill('[data-testid=step-seconds-0]', '20.21');
    await page.click('[data-testid=calibrate]');
    await page.waitForSelector('[data-testid=calibration]', { timeout: 30000 });
    // The README's worked calibration, the same figures: NVLink 0.8 -> 0.8851, network 0.92 -> 0.6055.
    const constants = await page.locator('[data-testid=constants]').textContent();
    expect(constants).toMatch(/nvlink_efficiency[^]*0\.8\s*0\.8851/);
    expect(constants).toMatch(/network_efficiency[^]*0\.92\s*0\.6055/);
    expect(await page.locator('[data-testid=measurements] tbody tr').count()).toBe(18);
    expect(await page.locator('[data-testid=plan-change]').textContent()).toMatch(/recommended plan stays TP 4 · PP 4/);
    await page.click('[data-testid=use-calibrated]');
    await page.waitForFunction(() => /z=/.test(location.hash) || /nvlink_efficiency/.test(location.hash));
    const link = page.url();
    await page.click('nav.tabs button:text-is("Planner")');
    await page.waitForSelector('[data-testid=gpu-overrides]');
    expect(await page.locator('#f-gpu-nvlink_efficiency').inputValue()).toBe('0.885137');
    // The link carries the calibrated GPU: a fresh page opens it.
    const other = await open(link.replace(/tab=calibrate/, 'tab=plan'));
    await other.page.waitForSelector('[data-testid=gpu-overrides]', { timeout: 20000 });
    expect(await other.page.locator('#f-gpu-network_efficiency').inputValue()).toBe('0.605544');
    expect(await other.page.locator('[data-testid=gpu-overrides]').textContent()).toMatch(/NVLink share NCCL reaches/);
    await other.context.close();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a malformed paste is refused with its line and column, and nothing changes', async () => {
    const { context, page } = await open(`${baseUrl}#v=1&model=llama3-70b&gpu=h100-sxm&gpus=64&seq=8192&gbs=256&tab=calibrate`);
    await page.waitForSelector('[data-testid=nccl-0]', { timeout: 20000 });
    await page.fill('[data-testid=nccl-0]', data('h100-8gpu-all_reduce.txt').replace('4038.8', '40x8.8'));
    await page.click('[data-testid=calibrate]');
    await page.waitForSelector('[data-testid=calibrate-error]', { timeout: 30000 });
    expect(await page.locator('[data-testid=calibrate-error]').textContent()).toMatch(/^\/nccl_tests\/0: line 19, column \d+: "40x8\.8"/);
    await context.close();
  });
});

describe('the pipeline schedule and the FP8 SwiGLU input: launch never dead-ends', () => {
  it('DeepSeek-V3 as DeepSeek ran it (DualPipe, SwiGLU input in FP8): Megatron-LM refuses with fixes, one click each to a script', async () => {
    const { context, page, errors } = await open(`${baseUrl}#v=1&model=gpt3-175b&gpu=a100-80gb&gpus=1024&tab=examples`);
    await page.waitForSelector('table.gallery');
    // The example loads as the page loads any example: examples/deepseek-v3-2048-h800.json.
    await page.click('button[aria-label^="Load DeepSeek-V3 671B on 2048 H800"]');
    await page.waitForSelector('[data-testid=m-min-gpus]', { timeout: 30000 });
    expect(await page.locator('#f-sched').inputValue()).toBe('dualpipe');
    expect(await page.locator('#f-f8s').inputValue()).toBe('true');
    expect(await page.locator('[data-testid=plan-layout]').textContent()).toMatch(/^TP 1 · PP 16 \(DualPipe\) · DP 128 · EP 64$/);
    // The timeline draws 1F1B and interleaved only: the engine's reason, in words.
    await page.waitForSelector('[data-testid=timeline-not-drawn]', { timeout: 30000 });
    expect(await page.locator('[data-testid=timeline-not-drawn]').textContent()).toMatch(/^No timeline: .*dualpipe/);
    expect(await page.locator('#pipe-h').textContent()).toMatch(/^Pipeline schedule: DualPipe, p = 16/);

    await page.click('nav.tabs button:text-is("Launch")');
    await page.click('.tabs-inline label:text-is("Megatron-LM") input');
    await page.waitForSelector('[data-testid=fix-schedule]', { timeout: 30000 });
    expect(await page.locator('[data-testid=launch-fix-schedule]').textContent()).toContain('priced with the DualPipe schedule, which Megatron-Core does not run');
    expect(await page.locator('ul.diagnostics li.error').first().textContent()).toContain('dualpipe schedule');
    expect(await page.locator('[data-testid=fix-schedule]').textContent()).toBe('Price this plan with 1F1B');
    expect(await page.locator('pre.code').count()).toBe(0);
    await page.click('[data-testid=fix-schedule]');
    await page.waitForFunction(() => /sched=1f1b/.test(location.hash) || /z=/.test(location.hash), null, { timeout: 20000 });
    expect(await page.locator('#f-sched').inputValue()).toBe('1f1b');
    // Re-priced with 1F1B, the one refusal left is the switch Megatron-LM has no flag for: NeMo sets it.
    await page.waitForSelector('[data-testid=fix-nemo]', { timeout: 30000 });
    expect(await page.locator('[data-testid=fix-schedule]').count()).toBe(0);
    await page.click('[data-testid=fix-nemo]');
    await page.waitForSelector('pre.code', { timeout: 30000 });
    const recipe = await page.locator('pre.code').first().textContent();
    expect(recipe).toMatch(/pipeline_model_parallel_size = 16\b/);
    expect(recipe).toMatch(/activation_func_fp8_input_store = True/);
    // Or Megatron-LM with the switch off.
    await page.click('.tabs-inline label:text-is("Megatron-LM") input');
    await page.waitForSelector('[data-testid=fix-f8s]', { timeout: 30000 });
    await page.click('[data-testid=fix-f8s]');
    await page.waitForSelector('pre.code', { timeout: 30000 });
    const script = await page.locator('pre.code').first().textContent();
    expect(script).toMatch(/--pipeline-model-parallel-size 16\b/);
    expect(script).toContain('pretrain_gpt.py');
    expect(await page.locator('#f-f8s').inputValue()).toBe('');
    expect(errors).toEqual([]);
    await context.close();
  }, 180000);
});
