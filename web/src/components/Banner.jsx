// A non-blocking notice about the link the page was opened with.
export function Banner({ warning, onDismiss }) {
  if (!warning) return null;
  const fallback = warning.kind !== 'unknown';
  return (
    <div class="banner" role="status" data-testid="link-banner">
      <span>{fallback ? 'This link could not be read' : 'Part of this link was ignored'}: {warning.message}.
        {fallback ? ' Showing the default example instead.' : ''}</span>
      <button type="button" class="link" onClick={onDismiss} aria-label="Dismiss notice">Dismiss</button>
    </div>
  );
}
