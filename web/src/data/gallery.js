// The worked-examples gallery: scenario files from examples/ with the figures their sources
// published. Each run names its case in tests/data/published-runs.json, whose scenario its
// example file equals (web/tests/gallery.test.js), so pplan's figure, computed live with
// `plan --top 1`, is the accuracy tables' figure for that run (docs/accuracy.md).

import { groupDigits } from '../state/format.js';
import { scheduleName } from '../state/messages.js';

const files = import.meta.glob('../../../examples/*.json', { eager: true, import: 'default' });

/** The scenario document of examples/<file>. */
export function exampleScenario(file) {
  const doc = files[`../../../examples/${file}`];
  if (!doc) throw new Error(`examples/${file} is missing`);
  return doc;
}

/** Every other examples/*.json file (name and description from the file), for "More scenarios". */
export function otherExamples() {
  const listed = new Set(GALLERY.map((g) => g.file));
  return Object.entries(files)
    .map(([path, doc]) => ({ file: path.split('/').pop(), name: doc.name || path.split('/').pop(), description: doc.description || '' }))
    .filter((e) => !listed.has(e.file))
    .sort((a, b) => a.file.localeCompare(b.file));
}

const MEGATRON = 'Narayanan et al. 2021, Megatron-LM on GPU clusters (SC\'21), Table 1';
const LLAMA = 'Llama Team 2024, The Llama 3 Herd of Models, §3.3.2 Table 4';

function megatron(size, gpus, hfu, tflops, tp, pp, dp) {
  return {
    file: `megatron2021-t1-${size}b-${gpus}-a100.json`, group: 'megatron', case: `narayanan21_t1_${size}B`,
    title: `GPT ${size}B · ${groupDigits(gpus)} A100`, source: MEGATRON,
    published: { metric: 'hfu', value: hfu, tflops_per_gpu: tflops, tp, pp, dp, cp: 1 },
  };
}

/**
 * The run as it was run, with only the published layout pinned and today's stack: what pplan
 * would change. Megatron-LM of 2021 becomes Megatron-Core; other frameworks stay.
 */
export function bestWithPublishedPins(doc) {
  const { tp, pp, dp, cp } = doc.parallel;
  const framework = doc.training.framework === 'megatron-lm' ? 'megatron-core' : doc.training.framework;
  const training = { ...doc.training };
  if (framework) training.framework = framework;
  return { ...doc, training, parallel: { tp, pp, dp, cp } };
}

/** What `best` changes from `asRun` (both engine plans), in words. */
export function changesFrom(asRun, best, asRunDoc, bestDoc) {
  const a = asRun.parallel;
  const b = best.parallel;
  const out = [];
  if (asRunDoc.training.framework !== bestDoc.training.framework) out.push(bestDoc.training.framework);
  if (a.sequence_parallel !== b.sequence_parallel) out.push(b.sequence_parallel ? 'sequence parallel' : 'no sequence parallel');
  if (a.zero !== b.zero) out.push(`ZeRO ${b.zero}`);
  if (a.recompute !== b.recompute) out.push(`recompute ${b.recompute}`);
  if (a.micro_batch !== b.micro_batch) out.push(`micro-batch ${b.micro_batch}`);
  if ((a.vpp || 1) !== (b.vpp || 1)) out.push(`virtual stages ${b.vpp}`);
  if (a.schedule !== b.schedule && b.schedule) out.push(`${scheduleName(b.schedule)} schedule`);
  return out;
}

export const GALLERY = [
  {
    file: 'gpt3-175b-1024-a100.json', group: 'walkthrough',
    title: 'GPT-3 175B on 1,024 A100-80GB: the worked answer',
    source: 'worked example (Narayanan et al. 2021; Korthikanti et al. 2022)',
    published: null,
    worked: ['2.8 TB of model states → ≥ 35 GPUs per replica', 't = 8 inside a node',
             'p = 4: 87.5 GB, does not fit; p = 8: 43.75 + 10.27 ≈ 54 GB of 80',
             'N = 16, m = 96, bubble 7/96 ≈ 7.3%', 'distributed optimizer: ≈ 13 GB of model states'],
  },
  {
    file: 'llama3-405b-8k-16384-h100.json', group: 'llama', case: 'llama3_405b_16384gpu_seq8192',
    title: 'Llama 3 405B, 8K context, 16,384 H100', source: LLAMA,
    published: { metric: 'mfu', value: 0.41, tflops_per_gpu: 400, tp: 8, pp: 16, dp: 128, cp: 1 },
  },
  {
    file: 'llama3-405b-128k-16384-h100.json', group: 'llama', case: 'llama3_405b_16384gpu_seq131072',
    title: 'Llama 3 405B, 128K context, 16,384 H100', source: LLAMA,
    published: { metric: 'mfu', value: 0.38, tflops_per_gpu: 380, tp: 8, pp: 16, dp: 8, cp: 16 },
  },
  megatron('1.7', 32, 0.44, 137, 1, 1, 32),
  megatron('3.6', 64, 0.44, 138, 2, 1, 32),
  megatron('7.5', 128, 0.46, 142, 4, 1, 32),
  megatron('18.4', 256, 0.43, 135, 8, 1, 32),
  megatron('39.1', 512, 0.44, 138, 8, 2, 32),
  megatron('76.1', 1024, 0.45, 140, 8, 4, 32),
  megatron('145.6', 1536, 0.47, 148, 8, 8, 24),
  megatron('310.1', 1920, 0.50, 155, 8, 16, 15),
  megatron('529.6', 2520, 0.52, 163, 8, 35, 9),
  megatron('1008.0', 3072, 0.52, 163, 8, 64, 6),
];
