// @vitest-environment node
// The real generated engine: wasm/native parity on every example, and the envelope mapping.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { FULL_COMMANDS, PlannerError, needsFullEngine, callEngine, request, requestText, unwrap, engineVersion } from '../src/engine/index.js';
import createNodeEngine from '../src/engine/node-engine.js';
import { PARTS } from '../src/components/TimeBreakdown.jsx';
import { GPU_FIELDS, LOCAL_ATTENTION_FIELDS, MAMBA_FIELDS, MLA_FIELDS, MODEL_FIELDS, MOE_FIELDS, PATHS, presetToCustom, toScenario } from '../src/state/scenario.js';
import { DEFAULT_STATE } from '../src/state/url.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const examplesDir = resolve(root, 'examples');
const examples = readdirSync(examplesDir).filter((f) => f.endsWith('.json')).sort();
// PPLAN_CLI overrides the binary (e.g. a developer's own build directory).
const cli = process.env.PPLAN_CLI || resolve(root, 'build/native/core/pplan');

/** The only field allowed to differ between runs: the search's wall-clock time. */
const normalise = (text) => text.trim().replace(/"elapsed_ms": [0-9.e+-]+/g, '"elapsed_ms": 0');

beforeAll(() => {
  if (!existsSync(cli)) {
    const env = { ...process.env };
    execFileSync('cmake', ['--preset', 'native'], { cwd: root, env, stdio: 'ignore' });
    execFileSync('cmake', ['--build', '--preset', 'native', '--target', 'pplan'], { cwd: root, env, stdio: 'inherit' });
  }
}, 600000);

function runCli(command, file) {
  const r = spawnSync(cli, [command, resolve(examplesDir, file)], { encoding: 'utf8', maxBuffer: 64 << 20 });
  return { status: r.status, stdout: r.stdout };
}

/** `pplan request -`: a whole envelope on stdin, as the wasm module receives it. */
function runCliRequest(request) {
  const r = spawnSync(cli, ['request', '-'], { input: JSON.stringify(request), encoding: 'utf8', maxBuffer: 64 << 20 });
  return { status: r.status, stdout: r.stdout };
}

describe('wasm and CLI answer byte for byte the same', () => {
  it('has examples to compare', () => {
    expect(examples.length).toBeGreaterThanOrEqual(3);
    expect(examples).toContain('gpt3-175b-1024-a100.json');
  });
  for (const file of examples) {
    for (const command of ['evaluate', 'plan']) {
      it(`${command} examples/${file}`, async () => {
        const scenario = JSON.parse(readFileSync(resolve(examplesDir, file), 'utf8'));
        const native = runCli(command, file);
        expect(native.status).toBe(0);
        const wasm = await requestText({ command, scenario });
        expect(normalise(wasm)).toBe(normalise(native.stdout));
      });
    }
  }
});

describe('the layout view: wasm equals `pplan layout_view`', () => {
  for (const file of examples) {
    it(`layout_view examples/${file}`, async () => {
      const scenario = JSON.parse(readFileSync(resolve(examplesDir, file), 'utf8'));
      const native = runCli('layout_view', file);
      expect(native.status).toBe(0);
      const wasm = await requestText({ command: 'layout_view', scenario });
      expect(normalise(wasm)).toBe(normalise(native.stdout));
      expect(JSON.parse(wasm).view.rows.length).toBeLessThanOrEqual(10);
    });
  }
});

describe('the pipeline schedule: wasm equals `pplan schedule`, the timeline\'s data', () => {
  for (const file of examples) {
    it(`schedule examples/${file}`, async () => {
      const scenario = JSON.parse(readFileSync(resolve(examplesDir, file), 'utf8'));
      const native = runCli('schedule', file);
      expect(native.status).toBe(0);
      const wasm = await requestText({ command: 'schedule', scenario });
      expect(normalise(wasm)).toBe(normalise(native.stdout));
      const s = JSON.parse(wasm).schedule;
      if (s.drawn) expect(s.ops.count).toBeLessThanOrEqual(3000); // the engine's window
    });
  }
  it('the worked example: 1F1B on 8 stages, 96 micro-batches, makespan 3·(96 + 7) = 309 forwards', async () => {
    const scenario = JSON.parse(readFileSync(resolve(examplesDir, 'gpt3-175b-1024-a100.json'), 'utf8'));
    const s = (await request({ command: 'schedule', scenario })).schedule;
    expect(s.makespan_units).toBe(309);
    expect(s.idle_share).toBeCloseTo(7 / 103, 5);
    expect(s.ops.count).toBe(1536);
    expect(s.ops.kind.length).toBe(1536);
    expect(s.ops.end_ticks[1535] * s.units_per_tick).toBe(309);
  });
});

describe('Hugging Face import: wasm equals `pplan import_model`', () => {
  it('Llama 3.1 8B maps to 32 layers, GQA 8, FFN 14336, SwiGLU', async () => {
    const path = resolve(root, 'tests/data/hf-configs/meta-llama--Llama-3.1-8B.json');
    const config = JSON.parse(readFileSync(path, 'utf8'));
    // The same envelope both ways (JSON.stringify writes the file's 500000.0 as 500000).
    const request = { command: 'import_model', config };
    const wasm = await requestText(request);
    expect(normalise(wasm)).toBe(normalise(runCliRequest(request).stdout));
    const body = JSON.parse(wasm);
    expect(body.model).toMatchObject({ layers: 32, hidden: 4096, heads: 32, kv_heads: 8, ffn_hidden: 14336, vocab: 128256, activation: 'swiglu' });
    expect(body.mapped_from.layers.from).toBe('num_hidden_layers');
  });

  it('gpt-oss-120b keeps its head width, windows, sinks and biases, and the form\'s custom spec plans them', async () => {
    const path = resolve(root, 'tests/data/hf-configs/openai--gpt-oss-120b.json');
    const request = { command: 'import_model', config: JSON.parse(readFileSync(path, 'utf8')) };
    const wasm = await requestText(request);
    expect(normalise(wasm)).toBe(normalise(runCliRequest(request).stdout));
    const body = JSON.parse(wasm);
    expect(body.model).toMatchObject({ head_dim: 64, linear_bias: true, attention_sinks: true,
      local_attention: { tokens: 128, global_every: 2, chunked: false }, moe: { experts: 128, top_k: 4 } });
    // The page's custom-model form edits text: its fields, booleans and blocks reach the engine
    // as the same model (scenario.js toScenario).
    const spec = presetToCustom(body.model, 'model');
    spec.qk_norm = 'true';
    spec.moe.every = '2';
    const scenario = toScenario({ ...DEFAULT_STATE, model: spec, gpu: 'h100-sxm', gpus: '64', seq: '4096', gbs: '512', tp: '', pp: '', dp: '' });
    expect(scenario.model).toMatchObject({ head_dim: 64, qk_norm: true, linear_bias: true,
      local_attention: { tokens: 128, global_every: 2, chunked: false }, moe: { every: 2 } });
    const plan = JSON.parse(await requestText({ command: 'plan', scenario }));
    expect(plan.ok).toBe(true);
    expect(plan.plans[0].fits).toBe(true);
  });
});

describe('every field the engine reports has a control on the page (issue #25)', () => {
  it('the resolved training switches and the plan\'s parallel fields each have a form key', async () => {
    // A MoE scenario in FP8 with a pinned uneven split and partial recomputation, so that the
    // engine reports every optional training and parallel field it has.
    const scenario = { schema_version: 1, model: 'deepseek-v3', cluster: { gpu: 'h100-sxm', gpus: 1024 },
      training: { seq_len: 4096, global_batch: 4096, precision: 'fp8' },
      parallel: { tp: 2, pp: 16, dp: 32, ep: 32, etp: 1, recompute: 'full', recompute_layers: 1, first_stage_layers: 3, last_stage_layers: 3 } };
    const body = JSON.parse(await requestText({ command: 'evaluate', scenario }));
    expect(body.ok).toBe(true);
    const paths = new Set(Object.values(PATHS));
    const missing = [];
    for (const key of Object.keys(body.training)) if (!paths.has(`/training/${key}`)) missing.push(`training.${key}`);
    for (const key of Object.keys(body.parallel)) if (!paths.has(`/parallel/${key}`)) missing.push(`parallel.${key}`);
    // One stage with offloaded activations reports parallel.offload_layers.
    const offload = JSON.parse(await requestText({ command: 'evaluate', scenario: { schema_version: 1, model: 'llama3-70b',
      cluster: { gpu: 'gb300', gpus: 64 }, training: { seq_len: 8192, global_batch: 256 },
      parallel: { tp: 1, pp: 1, dp: 64, micro_batch: 2, zero: 3, recompute: 'none', offload_layers: 30 } } }));
    expect(offload.parallel.offload_layers).toBe(30);
    for (const key of Object.keys(offload.parallel)) if (!paths.has(`/parallel/${key}`)) missing.push(`parallel.${key}`);
    expect(missing).toEqual([]);
  });

  it('every field of every model preset has a field in the custom-model form', async () => {
    const presets = JSON.parse(await requestText({ command: 'presets', sources: false }));
    const blocks = { moe: MOE_FIELDS, mla: MLA_FIELDS, local_attention: LOCAL_ATTENTION_FIELDS, mamba: MAMBA_FIELDS };
    const notEdited = new Set(['id', 'source', 'schema_version']);  // a custom model's identity, not its shape
    const missing = new Set();
    for (const model of Object.values(presets.models)) {
      for (const [key, value] of Object.entries(model)) {
        if (notEdited.has(key)) continue;
        if (key in blocks) {
          for (const inner of Object.keys(value || {})) if (!blocks[key].includes(inner)) missing.add(`${key}.${inner}`);
        } else if (!MODEL_FIELDS.includes(key)) missing.add(key);
      }
    }
    // A GPU's memory_gib is its memory_gb field (one figure: the GiB it holds); its system is what
    // the Topology controls (nvd, nics, nicg) override.
    const gpuNotEdited = new Set([...notEdited, 'memory_gib', 'system']);
    for (const gpu of Object.values(presets.gpus)) {
      for (const key of Object.keys(gpu)) if (!gpuNotEdited.has(key) && !GPU_FIELDS.includes(key)) missing.add(`gpu.${key}`);
    }
    expect([...missing].sort()).toEqual([]);
  });
});

describe('the search pictures: wasm equals `pplan landscape` and `pplan scaling`', () => {
  for (const file of examples) {
    for (const command of ['landscape', 'scaling']) {
      it(`${command} examples/${file}`, async () => {
        const scenario = JSON.parse(readFileSync(resolve(examplesDir, file), 'utf8'));
        const native = runCli(command, file);
        expect(native.status).toBe(0);
        const wasm = await requestText({ command, scenario });
        expect(wasm.trim()).toBe(native.stdout.trim());
      });
    }
  }
  it('the step-time bar names every part of the engine\'s time_s, and they add up to the step', async () => {
    // DeepSeek-V3 on 2,048 H800 as DeepSeek ran it: most parts above zero.
    const scenario = JSON.parse(readFileSync(resolve(examplesDir, 'deepseek-v3-2048-h800.json'), 'utf8'));
    const plan = JSON.parse(await requestText({ command: 'plan', scenario, top: 1 })).plans[0];
    const labelled = new Set(PARTS.map(([key]) => key));
    expect(Object.keys(plan.time_s).filter((key) => !labelled.has(key))).toEqual([]);
    const sum = Object.values(plan.time_s).reduce((a, b) => a + b, 0);
    expect(sum).toBeCloseTo(plan.step_time_s, 3);
  });
  it('landscape of a free search (GPT-3 175B, nothing pinned), bounded, the recommended plan the plan command\'s', async () => {
    const scenario = JSON.parse(readFileSync(resolve(examplesDir, 'gpt3-175b-1024-a100.json'), 'utf8'));
    delete scenario.parallel;
    const request = { command: 'landscape', scenario, top: 10 };
    const wasm = await requestText(request);
    expect(wasm.trim()).toBe(runCliRequest(request).stdout.trim());
    const landscape = JSON.parse(wasm).landscape;
    expect(landscape.points.length).toBeLessThanOrEqual(landscape.max_points);
    const best = landscape.points.find((p) => p.rank === 0);
    const plan = JSON.parse(await requestText({ command: 'plan', scenario, top: 10 })).plans[0];
    expect(best.parallel).toEqual(plan.parallel);
    expect(best.step_time_s).toBe(plan.step_time_s);
  });
  it('nearest GPU counts: 257 GPUs with the worked grid pinned suggest 256 and 384', async () => {
    const scenario = JSON.parse(readFileSync(resolve(examplesDir, 'gpt3-175b-1024-a100.json'), 'utf8'));
    scenario.cluster.gpus = 257;
    delete scenario.parallel.dp;
    const request = { command: 'plan', scenario, top: 3, nearest_gpus: true };
    const wasm = await requestText(request);
    expect(normalise(wasm)).toBe(normalise(runCliRequest(request).stdout));
    const body = JSON.parse(wasm);
    expect(body.plans).toEqual([]);
    expect(body.nearest_gpus.below.gpus).toBe(256);
    expect(body.nearest_gpus.above.gpus).toBe(384);
  });
});

describe('the design report: wasm Markdown equals `pplan report`', () => {
  for (const file of examples) {
    it(`report examples/${file}`, async () => {
      const scenario = JSON.parse(readFileSync(resolve(examplesDir, file), 'utf8'));
      const native = runCli('report', file);
      expect(native.status).toBe(0);
      const body = JSON.parse(await requestText({ command: 'report', scenario }));
      expect(body.markdown).toBe(native.stdout);
      expect(body.report.formulas.length).toBeGreaterThan(10);
    });
  }
});

describe('launch (the full engine): wasm equals `pplan request` in every format', () => {
  const formats = ['megatron', 'slurm', 'env', 'torchtitan', 'torchtitan-toml', 'deepspeed', 'nemo', 'nccl-tests', 'layout'];
  for (const format of formats) {
    it(`launch --format ${format}, the worked example`, async () => {
      const scenario = JSON.parse(readFileSync(resolve(examplesDir, 'gpt3-175b-1024-a100.json'), 'utf8'));
      const request = { command: 'launch', scenario, format };
      const native = runCliRequest(request);
      const wasm = await requestText(request);
      expect(JSON.parse(wasm).error?.code).not.toBe('request.not_in_this_engine');
      expect(normalise(wasm)).toBe(normalise(native.stdout));
    });
  }
});

describe('the two engines: the first-plan one answers every command but FULL_COMMANDS, as the full one does', () => {
  let firstPlan;
  let full;
  let commands;
  beforeAll(async () => {
    [firstPlan, full] = await Promise.all([createNodeEngine('plan'), createNodeEngine('full')]);
    // The engine's own command list, as its unknown-command message gives it.
    const unknown = JSON.parse(full.handleRequest(JSON.stringify({ command: 'no_such_command' })));
    commands = unknown.error.message.match(/\(commands: ([^)]*)\)/)[1].split(', ');
  });
  const worked = () => JSON.parse(readFileSync(resolve(examplesDir, 'gpt3-175b-1024-a100.json'), 'utf8'));
  const ask = (engine, command) => JSON.parse(engine.handleRequest(JSON.stringify(
    command === 'import_model' ? { command, config: {} } : command === 'version' ? { command }
      : command === 'presets' ? { command, sources: false } : { command, scenario: worked() })));

  it('the full-only commands are the engine\'s launch, report, import_model and calibrate', () => {
    expect(commands).toHaveLength(13);
    expect([...FULL_COMMANDS].sort()).toEqual(['calibrate', 'import_model', 'launch', 'report']);
    for (const command of FULL_COMMANDS) expect(commands).toContain(command);
  });

  it('the first-plan engine refuses the full-only commands by name, and only those', () => {
    for (const command of commands) {
      const answer = ask(firstPlan, command);
      if (FULL_COMMANDS.has(command)) {
        expect(answer.error, command).toEqual({
          code: 'request.not_in_this_engine', path: '/command',
          message: `"${command}" is answered by the full engine (pplan.wasm), not by the first-plan engine (pplan-plan.wasm)`,
        });
        expect(ask(full, command).error?.code, command).not.toBe('request.not_in_this_engine');
      } else {
        expect(answer.ok, command).toBe(true);
      }
    }
  });

  it('both engines answer the first-plan commands byte for byte the same', () => {
    for (const command of commands.filter((c) => !FULL_COMMANDS.has(c) && c !== 'scaling')) {
      const request = JSON.stringify(command === 'version' ? { command }
        : command === 'presets' ? { command, sources: false } : { command, scenario: worked() });
      expect(normalise(firstPlan.handleRequest(request)), command).toBe(normalise(full.handleRequest(request)));
    }
  });

  it('the presets with their sources come from the full engine: the first-plan one carries none', async () => {
    const withSources = JSON.stringify({ command: 'presets' });
    expect(JSON.parse(firstPlan.handleRequest(withSources)).error).toEqual({
      code: 'request.not_in_this_engine', path: '/sources',
      message: 'presets with their sources are answered by the full engine (pplan.wasm); the first-plan engine answers "sources": false',
    });
    const full_ = JSON.parse(full.handleRequest(withSources));
    expect(Object.values(full_.models).every((m) => m.source.length > 0)).toBe(true);
    expect(Object.values(full_.gpus).every((g) => g.source.length > 0)).toBe(true);
    // Without sources, the same presets otherwise.
    const bare = JSON.parse(firstPlan.handleRequest(JSON.stringify({ command: 'presets', sources: false })));
    for (const kind of ['models', 'gpus']) {
      for (const [id, spec] of Object.entries(full_[kind])) {
        const { source, ...rest } = spec;
        expect(bare[kind][id], `${kind}.${id}`).toEqual(rest);
      }
    }
    expect(needsFullEngine({ command: 'presets' })).toBe(true);
    expect(needsFullEngine({ command: 'presets', sources: false })).toBe(false);
  });

  it('the facade sends the full-only commands to the full engine', async () => {
    for (const command of FULL_COMMANDS) {
      const answer = JSON.parse(await requestText(command === 'import_model' ? { command, config: {} } : { command, scenario: worked() }));
      expect(answer.error?.code, command).not.toBe('request.not_in_this_engine');
    }
  });
});

describe('envelope mapping', () => {
  it('returns the body of an ok envelope', async () => {
    const body = await request({ command: 'version' });
    expect(body.ok).toBe(true);
    expect(body.schema_version).toBe(1);
    expect(await engineVersion()).toMatch(/^\d+\.\d+\.\d+$/);
    expect(body.engine_version).toBe(await engineVersion());
  });

  it('turns truncated JSON into a PlannerError with the engine code', async () => {
    const error = await request('{"command":"plan","scenario":{').catch((e) => e);
    expect(error).toBeInstanceOf(PlannerError);
    expect(error.code).toBe('schema.parse_error');
  });

  it('keeps the JSON path of a bad field', async () => {
    const scenario = JSON.parse(readFileSync(resolve(examplesDir, 'gpt3-175b-1024-a100.json'), 'utf8'));
    scenario.parallel.ppp = 4;
    const error = await request({ command: 'evaluate', scenario }).catch((e) => e);
    expect(error).toBeInstanceOf(PlannerError);
    expect(error.code).toBe('schema.unknown_field');
    expect(error.path).toBe('/parallel/ppp');
  });

  it('names the field of a wrong type', async () => {
    const scenario = JSON.parse(readFileSync(resolve(examplesDir, 'gpt3-175b-1024-a100.json'), 'utf8'));
    scenario.cluster.gpus = '8x';
    const error = await request({ command: 'plan', scenario }).catch((e) => e);
    expect(error.path).toBe('/cluster/gpus');
    expect(error.message).toMatch(/gpus/);
  });

  it('maps anything the module throws to internal', () => {
    for (const thrown of [5258280, new Error('x'), undefined]) {
      const fake = { handleRequest: () => { throw thrown; } };
      expect(() => callEngine(fake, '{}')).toThrow(PlannerError);
      try { callEngine(fake, '{}'); } catch (e) { expect(e.code).toBe('internal'); }
    }
  });

  it('unwrap rejects malformed envelopes', () => {
    expect(() => unwrap('not json')).toThrow(PlannerError);
    expect(() => unwrap('{"ok":false,"error":{"code":"x.y","path":"/a","message":"m"}}')).toThrow('m');
    expect(unwrap('{"ok":true,"a":1}').a).toBe(1);
  });

  it('an infeasible scenario is data, not an error', async () => {
    const scenario = JSON.parse(readFileSync(resolve(examplesDir, 'gpt3-175b-1024-a100.json'), 'utf8'));
    scenario.cluster.gpus = 8;
    scenario.training.global_batch = 8;
    scenario.parallel = { tp: 8, pp: 1 };
    const body = await request({ command: 'plan', scenario });
    expect(body.plans).toEqual([]);
    expect(body.explanation.has_plan).toBe(false);
  });
});

describe('calibrate (the full engine): wasm equals `pplan request`', () => {
  it('the README\'s worked calibration answers byte for byte alike', async () => {
    const nccl = ['h100-8gpu-all_reduce.txt', 'h100-2node-16gpu-all_reduce-srun-prefix.txt']
      .map((f) => readFileSync(resolve(root, 'tests/data/nccl-tests', f), 'utf8'));
    const scenario = JSON.parse(readFileSync(resolve(examplesDir, 'calibrate-llama3-70b-64-h100.json'), 'utf8'));
    const request = { command: 'calibrate', scenario, nccl_tests: nccl,
      steps: [{ parallel: { tp: 4, pp: 8, dp: 2, vpp: 5, micro_batch: 1, zero: 1 }, step_time_s: 20.21 }] };
    const wasm = await requestText(request);
    expect(wasm.trim()).toBe(runCliRequest(request).stdout.trim());
    const body = JSON.parse(wasm);
    expect(body.ok).toBe(true);
    expect(body.gpu.preset).toBe('h100-sxm');
    expect(body.rms_log_error.after).toBeLessThan(body.rms_log_error.before);
  });
});
