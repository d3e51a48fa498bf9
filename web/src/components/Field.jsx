// One labelled form control with its error (from the engine) announced and tied to it.
export function Field({ id, label, value, error, onInput, options, placeholder, hint, inputMode = 'numeric', wide }) {
  const errId = `${id}-err`;
  const common = {
    id, name: id, 'aria-invalid': error ? 'true' : undefined,
    'aria-describedby': error ? errId : hint ? `${id}-hint` : undefined,
    class: error ? 'invalid' : undefined,
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
               value={value} placeholder={placeholder} onInput={(e) => onInput(e.currentTarget.value)} />
      )}
      {error ? <p class="field-error" id={errId} role="alert">{error}</p>
        : hint ? <p class="field-hint" id={`${id}-hint`}>{hint}</p> : null}
    </div>
  );
}
