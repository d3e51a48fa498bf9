// The inputs: model (preset or custom), GPU (preset or custom), cluster, training and the
// parallel pins. Empty parallel fields are searched. Values stay as typed; the engine judges.
import { Field } from './Field.jsx';
import { GPU_FIELDS, MODEL_FIELDS, MOE_FIELDS, presetToCustom } from '../state/scenario.js';

const MODEL_LABELS = {
  name: 'Name', layers: 'Layers', hidden: 'Hidden size', heads: 'Attention heads', kv_heads: 'KV heads (GQA)',
  ffn_hidden: 'FFN hidden', vocab: 'Vocabulary', activation: 'Activation',
  experts: 'Experts', top_k: 'Experts per token (top-k)', shared_experts: 'Shared experts',
  expert_ffn_hidden: 'Expert FFN hidden', dense_layers: 'Dense layers (first)',
};
const GPU_LABELS = {
  name: 'Name', memory_gb: 'Memory (GB)', bf16_tflops: 'BF16 dense TFLOP/s', fp8_tflops: 'FP8 dense TFLOP/s',
  nvlink_gbytes_per_s: 'NVLink GB/s per GPU', network_gbytes_per_s: 'Network GB/s per GPU',
};
const SEARCHED = 'searched';

function specValue(spec, key) {
  const v = spec && spec[key];
  return v === undefined || v === null ? '' : String(v);
}

export function ScenarioForm({ state, presets, errors, onChange }) {
  const models = presets ? presets.models : {};
  const gpus = presets ? presets.gpus : {};
  const modelSpec = typeof state.model === 'string' ? models[state.model] : state.model;
  const gpuSpec = typeof state.gpu === 'string' ? gpus[state.gpu] : state.gpu;
  const modelIsPreset = typeof state.model === 'string';
  const gpuIsPreset = typeof state.gpu === 'string';

  const modelOptions = [...Object.entries(models).map(([id, m]) => [id, m.name]), ['custom', 'Custom model…']];
  if (modelIsPreset && !models[state.model]) modelOptions.unshift([state.model, state.model]);
  const gpuOptions = [...Object.entries(gpus).map(([id, g]) => [id, g.name]), ['custom', 'Custom GPU…']];
  if (gpuIsPreset && !gpus[state.gpu]) gpuOptions.unshift([state.gpu, state.gpu]);

  // Editing a preset's field turns it into a custom spec based on that preset.
  const editModel = (key, value, moe = false) => {
    const base = modelIsPreset ? (models[state.model] ? presetToCustom(models[state.model], 'model') : { moe: null }) : state.model;
    const next = { ...base };
    if (moe) next.moe = { ...Object.fromEntries(MOE_FIELDS.map((k) => [k, ''])), ...(base.moe || {}), [key]: value };
    else next[key] = value;
    onChange({ model: next });
  };
  const editGpu = (key, value) => {
    const base = gpuIsPreset ? (gpus[state.gpu] ? presetToCustom(gpus[state.gpu], 'gpu') : {}) : state.gpu;
    onChange({ gpu: { ...base, [key]: value } });
  };
  const pickModel = (id) => {
    if (id !== 'custom') onChange({ model: id });
    else if (modelIsPreset) onChange({ model: models[state.model] ? presetToCustom(models[state.model], 'model') : { moe: null } });
  };
  const pickGpu = (id) => {
    if (id !== 'custom') onChange({ gpu: id });
    else if (gpuIsPreset) onChange({ gpu: gpus[state.gpu] ? presetToCustom(gpus[state.gpu], 'gpu') : {} });
  };
  const err = (k) => errors[k];
  const moeOn = modelSpec && modelSpec.moe;

  return (
    <form class="scenario" onSubmit={(e) => e.preventDefault()} aria-label="Scenario">
      <fieldset>
        <legend>Model</legend>
        <Field id="f-model" label="Model" value={modelIsPreset ? state.model : 'custom'} options={modelOptions}
               onInput={pickModel} error={err('model')} wide />
        <details open={!modelIsPreset}>
          <summary>{modelIsPreset ? 'Architecture (edit to customise)' : 'Custom architecture'}</summary>
          <div class="grid">
            {MODEL_FIELDS.map((k) => (k === 'activation'
              ? <Field key={k} id={`f-model-${k}`} label={MODEL_LABELS[k]} value={specValue(modelSpec, k)}
                       options={[['gelu', 'GeLU'], ['swiglu', 'SwiGLU'], ...(['gelu', 'swiglu', ''].includes(specValue(modelSpec, k)) ? [] : [[specValue(modelSpec, k), specValue(modelSpec, k)]])]}
                       onInput={(v) => editModel(k, v)} error={err(`model.${k}`)} />
              : <Field key={k} id={`f-model-${k}`} label={MODEL_LABELS[k]} value={specValue(modelSpec, k)}
                       inputMode={k === 'name' ? 'text' : 'numeric'} wide={k === 'name'}
                       onInput={(v) => editModel(k, v)} error={err(`model.${k}`)} />))}
          </div>
          <p class="sub">Mixture of experts {moeOn ? '' : '(empty: dense model)'}</p>
          <div class="grid">
            {MOE_FIELDS.map((k) => (
              <Field key={k} id={`f-moe-${k}`} label={MODEL_LABELS[k]} value={specValue(moeOn, k)}
                     onInput={(v) => editModel(k, v, true)} error={err(`model.moe.${k}`) || (k === 'experts' && err('model.moe'))} />))}
          </div>
        </details>
      </fieldset>

      <fieldset>
        <legend>Hardware</legend>
        <Field id="f-gpu" label="GPU" value={gpuIsPreset ? state.gpu : 'custom'} options={gpuOptions}
               onInput={pickGpu} error={err('gpu')} wide />
        <details open={!gpuIsPreset}>
          <summary>{gpuIsPreset ? 'GPU spec (edit to customise)' : 'Custom GPU'}</summary>
          <div class="grid">
            {GPU_FIELDS.map((k) => (
              <Field key={k} id={`f-gpu-${k}`} label={GPU_LABELS[k]} value={specValue(gpuSpec, k)}
                     inputMode={k === 'name' ? 'text' : 'decimal'} wide={k === 'name'}
                     onInput={(v) => editGpu(k, v)} error={err(`gpu.${k}`)} />))}
          </div>
        </details>
        <div class="grid">
          <Field id="f-gpus" label="GPUs" value={state.gpus} onInput={(v) => onChange({ gpus: v })} error={err('gpus')} />
          <Field id="f-gpn" label="GPUs per node" value={state.gpn} onInput={(v) => onChange({ gpn: v })} error={err('gpn')} />
        </div>
      </fieldset>

      <fieldset>
        <legend>Training</legend>
        <div class="grid">
          <Field id="f-seq" label="Sequence length" value={state.seq} onInput={(v) => onChange({ seq: v })} error={err('seq')} />
          <Field id="f-gbs" label="Global batch (sequences)" value={state.gbs} onInput={(v) => onChange({ gbs: v })} error={err('gbs')} />
          <Field id="f-prec" label="Precision" value={state.prec} options={[['', 'default (BF16)'], ['bf16', 'BF16'], ['fp8', 'FP8'], ...(['bf16', 'fp8', ''].includes(state.prec) ? [] : [[state.prec, state.prec]])]}
                 onInput={(v) => onChange({ prec: v })} error={err('prec')} />
          <Field id="f-tokens" label="Token budget (tokens)" value={state.tokens} placeholder="optional, e.g. 300e9"
                 onInput={(v) => onChange({ tokens: v })} error={err('tokens')} hint="for days to train" />
        </div>
      </fieldset>

      <fieldset>
        <legend>Design report <span class="muted">(optional)</span></legend>
        <div class="grid">
          <Field id="f-storage" label="Storage write GB/s" value={state.storage} inputMode="decimal" placeholder="Llama 3's, scaled"
                 onInput={(v) => onChange({ storage: v })} error={err('storage')} />
          <Field id="f-failrate" label="Failures per GPU-hour" value={state.failrate} inputMode="decimal" placeholder="Llama 3's 1.97e-5"
                 onInput={(v) => onChange({ failrate: v })} error={err('failrate')} />
          <Field id="f-restart" label="Restart time (s)" value={state.restart} inputMode="decimal" placeholder="600"
                 onInput={(v) => onChange({ restart: v })} error={err('restart')} />
        </div>
      </fieldset>

      <fieldset>
        <legend>Parallelism <span class="muted">(empty = searched)</span></legend>
        <div class="grid pins">
          {[['tp', 'TP (tensor)'], ['pp', 'PP (pipeline)'], ['dp', 'DP (data)'], ['cp', 'CP (context)'],
            ['ep', 'EP (expert)'], ['vpp', 'VPP (chunks per stage)'], ['mbs', 'Micro-batch']].map(([k, label]) => (
            <Field key={k} id={`f-${k}`} label={label} value={state[k]} placeholder={SEARCHED}
                   onInput={(v) => onChange({ [k]: v })} error={err(k)} />))}
          <Field id="f-sp" label="Sequence parallel" value={state.sp}
                 options={[['', SEARCHED], ['true', 'on'], ['false', 'off'], ...(['', 'true', 'false'].includes(state.sp) ? [] : [[state.sp, state.sp]])]}
                 onInput={(v) => onChange({ sp: v })} error={err('sp')} />
          <Field id="f-rc" label="Recompute" value={state.rc}
                 options={[['', SEARCHED], ['none', 'none'], ['selective', 'selective'], ['full', 'full'], ...(['', 'none', 'selective', 'full'].includes(state.rc) ? [] : [[state.rc, state.rc]])]}
                 onInput={(v) => onChange({ rc: v })} error={err('rc')} />
          <Field id="f-zero" label="ZeRO stage" value={state.zero}
                 options={[['', SEARCHED], ['0', '0 (plain DP)'], ['1', '1 (dist. optimizer)'], ['2', '2 (+ gradients)'], ['3', '3 (FSDP)'], ...(['', '0', '1', '2', '3'].includes(state.zero) ? [] : [[state.zero, state.zero]])]}
                 onInput={(v) => onChange({ zero: v })} error={err('zero')} />
        </div>
        <button type="button" class="link" onClick={() => onChange({ tp: '', pp: '', dp: '', cp: '', ep: '', vpp: '', mbs: '', sp: '', rc: '', zero: '' })}>
          Unpin all (search every layout)
        </button>
      </fieldset>
    </form>
  );
}
