// ?embed=1: the compact view for iframes. Only allow-listed query keys are honoured, so a host
// cannot switch anything else on through the query string.
const ALLOWED = { embed: ['1'] };

/** Allow-listed query options from a search string ('?embed=1&x=y' -> {embed: '1'}). */
export function embedOptions(search) {
  const options = {};
  for (const [k, v] of new URLSearchParams(search || '')) {
    if (ALLOWED[k] && ALLOWED[k].includes(v)) options[k] = v;
  }
  return options;
}

export const isEmbed = (search) => embedOptions(search).embed === '1';
