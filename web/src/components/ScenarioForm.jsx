// The inputs: model (preset or custom), GPU (preset or custom), cluster, training and the
// parallel pins. Empty parallel fields are searched; other empty fields take the documented
// defaults (scenario.js SCENARIO_DEFAULTS). Values stay as typed; the engine judges.
// `onChange(patch, {history})`: selects and buttons are discrete actions ('push': Back undoes
// them), typing replaces the current history entry.
import { useEffect, useRef } from 'preact/hooks';
import { Field } from './Field.jsx';
import { SCHEDULES, GPU_FIELDS, LOCAL_ATTENTION_FIELDS, MAMBA_FIELDS, MLA_FIELDS, MODEL_BOOLEANS, MODEL_FIELDS, MODEL_STYLE_BOOLEANS, MOE_FIELDS, SCENARIO_DEFAULTS, UNPINNED, gpuOverrides, isPinned, presetToCustom, resolveGpu, specToState, typed } from '../state/scenario.js';
import { FIELD_LABELS, GPU_LABELS, MODEL_LABELS } from '../state/messages.js';
import { ModelImport } from './ModelImport.jsx';

const ACTIVATIONS = [['gelu', 'GeLU'], ['swiglu', 'SwiGLU'], ['geglu', 'GeGLU'], ['squared_relu', 'Squared ReLU'],
  ['clamped_swiglu', 'Clamped SwiGLU (gpt-oss)']];
/** The activations, and a value the engine will refuse as it is (so the select shows it). */
const activationOptions = (value) => (!value || ACTIVATIONS.some(([v]) => v === value) ? ACTIVATIONS : [...ACTIVATIONS, [value, value]]);

const SEARCHED = 'searched';
const PUSH = { history: 'push' };
const PIN_FIELDS = [['tp', 'TP (tensor)'], ['pp', 'PP (pipeline)'], ['dp', 'DP (data)'], ['cp', 'CP (context)'],
  ['ep', 'EP (expert)'], ['etp', 'ETP (expert tensor)'], ['vpp', 'VPP (chunks per stage)'], ['mbs', 'Micro-batch'],
  ['rcl', 'Recomputed layers per chunk (full)'], ['rcm', 'Recomputed modules (selective)'], ['fsl', 'Layers on the first stage'], ['lsl', 'Layers on the last stage'],
  ['ofl', 'Layers offloaded to host (one stage, no recompute)']];

/** The framework's switches (docs/cli.md training.*): each select's values, empty = the framework's. */
const ON_OFF = [['true', 'on'], ['false', 'off']];
const SWITCHES = {
  fa: ON_OFF, ogr: ON_OFF, opg: ON_OFF, tpo: ON_OFF, gr32: ON_OFF, cg: ON_OFF,
  f8r: [['delayed', 'delayed scaling'], ['current', 'current scaling'], ['blockwise', 'blockwise'], ['mxfp8', 'MXFP8 (Blackwell)'], ['nvfp4', 'NVFP4 (Blackwell)']],
  osd: [['fp32', 'FP32 master and moments'], ['bf16', 'BF16 moments']],
};
/** The switches' section also holds these (its <details> opens when one of them is refused). */
const SWITCH_SECTION_KEYS = [...Object.keys(SWITCHES), 'f8s', 'f8p', 'f8a', 'hr'];
/** A select's options: empty (the default, said how), the values, and an unknown value as typed
 * (from a link or a file), so that the engine names it rather than the page dropping it. */
const optionsWith = (defaultLabel, values, current) => [['', defaultLabel], ...values,
  ...(current === '' || current === undefined || values.some(([v]) => v === current) ? [] : [[current, current]])];
const switchOptions = (key, current) => optionsWith("the framework's default", SWITCHES[key], current);

function specValue(spec, key) {
  // A GPU's memory is entered in GiB, as the "80GB" parts are sold (80 GiB of HBM).
  const v = key === 'memory_gb' && spec && spec.memory_gib !== undefined && spec.memory_gib !== '' ? spec.memory_gib : spec && spec[key];
  return v === undefined || v === null ? '' : String(v);
}

/** The engine's imported model as an editable custom spec (a dense model says so: moe null). */
const importedModel = (model) => ({ moe: null, ...specToState(model) });

const defaultHint = (key) => `${SCENARIO_DEFAULTS[key]} (default)`;

/** training.framework's values (docs/cli.md). */
const FRAMEWORK_OPTIONS = (current) => optionsWith('default (Megatron-Core)', [['megatron-core', 'Megatron-Core'],
  ['megatron-lm', 'Megatron-LM'], ['torchtitan', 'torchtitan'], ['deepspeed', 'DeepSpeed']], current);

/** "FFN = 1.1 × hidden": a custom model's FFN width against its hidden size, flagged when unusual. */
function ffnHint(spec) {
  const hidden = typed(specValue(spec, 'hidden'));
  const ffn = typed(specValue(spec, 'ffn_hidden'));
  if (!(typeof hidden === 'number' && typeof ffn === 'number' && hidden > 0 && ffn > 0)) return null;
  const ratio = ffn / hidden;
  const usual = ratio >= 2 && ratio <= 6;
  return { text: `FFN = ${ratio.toFixed(1)} × hidden${usual ? '' : ' — unusual: GeLU models use about 4×, SwiGLU about 2.7–3.5×'}`, usual };
}

export function ScenarioForm({ state, presets, errors, onChange, pinsDropped }) {
  const models = presets ? presets.models : {};
  const gpus = presets ? presets.gpus : {};
  const modelSpec = typeof state.model === 'string' ? models[state.model] : state.model;
  const gpuSpec = resolveGpu(state.gpu, presets);
  const modelIsPreset = typeof state.model === 'string';
  // A preset with overrides ({"preset": id, ...}) still shows its preset in the select.
  const gpuPresetId = typeof state.gpu === 'string' ? state.gpu
    : state.gpu && typeof state.gpu.preset === 'string' ? state.gpu.preset : null;
  const gpuIsPreset = gpuPresetId !== null;
  const overrides = gpuOverrides(state.gpu);

  const modelOptions = [...Object.entries(models).map(([id, m]) => [id, m.name]), ['custom', 'Custom model…']];
  if (modelIsPreset && !models[state.model]) modelOptions.unshift([state.model, state.model]);
  const gpuOptions = [...Object.entries(gpus).map(([id, g]) => [id, g.name]), ['custom', 'Custom GPU…']];
  if (gpuIsPreset && !gpus[gpuPresetId]) gpuOptions.unshift([gpuPresetId, gpuPresetId]);

  // Editing a preset's field turns it into a custom spec based on that preset.
  // block: 'moe' or 'local_attention' for a field of that nested block.
  const editModel = (key, value, block = null) => {
    const base = modelIsPreset ? (models[state.model] ? presetToCustom(models[state.model], 'model') : { moe: null }) : state.model;
    const next = { ...base };
    const fields = block === 'moe' ? MOE_FIELDS : block === 'mamba' ? MAMBA_FIELDS : block === 'mla' ? MLA_FIELDS : LOCAL_ATTENTION_FIELDS;
    if (block) next[block] = { ...Object.fromEntries(fields.map((k) => [k, ''])), ...(base[block] || {}), [key]: value };
    else next[key] = value;
    onChange({ model: next });
  };
  const booleanOptions = [['', 'no (default)'], ['true', 'yes'], ['false', 'no']];
  // Tied embeddings, dropout and learned positions default by activation and framework.
  const styleOptions = [['', 'default (GPT-style for GeLU)'], ['true', 'yes'], ['false', 'no']];
  // Editing a preset GPU's field makes a preset with overrides: the preset's figures and
  // calibration, changed only where the user says (issue #15); a custom GPU stays custom.
  const editGpu = (key, value) => {
    const base = typeof state.gpu === 'string' ? { preset: state.gpu } : state.gpu;
    // One memory figure: the GiB the part holds, also its marketed size ("80GB" = 80 GiB).
    const patch = key === 'memory_gb' ? { memory_gb: value, memory_gib: value } : { [key]: value };
    onChange({ gpu: { ...base, ...patch } });
  };
  const system = gpuSpec && gpuSpec.system ? gpuSpec.system : null;
  const topologyHint = {
    nvd: system ? `${system.nvlink_domain_gpus} (${system.name || 'the preset'})` : '= GPUs per node',
    nics: system && system.nics_per_node ? `${system.nics_per_node} (preset)` : 'from the GPU spec',
    nicg: system && system.nic_gbits_per_s ? `${system.nic_gbits_per_s} (preset)` : 'from the GPU spec',
    osub: '1 (non-blocking)',
  };
  const topologySet = ['nvd', 'nics', 'nicg', 'rail', 'osub'].some((k) => state[k] !== '' && state[k] !== undefined);
  const pickModel = (id) => {
    if (id !== 'custom') onChange({ model: id }, PUSH);
    else if (modelIsPreset) onChange({ model: models[state.model] ? presetToCustom(models[state.model], 'model') : { moe: null } }, PUSH);
  };
  const pickGpu = (id) => {
    if (id !== 'custom') onChange({ gpu: id }, PUSH);
    else if (gpuIsPreset) {
      // From a preset with overrides: the preset's figures with the overrides, all editable.
      const { preset, ...changed } = typeof state.gpu === 'string' ? {} : state.gpu;
      onChange({ gpu: gpus[gpuPresetId] ? presetToCustom({ ...gpus[gpuPresetId], ...changed }, 'gpu') : {} }, PUSH);
    }
  };
  const pinned = isPinned(state);
  const unpinAll = () => onChange(UNPINNED, PUSH);
  const ffn = !modelIsPreset ? ffnHint(modelSpec) : null;
  const err = (k) => errors[k];
  const moeOn = modelSpec && modelSpec.moe;
  const localOn = modelSpec && modelSpec.local_attention;
  const mambaOn = modelSpec && modelSpec.mamba;
  // A refused switch is shown beside its control: its section opens (and stays as the user leaves it).
  const switchesRef = useRef(null);
  const switchRefused = SWITCH_SECTION_KEYS.some((k) => errors[k]);
  useEffect(() => {
    if (switchRefused && switchesRef.current) switchesRef.current.open = true;
  }, [switchRefused]);

  return (
    <form class="scenario" onSubmit={(e) => e.preventDefault()} aria-label="Scenario">
      <fieldset>
        <legend>Model</legend>
        <Field id="f-model" label="Model" value={modelIsPreset ? state.model : 'custom'} options={modelOptions}
               onInput={pickModel} error={err('model')} wide />
        <ModelImport onImport={(model) => onChange({ model: importedModel(model), ...UNPINNED }, PUSH)} />
        {pinsDropped ? <p class="field-hint" role="status" data-testid="pins-dropped">Parallel settings are searched again for this model (the pins were the previous model's); Back restores them.</p> : null}
        <details open={!modelIsPreset}>
          <summary>{modelIsPreset ? 'Architecture (edit to customise)' : 'Custom architecture'}</summary>
          <div class="grid">
            {MODEL_FIELDS.map((k) => (k === 'activation'
              ? <Field key={k} id={`f-model-${k}`} label={MODEL_LABELS[k]} value={specValue(modelSpec, k)}
                       options={activationOptions(specValue(modelSpec, k))}
                       onInput={(v) => editModel(k, v)} error={err(`model.${k}`)} />
              : MODEL_BOOLEANS.has(k)
                ? <Field key={k} id={`f-model-${k}`} label={MODEL_LABELS[k]} value={specValue(modelSpec, k)}
                         options={MODEL_STYLE_BOOLEANS.has(k) ? styleOptions : booleanOptions}
                         onInput={(v) => editModel(k, v)} error={err(`model.${k}`)} />
                : <Field key={k} id={`f-model-${k}`} label={MODEL_LABELS[k]} value={specValue(modelSpec, k)}
                         inputMode={k === 'name' || k === 'hybrid_pattern' ? 'text' : 'numeric'} wide={k === 'name' || k === 'hybrid_pattern'}
                         placeholder={k === 'head_dim' ? 'hidden / heads' : k === 'mtp_layers' ? '0' : k === 'hybrid_pattern' ? 'empty: attention + MLP layers' : undefined}
                         onInput={(v) => editModel(k, v)} error={err(`model.${k}`)}
                         hint={k === 'ffn_hidden' && ffn ? ffn.text : undefined} />))}
          </div>
          <p class="sub">Mixture of experts {moeOn ? '' : '(empty: dense model)'}</p>
          <div class="grid">
            {MOE_FIELDS.map((k) => (
              <Field key={k} id={`f-moe-${k}`} label={MODEL_LABELS[k]} value={specValue(moeOn, k)}
                     placeholder={k === 'every' ? '1 (every layer)' : undefined}
                     onInput={(v) => editModel(k, v, 'moe')} error={err(`model.moe.${k}`) || (k === 'experts' && err('model.moe'))} />))}
          </div>
          <p class="sub">Multi-head latent attention {modelSpec && modelSpec.mla ? '' : '(empty: multi-head or grouped-query attention)'}</p>
          <div class="grid">
            {MLA_FIELDS.map((k) => (
              <Field key={k} id={`f-mla-${k}`} label={MODEL_LABELS[k]} value={specValue(modelSpec && modelSpec.mla, k)}
                     placeholder={k === 'q_lora_rank' ? '0 (queries projected directly)' : undefined}
                     onInput={(v) => editModel(k, v, 'mla')} error={err(`model.mla.${k}`) || (k === 'kv_lora_rank' && err('model.mla'))} />))}
          </div>
          <p class="sub">Local attention {localOn ? '' : '(empty: every layer global)'}</p>
          <div class="grid">
            {LOCAL_ATTENTION_FIELDS.map((k) => (k === 'chunked'
              ? <Field key={k} id={`f-local-${k}`} label={MODEL_LABELS[k]} value={specValue(localOn, k)} options={booleanOptions}
                       onInput={(v) => editModel(k, v, 'local_attention')} error={err(`model.local_attention.${k}`)} />
              : <Field key={k} id={`f-local-${k}`} label={MODEL_LABELS[k]} value={specValue(localOn, k)}
                       placeholder={k === 'global_every' ? '0 (none global)' : undefined}
                       onInput={(v) => editModel(k, v, 'local_attention')} error={err(`model.local_attention.${k}`) || (k === 'tokens' && err('model.local_attention'))} />))}
          </div>
          <p class="sub">Mamba-2 mixers {mambaOn ? '' : '(for the M layers of a hybrid pattern)'}</p>
          <div class="grid">
            {MAMBA_FIELDS.map((k) => (
              <Field key={k} id={`f-mamba-${k}`} label={k === 'heads' ? 'Mamba heads' : k === 'head_dim' ? 'Mamba head width' : k === 'groups' ? 'B/C groups' : MODEL_LABELS[k]}
                     value={specValue(mambaOn, k)} onInput={(v) => editModel(k, v, 'mamba')}
                     error={err(`model.mamba.${k}`) || (k === 'heads' && err('model.mamba'))} />))}
          </div>
        </details>
      </fieldset>

      <fieldset>
        <legend>Hardware</legend>
        <Field id="f-gpu" label="GPU" value={gpuIsPreset ? gpuPresetId : 'custom'} options={gpuOptions}
               onInput={pickGpu} error={err('gpu')} wide />
        {overrides.length ? (
          <p class="field-hint" data-testid="gpu-overrides">
            The preset with {overrides.map((k) => GPU_LABELS[k] || k).join(', ')} changed (its calibration is kept).{' '}
            <button type="button" class="link" onClick={() => onChange({ gpu: gpuPresetId }, PUSH)}>Reset to the preset</button>
          </p>) : null}
        <details open={!gpuIsPreset || overrides.length > 0}>
          <summary>{gpuIsPreset ? 'GPU spec (edit to change the preset)' : 'Custom GPU'}</summary>
          <div class="grid">
            {GPU_FIELDS.map((k) => (k === 'architecture'
              ? <Field key={k} id={`f-gpu-${k}`} label={GPU_LABELS[k]} value={specValue(gpuSpec, k)}
                       options={optionsWith('hopper (default)', [['ampere', 'Ampere'], ['hopper', 'Hopper'], ['blackwell', 'Blackwell']],
                         specValue(gpuSpec, k))}
                       onInput={(v) => editGpu(k, v)} error={err(`gpu.${k}`)} hint="selects the time model's calibration and the launch rules" />
              :
              <Field key={k} id={`f-gpu-${k}`} label={GPU_LABELS[k]} value={specValue(gpuSpec, k)}
                     inputMode={k === 'name' ? 'text' : 'decimal'} wide={k === 'name'} kind="decimal"
                     onInput={(v) => editGpu(k, v)} error={err(`gpu.${k}`) || (k === 'memory_gb' && err('gpu.memory_gib'))}
                     hint={k === 'memory_gb' ? 'as sold: an "80GB" part holds 80 GiB = 85.9 GB' : undefined} />))}
          </div>
        </details>
        <details open={topologySet} data-testid="topology">
          <summary>Topology: NVLink domain and network {topologySet ? '' : <span class="muted">(the preset's system)</span>}</summary>
          <div class="grid">
            {['nvd', 'nics', 'nicg', 'osub'].map((k) => (
              <Field key={k} id={`f-${k}`} label={FIELD_LABELS[k]} value={state[k]} placeholder={topologyHint[k]}
                     inputMode={k === 'nicg' || k === 'osub' ? 'decimal' : 'numeric'} kind={k === 'nicg' || k === 'osub' ? 'decimal' : 'count'}
                     onInput={(v) => onChange({ [k]: v })} error={err(k)} />))}
            <Field id="f-rail" label={FIELD_LABELS.rail} value={state.rail}
                   options={[['', 'default (yes)'], ['true', 'yes'], ['false', 'no'], ...(['', 'true', 'false'].includes(state.rail) ? [] : [[state.rail, state.rail]])]}
                   onInput={(v) => onChange({ rail: v }, PUSH)} error={err('rail')} />
          </div>
          <p class="field-hint">A GB200/GB300 NVL72 rack is one 72-GPU NVLink domain of 4-GPU nodes; NICs × rate is each node's scale-out bandwidth, shared by its GPUs and divided by the oversubscription.</p>
        </details>
        <div class="grid">
          <Field id="f-gpus" label="GPUs" value={state.gpus} placeholder={defaultHint('gpus')} onInput={(v) => onChange({ gpus: v })} error={err('gpus')} />
          <Field id="f-gpn" label="GPUs per node" value={state.gpn} placeholder={system && system.gpus_per_node ? `${system.gpus_per_node} (${system.name || 'the preset'})` : defaultHint('gpn')} onInput={(v) => onChange({ gpn: v })} error={err('gpn')} />
        </div>
      </fieldset>

      <fieldset>
        <legend>Training</legend>
        <div class="grid">
          <Field id="f-seq" label="Sequence length" value={state.seq} placeholder={defaultHint('seq')} onInput={(v) => onChange({ seq: v })} error={err('seq')} />
          <Field id="f-gbs" label="Global batch (sequences)" value={state.gbs} placeholder={defaultHint('gbs')} onInput={(v) => onChange({ gbs: v })} error={err('gbs')} />
          <Field id="f-prec" label="Precision" value={state.prec} options={optionsWith('default (BF16)', [['bf16', 'BF16'], ['fp8', 'FP8']], state.prec)}
                 onInput={(v) => onChange({ prec: v }, PUSH)} error={err('prec')} />
          <Field id="f-fw" label="Framework" value={state.fw || ''} options={FRAMEWORK_OPTIONS(state.fw)}
                 onInput={(v) => onChange({ fw: v }, PUSH)} error={err('fw')}
                 hint="the training stack: its kernels, overlaps and defaults are what is priced" />
          <Field id="f-disp" label="MoE dispatcher" value={state.disp || ''}
                 options={optionsWith('default (all-to-all)', [['alltoall', 'all-to-all'], ['flex', 'flex (DeepEP: once per node)']], state.disp)}
                 onInput={(v) => onChange({ disp: v }, PUSH)} error={err('disp')}
                 hint="mixture-of-experts models: how tokens reach their experts" />
          <Field id="f-epov" label="EP all-to-all overlap" value={state.epov || ''}
                 options={optionsWith('default (off)', [['true', 'on (combined 1F1B)'], ['false', 'off']], state.epov)}
                 onInput={(v) => onChange({ epov: v }, PUSH)} error={err('epov')}
                 hint="Megatron's --overlap-moe-expert-parallel-comm (needs vpp > 1 with pp > 1)" />
          <Field id="f-tokens" label="Token budget (tokens)" value={state.tokens} placeholder="optional, e.g. 300B or 15T" kind="tokens"
                 onInput={(v) => onChange({ tokens: v })} error={err('tokens')} hint="for days to train" />
        </div>
        <details ref={switchesRef} data-testid="switches">
          <summary>The framework's switches (each overridable)</summary>
          <div class="grid">
            {Object.keys(SWITCHES).map((k) => (
              <Field key={k} id={`f-${k}`} label={FIELD_LABELS[k]} value={state[k] || ''} options={switchOptions(k, state[k])}
                     onInput={(v) => onChange({ [k]: v }, PUSH)} error={err(k)} />))}
            <Field id="f-f8s" label={FIELD_LABELS.f8s} value={state.f8s || ''}
                   options={optionsWith('default (off)', ON_OFF, state.f8s)}
                   onInput={(v) => onChange({ f8s: v }, PUSH)} error={err('f8s')}
                   hint="SwiGLU models only: half the bytes of its saved input (NeMo sets it; Megatron-LM has no flag)" />
            <Field id="f-f8p" label={FIELD_LABELS.f8p} value={state.f8p || ''}
                   options={optionsWith("the framework's default", ON_OFF, state.f8p)}
                   onInput={(v) => onChange({ f8p: v }, PUSH)} error={err('f8p')}
                   hint="FP8 precision only: weights kept in FP8 (no bf16 copy) and gathered in FP8 (--fp8-param-gather; Megatron-Core's default with ZeRO ≥ 1, as NVIDIA's FP8 recipes); NVFP4: --fp4-param-gather" />
            <Field id="f-f8a" label={FIELD_LABELS.f8a} value={state.f8a || ''}
                   options={optionsWith('default (off)', ON_OFF, state.f8a)}
                   onInput={(v) => onChange({ f8a: v }, PUSH)} error={err('f8a')}
                   hint="FP8 only: attention at the FP8 rate (NeMo sets it; Megatron-LM has no flag)" />
            <Field id="f-hr" label={FIELD_LABELS.hr} value={state.hr || ''} inputMode="decimal" kind="decimal" placeholder="0.10 (default)"
                   onInput={(v) => onChange({ hr: v })} error={err('hr')} hint="share of HBM the search keeps free" />
          </div>
        </details>
      </fieldset>

      <fieldset>
        <legend>Design report <span class="muted">(optional)</span></legend>
        <div class="grid">
          <Field id="f-storage" label="Storage write GB/s" value={state.storage} inputMode="decimal" kind="decimal" placeholder="Llama 3's, scaled"
                 onInput={(v) => onChange({ storage: v })} error={err('storage')} />
          <Field id="f-failrate" label="Failures per GPU-hour" value={state.failrate} inputMode="decimal" kind="decimal" placeholder="Llama 3's 1.97e-5"
                 onInput={(v) => onChange({ failrate: v })} error={err('failrate')} />
          <Field id="f-restart" label="Restart time (s)" value={state.restart} inputMode="decimal" kind="decimal" placeholder="600"
                 onInput={(v) => onChange({ restart: v })} error={err('restart')} />
        </div>
      </fieldset>

      <fieldset>
        <legend>Parallelism <span class="muted">(empty = searched)</span></legend>
        {pinned ? (
          <button type="button" class="link unpin" onClick={unpinAll}>Unpin all (search every layout)</button>
        ) : <p class="field-hint">Every layout is searched; fill a field to pin it.</p>}
        <div class="grid pins">
          {PIN_FIELDS.map(([k, label]) => [
            <Field key={k} id={`f-${k}`} label={label} value={state[k]}
                   placeholder={k === 'rcm' ? 'core_attn (default); e.g. layernorm, moe_act'
                     : k === 'dp' && state.tp !== '' && state.pp !== '' ? 'follows the GPUs' : SEARCHED}
                   inputMode={k === 'rcm' ? 'text' : undefined} wide={k === 'rcm'}
                   onInput={(v) => onChange({ [k]: v })} error={err(k)} />,
            // The pipeline schedule beside the chunks per stage it runs with.
            k === 'vpp' ? (
              <Field key="sched" id="f-sched" label="Pipeline schedule" value={state.sched || ''}
                     options={optionsWith(`${SEARCHED} (the framework's)`, SCHEDULES, state.sched)}
                     onInput={(v) => onChange({ sched: v }, PUSH)} error={err('sched')}
                     hint="empty: one the framework runs (Megatron-Core: 1F1B, interleaved with VPP > 1)" />
            ) : null])}
          <Field id="f-sp" label="Sequence parallel" value={state.sp}
                 options={[['', SEARCHED], ['true', 'on'], ['false', 'off'], ...(['', 'true', 'false'].includes(state.sp) ? [] : [[state.sp, state.sp]])]}
                 onInput={(v) => onChange({ sp: v }, PUSH)} error={err('sp')} />
          <Field id="f-rc" label="Recompute" value={state.rc}
                 options={[['', SEARCHED], ['none', 'none'], ['selective', 'selective'], ['full', 'full'], ...(['', 'none', 'selective', 'full'].includes(state.rc) ? [] : [[state.rc, state.rc]])]}
                 onInput={(v) => onChange({ rc: v }, PUSH)} error={err('rc')} />
          <Field id="f-zero" label="ZeRO stage" value={state.zero}
                 options={[['', SEARCHED], ['0', '0 (plain DP)'], ['1', '1 (dist. optimizer)'], ['2', '2 (+ gradients)'], ['3', '3 (FSDP)'], ...(['', '0', '1', '2', '3'].includes(state.zero) ? [] : [[state.zero, state.zero]])]}
                 onInput={(v) => onChange({ zero: v }, PUSH)} error={err('zero')} />
        </div>
      </fieldset>
    </form>
  );
}
