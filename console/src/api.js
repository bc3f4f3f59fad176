// The /v1 API, called on the page's own origin with the API key the user
// signed in with, or a signed-in user's access token (auth.js) as
// Authorization: Bearer. Both live in sessionStorage only: they go away
// with the browser tab, and they are never put in a URL or written to the
// console.
import { session, accessToken, refresh, clearSession } from './auth.js';

const KEY = 'shortener.apiKey';

export function apiKey() {
  return sessionStorage.getItem(KEY) || '';
}
export function setAPIKey(k) {
  sessionStorage.setItem(KEY, k);
}
export function signOut() {
  sessionStorage.removeItem(KEY);
  clearSession();
}

// ApiError is a non-2xx answer: status, and the problem details when the
// API sent them (RFC 9457).
export class ApiError extends Error {
  constructor(status, problem, retryAfter = 0) {
    super(describe(status, problem));
    this.status = status;
    this.problem = problem || null;
    // retryAfter is the answer's Retry-After in seconds (0 when absent).
    this.retryAfter = retryAfter;
  }
}

function describe(status, p) {
  if (status === 401) return 'No API key was sent. Sign in again.';
  if (status === 403 && session()) return 'Your sign-in is not accepted by the API. Sign in again.';
  if (status === 403) return 'This API key is not accepted (unknown or revoked). Sign in with another key.';
  if (status === 412) return 'This link was changed elsewhere. Reload it to see the change; your edits are kept.';
  if (status === 0) return 'The API could not be reached. Check your connection and try again.';
  if (p && (p.detail || p.title)) {
    const field = p.field ? ` (${p.field})` : '';
    return `${p.title || 'Error'}${field}: ${p.detail || ''}`.replace(/: $/, '');
  }
  return `The API answered ${status}.`;
}

// ended is the error of a session whose tokens could not be refreshed.
function ended() {
  const e = new ApiError(401, null);
  e.message = 'Your session has ended. Sign in again.';
  return e;
}

// request calls the API and returns {status, headers, data}; a non-2xx
// answer throws ApiError. opts: body (JSON), headers, raw (return the
// Response without reading it). Signed in, it sends the access token and,
// when the API answers 401, refreshes it once and tries again.

export async function request(method, path, opts = {}, retried = false) {
  const signedIn = !!session();
  const token = signedIn ? await accessToken() : '';
  if (signedIn && !token) throw ended();
  const auth = signedIn ? { Authorization: `Bearer ${token}` } : { 'x-api-key': apiKey() };
  // X-Shortener-Client: the audit log tells the console's changes from
  // the API's by it (docs/audit.md).
  const headers = { ...auth, 'X-Shortener-Client': 'console', ...(opts.headers || {}) };
  let body;
  if (opts.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(opts.body);
  }
  let res;
  try {
    res = await fetch(path, { method, headers, body, cache: 'no-store', credentials: 'omit', redirect: 'error' });
  } catch {
    throw new ApiError(0, null);
  }
  // An access token refused: refresh once and try again.
  if (res.status === 401 && signedIn) {
    if (!retried && (await refresh())) return request(method, path, opts, true);
    clearSession();
    throw ended();
  }
  if (!res.ok) {
    let problem = null;
    try {
      problem = await res.json();
    } catch {
      /* not JSON */
    }
    throw new ApiError(res.status, problem, Number(res.headers.get('Retry-After')) || 0);
  }
  if (opts.raw) return res;
  const text = await res.text();
  return { status: res.status, headers: res.headers, data: text ? JSON.parse(text) : null };
}

export const enc = encodeURIComponent;

// listLinks reads one page of the caller's links, newest first; with
// search, only those whose code, alias or URL contains it (the API's q).
export function listLinks(limit, cursor, search, tag) {
  let q = `/v1/links?limit=${limit}`;
  if (search) q += `&q=${enc(search)}`;
  if (tag) q += `&tag=${enc(tag)}`;
  if (cursor) q += `&cursor=${enc(cursor)}`;
  return request('GET', q).then((r) => r.data);
}

export function getLink(code) {
  return request('GET', `/v1/links/${enc(code)}`).then((r) => ({ link: r.data, etag: r.headers.get('ETag') }));
}

export function createLink(body, idempotencyKey) {
  return request('POST', '/v1/links', { body, headers: { 'Idempotency-Key': idempotencyKey } }).then((r) => r.data);
}

export function patchLink(code, body, etag) {
  return request('PATCH', `/v1/links/${enc(code)}`, { body, headers: { 'If-Match': etag } }).then((r) => r.data);
}

export function deleteLink(code) {
  return request('DELETE', `/v1/links/${enc(code)}`);
}

export function batchCreate(links, idempotencyKey) {
  return request('POST', '/v1/links/batch', { body: { links }, headers: { 'Idempotency-Key': idempotencyKey } }).then((r) => r.data);
}

export async function qrBlob(code, format, size) {
  const accept = format === 'svg' ? 'image/svg+xml' : 'image/png';
  const res = await request('GET', `/v1/links/${enc(code)}/qr?format=${format}&size=${size}`, { headers: { Accept: accept }, raw: true });
  return res.blob();
}

export function stats(code, from, to, granularity) {
  return request('GET', `/v1/links/${enc(code)}/stats?from=${enc(from)}&to=${enc(to)}&granularity=${granularity}`).then((r) => r.data);
}

// auditLog reads one page of the workspace's audit log, newest first;
// filters: target_type, target, actor, from, to (RFC 3339).
export function auditLog(limit, cursor, filters = {}) {
  let q = `/v1/audit?limit=${limit}`;
  for (const [k, v] of Object.entries(filters)) if (v) q += `&${k}=${enc(v)}`;
  if (cursor) q += `&cursor=${enc(cursor)}`;
  return request('GET', q).then((r) => r.data);
}

// newKey is a fresh Idempotency-Key.
export function newKey() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}

// accountStats reads GET /v1/stats: the account's newest links summed
// per day, or, with codes, those links and each one's daily series.
export function accountStats({ from, to, codes, tag } = {}) {
  const q = [];
  if (from) q.push(`from=${enc(from)}`);
  if (to) q.push(`to=${enc(to)}`);
  if (codes && codes.length) q.push(`codes=${codes.map(enc).join(',')}`);
  if (tag) q.push(`tag=${enc(tag)}`);
  return request('GET', `/v1/stats${q.length ? '?' + q.join('&') : ''}`).then((r) => r.data);
}

// listTags reads the caller's tags with their link counts.
export function listTags() {
  return request('GET', '/v1/tags').then((r) => r.data);
}

// The workspace's API keys, for its admins (docs/api.md, "Keys"). The
// key itself is only in createKey's and rotateKey's answer: the caller
// shows it once and keeps it nowhere.
export function listKeys() {
  return request('GET', '/v1/keys').then((r) => r.data);
}

export function createKey(body) {
  return request('POST', '/v1/keys', { body }).then((r) => r.data);
}

export function rotateKey(id) {
  return request('POST', `/v1/keys/${enc(id)}/rotate`).then((r) => r.data);
}

export function revokeKey(id) {
  return request('DELETE', `/v1/keys/${enc(id)}`);
}
