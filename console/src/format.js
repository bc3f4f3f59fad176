// Formatting and the few safety rules every view follows.

// fmtLocal shows an RFC 3339 time in the browser's time zone; the title
// (shown on hover) is the same instant in UTC.
export function fmtLocal(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  if (isNaN(d)) return iso;
  return d.toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}
export function utcTitle(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  return isNaN(d) ? iso : d.toISOString().replace('.000Z', 'Z') + ' (UTC)';
}

// safeHref returns url when it is an absolute http(s) URL and '' otherwise,
// so a stored value can never become a javascript: (or data:) navigation.
export function safeHref(url) {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : '';
  } catch {
    return '';
  }
}

// statusOf is the badge of a link: deleted (in this session), disabled,
// expired (expires_at passed) or active.
export function statusOf(l, now = Date.now()) {
  if (l.deleted) return 'deleted';
  if (l.status === 'disabled') return 'disabled';
  if (l.expires_at && Date.parse(l.expires_at) <= now) return 'expired';
  return 'active';
}

export function matches(l, q) {
  if (!q) return true;
  const n = q.trim().toLowerCase();
  return [l.code, l.alias || '', l.url, l.title || ''].some((s) => s.toLowerCase().includes(n));
}

// downloadBlob saves data under name through a temporary blob: URL.
export function downloadBlob(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}
