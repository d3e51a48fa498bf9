// Share: the link, the plan table as Markdown, and an <iframe> snippet for wikis.
import { CopyButton } from './CopyButton.jsx';
import { iframeSnippet } from '../state/share.js';

export { iframeSnippet };

export function SharePanel({ shareUrl, embedUrl, markdown, scenarioJson }) {
  return (
    <div class="share" role="group" aria-label="Share">
      <CopyButton text={shareUrl} label="Copy link" />
      <CopyButton text={markdown} label="Copy as Markdown" />
      <CopyButton text={scenarioJson} label="Copy scenario JSON" />
      <details class="embed-snippet">
        <summary>Embed</summary>
        <label for="iframe-snippet">Paste into a wiki page (sandboxed iframe):</label>
        <textarea id="iframe-snippet" readOnly rows={4} value={iframeSnippet(embedUrl())} />
        <CopyButton text={() => iframeSnippet(embedUrl())} label="Copy snippet" />
      </details>
    </div>
  );
}
