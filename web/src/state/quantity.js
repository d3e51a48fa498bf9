// Human numbers in the form ("8k", "128K", "4,096", "15T", "300B", "1.5e12") -> the numbers the
// engine takes, and back to one normal spelling. Input normalisation only: no model formula.
// Pure.
//
// Suffixes: counts (GPUs, sequence length, batch, parallel sizes, model sizes) are powers of two
// in practice, so k = 1,024 and m = 1,048,576 ("8k context" = 8,192, "16k GPUs" = 16,384).
// Token budgets are decimal: K = 1e3, M = 1e6, B (or G) = 1e9, T = 1e12 ("15T", "300B").
import { groupDigits } from './format.js';

const BINARY = { k: 2 ** 10, m: 2 ** 20 };
const DECIMAL = { k: 1e3, m: 1e6, b: 1e9, g: 1e9, t: 1e12 };
/** Digits with optional thousands separators (, _ thin space) and a decimal part or exponent. */
const PLAIN = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
const NUMBER = /^([+-]?)((?:\d{1,3}(?:[,_\u2009\u202f ]\d{3})+|\d+)(?:\.\d*)?|\.\d+)(e[+-]?\d+)?\s*([a-z])?$/i;

/**
 * The number `text` spells, or null. `kind`: 'count' (binary k/m), 'tokens' (decimal K/M/B/T),
 * 'decimal' (no suffix). Thousands separators are dropped; "1,5" is not a number.
 */
export function parseQuantity(text, kind = 'count') {
  if (typeof text === 'number') return Number.isFinite(text) ? text : null;
  if (typeof text !== 'string') return null;
  const m = NUMBER.exec(text.trim());
  if (!m) return null;
  const [, sign, digits, exponent = '', suffix] = m;
  let value = Number(`${sign}${digits.replace(/[,_\u2009\u202f ]/g, '')}${exponent}`);
  if (suffix) {
    const table = kind === 'tokens' ? DECIMAL : kind === 'count' ? BINARY : {};
    const factor = table[suffix.toLowerCase()];
    if (!factor || exponent) return null;
    value *= factor;
  }
  return Number.isFinite(value) ? value : null;
}

/** "14800000000000" -> "14.8T", "300000000000" -> "300B" (exact only; else the digits). */
function compactTokens(n) {
  for (const [suffix, factor] of [['T', 1e12], ['B', 1e9], ['M', 1e6]]) {
    if (Math.abs(n) >= factor) {
      const scaled = n / factor;
      const text = String(Number(scaled.toPrecision(12)));
      if (Number(text) * factor === n && text.replace(/^-/, '').replace('.', '').length <= 5) return `${text}${suffix}`;
    }
  }
  return String(n);
}

/**
 * The normal spelling of what the user typed, or the text unchanged when it is not a number
 * (the engine then names the field): counts as plain digits ("8k" -> "8192"), token budgets
 * with a decimal suffix ("15e12" -> "15T"), other numbers as JavaScript prints them.
 */
export function normalise(text, kind = 'count') {
  if (typeof text !== 'string' || text.trim() === '') return text;
  const n = parseQuantity(text, kind);
  if (n === null) return text;
  if (kind === 'tokens') return compactTokens(n);
  if (kind === 'decimal' && PLAIN.test(text.trim())) return text.trim(); // "2e-5" stays as written
  return String(n);
}

/** "8192" -> "8,192": how a parsed value is read back to the user while typing. */
export function readBack(text, kind = 'count') {
  const n = parseQuantity(text, kind);
  if (n === null) return '';
  return kind === 'tokens' && Math.abs(n) >= 1e6 ? `${groupDigits(n)} tokens` : groupDigits(n, 6);
}
