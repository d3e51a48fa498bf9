// Copies text to the clipboard; falls back to selecting a hidden textarea where the
// Clipboard API is unavailable (plain http, sandboxed frames).
import { useState } from 'preact/hooks';

export async function copyText(text) {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch { /* fall through */ }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.className = 'offscreen';
  document.body.appendChild(area);
  area.select();
  let ok = false;
  try { ok = document.execCommand('copy'); } catch { ok = false; }
  area.remove();
  return ok;
}

export function CopyButton({ text, label, class: cls = '' }) {
  const [status, setStatus] = useState('');
  const onClick = async () => {
    const ok = await copyText(typeof text === 'function' ? text() : text);
    setStatus(ok ? 'Copied' : 'Copy failed: select the text');
    setTimeout(() => setStatus(''), 2000);
  };
  return (
    <span class="copy">
      <button type="button" class={cls} onClick={onClick}>{label}</button>
      <span class="copy-status" role="status" aria-live="polite">{status}</span>
    </span>
  );
}
