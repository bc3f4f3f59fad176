// The create form's campaign builder: the utm_ parameters analytics tools
// read, added to the destination as the user types them.

export const UTM = ['source', 'medium', 'campaign', 'term', 'content'];

// paramName is a query pair's name decoded, '+' a space as forms send it.
function paramName(pair) {
  const name = pair.split('=', 1)[0].replace(/\+/g, ' ');
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

// campaignURL adds utm_NAME=value to url for each non-blank value of
// values (keyed by UTM's names), encoded, and replaces a parameter of
// that name already there. The rest of the query and the fragment are
// kept as written: re-encoding them could change what the page reads.
export function campaignURL(url, values) {
  const add = UTM.filter((n) => (values[n] || '').trim()).map((n) => [`utm_${n}`, values[n].trim()]);
  if (!add.length) return url;
  const hash = url.indexOf('#');
  const fragment = hash < 0 ? '' : url.slice(hash);
  const rest = hash < 0 ? url : url.slice(0, hash);
  const q = rest.indexOf('?');
  const names = new Set(add.map(([k]) => k));
  const kept = (q < 0 ? [] : rest.slice(q + 1).split('&')).filter((p) => p && !names.has(paramName(p)));
  const params = [...kept, ...add.map(([k, v]) => `${k}=${encodeURIComponent(v)}`)];
  return `${q < 0 ? rest : rest.slice(0, q)}?${params.join('&')}${fragment}`;
}
