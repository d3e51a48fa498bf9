// The <iframe> snippet for wikis. Pure. sandbox grants only: scripts (the engine), same-origin
// (module scripts and the engine load from the page's own origin), popups that escape the
// sandbox (the "Open in pplan" link opens an unsandboxed tab). No top navigation, no forms.
export const IFRAME_SANDBOX = 'allow-scripts allow-same-origin allow-popups allow-popups-to-escape-sandbox';

const attr = (s) => String(s).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

export function iframeSnippet(embedUrl) {
  return `<iframe src="${attr(embedUrl)}" width="100%" height="600" style="border:0" loading="lazy" title="pplan plan" ` +
    `sandbox="${IFRAME_SANDBOX}" referrerpolicy="no-referrer"></iframe>`;
}
