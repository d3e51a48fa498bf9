// Share: the link, the plan table as Markdown, and an <iframe> snippet for wikis.
import { CopyButton } from './CopyButton.jsx';

/** The iframe snippet. sandbox: scripts (the engine), same-origin (module scripts and wasm load
 * from the page's own origin), popups that escape the sandbox (the "open in pplan" link). */
export function iframeSnippet(embedUrl) {
  const src = embedUrl.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
  return `<iframe src="${src}" width="100%" height="600" style="border:0" loading="lazy" title="pplan plan" ` +
    'sandbox="allow-scripts allow-same-origin allow-popups allow-popups-to-escape-sandbox" referrerpolicy="no-referrer"></iframe>';
}

export function SharePanel({ shareUrl, embedUrl, markdown }) {
  return (
    <div class="share" role="group" aria-label="Share">
      <CopyButton text={shareUrl} label="Copy link" />
      <CopyButton text={markdown} label="Copy as Markdown" />
      <details class="embed-snippet">
        <summary>Embed</summary>
        <label for="iframe-snippet">Paste into a wiki page (sandboxed iframe):</label>
        <textarea id="iframe-snippet" readOnly rows={4} value={iframeSnippet(embedUrl())} />
        <CopyButton text={() => iframeSnippet(embedUrl())} label="Copy snippet" />
      </details>
    </div>
  );
}
