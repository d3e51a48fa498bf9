// A Hugging Face config.json, pasted or dropped, turned into the model by the engine's
// `import_model` command (core/include/pplan/io/hf_config.h): the page only reads the file and
// shows the engine's answer. Everything in a config (names, keys, values) is user text: rendered
// as text nodes only, never as HTML.
import { useState } from 'preact/hooks';
import * as engine from '../engine/index.js';

/** Larger files are refused before they are read (a config.json is a few kilobytes). */
export const MAX_CONFIG_BYTES = 1 << 20;

const text = (v) => (v === null || v === undefined ? '—' : typeof v === 'string' ? v : JSON.stringify(v));

/** The engine's mapped_from as rows: [pplan field, config key, value, note]. */
export function mappingRows(mappedFrom) {
  if (!mappedFrom || typeof mappedFrom !== 'object') return [];
  const rows = [];
  for (const [field, entry] of Object.entries(mappedFrom)) {
    if (entry && typeof entry === 'object' && !Array.isArray(entry)) rows.push([field, text(entry.from), text(entry.value), entry.note ? text(entry.note) : '']);
    else rows.push([field, '', text(entry), '']);
  }
  return rows;
}

/** Reads a config's text: the parsed object, or {error} in words. */
export function readConfig(source) {
  if (source.length > MAX_CONFIG_BYTES) return { error: `the file is larger than ${MAX_CONFIG_BYTES / 1024} KB: not a config.json` };
  try {
    const config = JSON.parse(source);
    if (!config || typeof config !== 'object' || Array.isArray(config)) return { error: 'a config.json is a JSON object' };
    return { config };
  } catch {
    return { error: 'this is not valid JSON' };
  }
}

/** `onImport(model)`: the engine's model (model_to_json), to fill the form with. */
export function ModelImport({ onImport, importModel = engine.importModel }) {
  const [pasted, setPasted] = useState('');
  const [answer, setAnswer] = useState(null); // {response} | {error}
  const [dragging, setDragging] = useState(false);

  async function run(source) {
    const read = readConfig(source);
    if (read.error) {
      setAnswer({ error: { message: read.error } });
      return;
    }
    try {
      const response = await importModel(read.config);
      setAnswer({ response });
      onImport(response.model);
    } catch (e) {
      setAnswer({ error: { code: e && e.code, message: String((e && e.message) || e), path: e && e.path } });
    }
  }
  const readFile = (file) => {
    if (!file) return;
    if (file.size > MAX_CONFIG_BYTES) {
      setAnswer({ error: { message: readConfig('x'.repeat(MAX_CONFIG_BYTES + 1)).error } });
      return;
    }
    file.text().then(run, () => setAnswer({ error: { message: 'the file could not be read' } }));
  };
  const onDrop = (e) => {
    e.preventDefault();
    setDragging(false);
    const file = e.dataTransfer && e.dataTransfer.files && e.dataTransfer.files[0];
    if (file) readFile(file);
    else if (e.dataTransfer) run(e.dataTransfer.getData('text/plain') || '');
  };
  const rows = answer && answer.response ? mappingRows(answer.response.mapped_from) : [];
  const notes = answer && answer.response && Array.isArray(answer.response.notes) ? answer.response.notes : [];
  return (
    <details class="hf-import" data-testid="hf-import">
      <summary>Import a Hugging Face config.json</summary>
      <label class="field wide" for="f-hf-config">
        <span>Paste or drop a config.json</span>
        <textarea id="f-hf-config" rows={4} spellcheck={false} value={pasted} class={dragging ? 'dragging' : undefined}
                  placeholder='{"architectures": ["LlamaForCausalLM"], "hidden_size": 4096, ...}'
                  onInput={(e) => setPasted(e.currentTarget.value)}
                  onDragOver={(e) => { e.preventDefault(); setDragging(true); }} onDragLeave={() => setDragging(false)}
                  onDrop={onDrop} />
      </label>
      <div class="hf-actions">
        <button type="button" onClick={() => run(pasted)} disabled={!pasted.trim()}>Import</button>
        <label class="file-pick">or choose a file <input type="file" accept=".json,application/json" aria-label="config.json file"
                                                         onChange={(e) => readFile(e.currentTarget.files && e.currentTarget.files[0])} /></label>
      </div>
      {answer && answer.error ? (
        <p class="notice" role="alert" data-testid="hf-error">Not imported: {answer.error.message}
          {answer.error.code ? <span class="muted"> ({answer.error.code}{answer.error.path ? ` at ${answer.error.path}` : ''})</span> : null}</p>
      ) : null}
      {answer && answer.response ? (
        <div data-testid="hf-result" role="status">
          <p class="sub">Imported <strong>{text(answer.response.model.name)}</strong>: the model fields below are filled from the config.</p>
          <table class="mapping">
            <caption class="offscreen">What the config mapped to</caption>
            <thead><tr><th scope="col">pplan field</th><th scope="col">from</th><th scope="col">value</th><th scope="col">note</th></tr></thead>
            <tbody>{rows.map((r) => <tr key={r[0]}>{r.map((c, i) => (i === 0 ? <th scope="row" key={i}>{c}</th> : <td key={i}>{c}</td>))}</tr>)}</tbody>
          </table>
          {notes.length ? (
            <>
              <p class="sub">Not modelled or approximated:</p>
              <ul class="notes" data-testid="hf-notes">{notes.map((n, i) => <li key={i}>{text(n)}</li>)}</ul>
            </>) : null}
        </div>
      ) : null}
    </details>
  );
}
