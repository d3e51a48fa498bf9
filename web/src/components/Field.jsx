// One labelled form control with its error (from the engine, in words) announced and tied to it.
// Number fields read human input ("8k", "4,096", "300B": quantity.js): while typing the value is
// read back ("= 8,192"); on leaving the field it is written in its normal form.
import { useState } from 'preact/hooks';
import { normalise, readBack } from '../state/quantity.js';

/** `error`: {text, details} (messages.js humanError) or a plain string. `kind`: quantity kind, or
 * null for text. */
export function Field({ id, label, value, error, onInput, options, placeholder, hint, inputMode = 'numeric', wide, kind = 'count' }) {
  const errId = `${id}-err`;
  const hintId = `${id}-hint`;
  const errorText = error && typeof error === 'object' ? error.text : error;
  const details = error && typeof error === 'object' ? error.details : '';
  const numeric = !options && kind && inputMode !== 'text';
  const [focused, setFocused] = useState(false);
  // Shown in its normal form unless being typed in ("450000000000" from a file reads "450B").
  const shown = numeric && !focused && value ? normalise(value, kind) : value;
  const back = numeric && !errorText && value && normalise(value, kind) !== value.trim() ? readBack(value, kind) : '';
  const shownHint = back ? `= ${back}` : hint;
  const common = {
    id, name: id, 'aria-invalid': errorText ? 'true' : undefined,
    'aria-describedby': errorText ? errId : shownHint ? hintId : undefined,
    class: errorText ? 'invalid' : undefined,
  };
  // Editing starts from the normal form the field showed, not from the stored digits.
  const onFocus = () => {
    setFocused(true);
    if (numeric && value && shown !== value) onInput(shown);
  };
  const onBlur = (e) => {
    setFocused(false);
    if (!numeric) return;
    const text = e.currentTarget.value;
    const normal = normalise(text, kind);
    if (normal !== text) onInput(normal);
  };
  return (
    <div class={`field${wide ? ' wide' : ''}`}>
      <label for={id}>{label}</label>
      {options ? (
        <select {...common} value={value} onChange={(e) => onInput(e.currentTarget.value)}>
          {options.map(([v, text]) => <option key={v} value={v}>{text}</option>)}
        </select>
      ) : (
        <input {...common} type="text" inputMode={inputMode} autocomplete="off" spellcheck={false}
               value={shown} placeholder={placeholder} onInput={(e) => onInput(e.currentTarget.value)}
               onFocus={onFocus} onBlur={onBlur} />
      )}
      {errorText ? (
        <div class="field-error" id={errId} role="alert">{errorText}
          {details ? <details class="code-details"><summary>Details</summary><code>{details}</code></details> : null}</div>
      ) : shownHint ? <p class="field-hint" id={hintId}>{shownHint}</p> : null}
    </div>
  );
}
