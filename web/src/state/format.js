// Number formatting for the page (GB = 1e9 bytes, as the engine reports). Pure.
const finite = (x) => typeof x === 'number' && Number.isFinite(x);

/** GB = 1e9 bytes, the page's one unit for memory (capacities also say GiB: fmtCapacity). */
export function fmtGb(gb, digits = 1) {
  if (!finite(gb)) return '–';
  if (gb >= 1000) return `${(gb / 1000).toFixed(gb >= 10000 ? 0 : 1)} TB`;
  return `${gb.toFixed(digits)} GB`;
}
export function fmtPct(fraction, digits = 1) {
  if (!finite(fraction)) return '–';
  // Rounded half away from zero on the figure as the JSON writes it (0.4365 -> 43.7%, as the
  // CLI and docs/accuracy.md print it; toFixed would give 43.6% from the binary 43.6499…).
  const scaled = Math.round(Math.abs(fraction) * 10 ** (2 + digits)) / 10 ** digits;
  return `${fraction < 0 && scaled > 0 ? '-' : ''}${scaled.toFixed(digits)}%`;
}
/**
 * A share that cannot exceed 100% (MFU, HFU): its percentage, or null when the figure is
 * impossible (the caller hides it and says why; the engine's fix is tracked in the search issue).
 */
export function fmtShare(fraction, digits = 1) {
  return finite(fraction) && fraction >= 0 && fraction <= 1 ? fmtPct(fraction, digits) : null;
}
const BYTES_PER_GIB = 2 ** 30;
/**
 * A GPU's memory, given in GB (1e9 bytes) as the engine reports it: "80 GiB (85.9 GB)" for the
 * parts sold as "80GB" (80 GiB of HBM), plain GB otherwise. Unit conversion only.
 */
export function fmtCapacity(gb) {
  if (!finite(gb)) return '–';
  const gib = (gb * 1e9) / BYTES_PER_GIB;
  const whole = Math.round(gib);
  return whole > 0 && Math.abs(gib - whole) < 0.01 ? `${whole} GiB (${gb.toFixed(1)} GB)` : `${gb.toFixed(1)} GB`;
}
export function fmtSeconds(s) {
  if (!finite(s)) return '–';
  if (s >= 100) return `${s.toFixed(0)} s`;
  if (s >= 1) return `${s.toFixed(2)} s`;
  return `${(s * 1000).toFixed(s >= 0.01 ? 0 : 1)} ms`;
}
/**
 * 1234567.5 -> "1,234,567.5", as toLocaleString('en-US', {maximumFractionDigits}) writes it,
 * without Intl: the first toLocaleString of a page loads ICU's locale data, which cost the first
 * plan ~140 ms on a 2-core machine.
 */
export function groupDigits(n, maximumFractionDigits = 3) {
  if (!finite(n)) return String(n);
  const [whole, fraction = ''] = Math.abs(n).toFixed(maximumFractionDigits).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const digits = fraction.replace(/0+$/, '');
  const text = digits ? `${grouped}.${digits}` : grouped;
  return n < 0 ? `-${text}` : text;
}
export function fmtInt(n) {
  return finite(n) ? groupDigits(Math.round(n)) : '–';
}
export function fmtNum(x, digits = 2) {
  return finite(x) ? x.toFixed(digits) : '–';
}
/** 175e9 -> "175B", 1.7e9 -> "1.7B". */
export function fmtParams(n) {
  if (!finite(n)) return '–';
  if (n >= 1e12) return `${+(n / 1e12).toFixed(2)}T`;
  if (n >= 1e9) return `${+(n / 1e9).toFixed(1)}B`;
  return `${+(n / 1e6).toFixed(0)}M`;
}

/** A number as the engine's Markdown report writes it (design_report.cpp num()): 1.01T, 11.94B,
 * 2444, 145.3, 58.07, 0.914, 1.97e-05; so the page and the copied Markdown read the same. */
export function fmtReportNumber(v) {
  if (!finite(v)) return '–';
  const a = Math.abs(v);
  if (a === 0) return '0';
  if (a >= 1e12) return `${(v / 1e12).toFixed(2)}T`;
  if (a >= 1e9) return `${(v / 1e9).toFixed(2)}B`;
  if (a >= 1e6) return `${(v / 1e6).toFixed(2)}M`;
  if (v === Math.floor(v) || a >= 1000) return v.toFixed(0);
  if (a >= 100) return v.toFixed(1);
  if (a >= 10) return v.toFixed(2);
  if (a >= 0.01) return v.toFixed(3);
  return v.toExponential(2).replace(/e([+-])(\d)$/, 'e$10$2');
}
/** A report figure's value with its unit ('fraction' figures print as percentages; 1000 GB and up in TB). */
export function fmtReportValue(value, unit) {
  if (unit === 'fraction') return fmtPct(value);
  if (unit === 'GB' && finite(value) && Math.abs(value) >= 1000) return `${fmtReportNumber(value / 1000)} TB`;
  return unit ? `${fmtReportNumber(value)} ${unit}` : fmtReportNumber(value);
}

/** A plan's EP, with its expert TP where it differs from TP ("8 · etp 1"): parallel folding. */
export function epCell(parallel) {
  const etp = parallel.etp;
  return etp === undefined || etp === parallel.tp ? String(parallel.ep) : `${parallel.ep} · etp ${etp}`;
}
