// A horizontal stacked bar with a legend that states every number (the bar is decoration;
// the legend carries the information, so it reads without colour).
export function StackedBar({ label, parts, total, limit, limitLabel, limitText }) {
  const scale = Math.max(total, limit || 0) || 1;
  return (
    <figure class="stacked">
      <div class="bar" role="img" aria-label={`${label}: ${parts.map((p) => `${p.name} ${p.text}`).join(', ')}`}>
        {parts.map((p) => (
          <span key={p.name} class={`seg ${p.cls}`} style={{ width: `${(100 * p.value) / scale}%` }} title={`${p.name}: ${p.text}`} />
        ))}
        {limit ? <span class={`limit${total > limit ? ' over' : ''}`} style={{ left: `${(100 * limit) / scale}%` }} /> : null}
      </div>
      <figcaption>
        <ul class="legend">
          {parts.map((p) => (<li key={p.name}><i class={`sw ${p.cls}`} />{p.name} <b>{p.text}</b></li>))}
          {limit ? <li><i class="sw limit-sw" />{limitLabel} <b>{limitText}</b></li> : null}
        </ul>
      </figcaption>
    </figure>
  );
}
