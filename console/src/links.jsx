import { Fragment } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import * as api from './api.js';
import { fmtLocal, utcTitle, safeHref, statusOf, matches, downloadBlob } from './format.js';
import { importRequests, toCSV } from './csv.js';
import { parseLines, parseRule, parseTarget, rulesText, targetsText } from './rules.js';
import { UTM, campaignURL } from './campaign.js';

const PAGE = 50;

function Time({ iso }) {
  return <time dateTime={iso} title={utcTitle(iso)}>{fmtLocal(iso)}</time>;
}

function Badge({ status }) {
  return <span class={`badge badge-${status}`}>{status}</span>;
}

// toLocalInput turns an RFC 3339 time into a datetime-local value.
function toLocalInput(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  const p = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
}

// LinkForm is create (no link) or edit (link and its ETag).
function LinkForm({ link, etag, onDone, onCancel, onAuthError }) {
  const editing = !!link;
  const [url, setURL] = useState(link ? link.url : '');
  const [alias, setAlias] = useState('');
  const [expires, setExpires] = useState(link ? toLocalInput(link.expires_at) : '');
  const [status, setStatus] = useState(link ? String(link.redirect_status) : '302');
  // Redirect rules: the password is write-only, so its input starts empty
  // and an edit only sets a new one or removes the current one.
  const [password, setPassword] = useState('');
  const [noPassword, setNoPassword] = useState(false);
  const initial = {
    maxClicks: link && link.max_clicks ? String(link.max_clicks) : '',
    rules: rulesText(link && link.rules),
    targets: targetsText(link && link.targets),
    expiredURL: (link && link.expired_url) || '',
  };
  const [maxClicks, setMaxClicks] = useState(initial.maxClicks);
  const [rules, setRules] = useState(initial.rules);
  const [targets, setTargets] = useState(initial.targets);
  const [expiredURL, setExpiredURL] = useState(initial.expiredURL);
  const [utm, setUTM] = useState({});
  // What a create sends: the destination with the campaign's parameters.
  const destination = editing ? url.trim() : campaignURL(url.trim(), utm);
  const [err, setErr] = useState('');
  const [stale, setStale] = useState(false);
  const [busy, setBusy] = useState(false);
  const [tag, setTag] = useState(etag);
  // One Idempotency-Key per draft: a double click or a retry sends the
  // same key, so the API makes one link.
  const idem = useRef(api.newKey());

  async function submit(e) {
    e.preventDefault();
    setErr('');
    setBusy(true);
    const body = { url: destination, redirect_status: Number(status) };
    if (expires) body.expires_at = new Date(expires).toISOString();
    try {
      // A field changed to empty is null: the API removes it.
      const changed = (now, was) => !editing || now.trim() !== was.trim();
      const orNull = (v) => (v === '' || (Array.isArray(v) && !v.length) ? (editing ? null : undefined) : v);
      if (changed(maxClicks, initial.maxClicks)) body.max_clicks = orNull(maxClicks.trim() === '' ? '' : Number(maxClicks));
      if (changed(rules, initial.rules)) body.rules = orNull(parseLines(rules, parseRule, 'Rules'));
      if (changed(targets, initial.targets)) body.targets = orNull(parseLines(targets, parseTarget, 'Targets'));
      if (changed(expiredURL, initial.expiredURL)) body.expired_url = orNull(expiredURL.trim());
      if (password) body.password = password;
      else if (editing && noPassword) body.password = null;
      for (const k of Object.keys(body)) if (body[k] === undefined) delete body[k];
      if (editing) {
        // Only what the user changed: a field left alone keeps whatever
        // the link has now, even a change made elsewhere meanwhile.
        if (body.url === link.url) delete body.url;
        if (String(body.redirect_status) === String(link.redirect_status)) delete body.redirect_status;
        if (!expires || expires === toLocalInput(link.expires_at)) delete body.expires_at;
        if (!Object.keys(body).length) {
          setErr('Nothing changed.');
          return;
        }
        const l = await api.patchLink(link.code, body, tag);
        onDone(l);
      } else {
        if (alias.trim()) body.alias = alias.trim();
        const l = await api.createLink(body, idem.current);
        idem.current = api.newKey();
        onDone(l);
      }
    } catch (ex) {
      if (onAuthError(ex)) return;
      if (ex instanceof api.ApiError && ex.status === 412) setStale(true);
      setErr(ex.message);
    } finally {
      setBusy(false);
    }
  }
  // reload takes the link's current version (and shows what changed)
  // without touching what the user typed.
  async function reload() {
    try {
      const r = await api.getLink(link.code);
      setTag(r.etag);
      setStale(false);
      setErr(`Reloaded version ${r.link.version}: the URL there is now ${r.link.url}. Your edits are kept; save again to apply them.`);
    } catch (ex) {
      if (!onAuthError(ex)) setErr(ex.message);
    }
  }
  const id = editing ? 'edit' : 'new';
  return (
    <form class="card linkform" onSubmit={submit} id={`${id}-form`} aria-label={editing ? `Edit ${link.code}` : 'Create a link'}>
      <h2>{editing ? `Edit ${link.alias || link.code}` : 'Create a link'}</h2>
      <label for={`${id}-url`}>Destination URL</label>
      <input id={`${id}-url`} type="url" required value={url} onInput={(e) => setURL(e.currentTarget.value)} placeholder="https://example.com/page" />
      {!editing && (
        <>
          <label for={`${id}-alias`}>Alias (optional)</label>
          <input id={`${id}-alias`} pattern="[A-Za-z0-9_\-]{1,100}" value={alias} onInput={(e) => setAlias(e.currentTarget.value)} aria-describedby={`${id}-alias-note`} />
          <small id={`${id}-alias-note`}>letters, digits, _ or - (3-64 unless the deployment allows 1-100)</small>
          <details class="campaign" id={`${id}-campaign`}>
            <summary>Campaign (optional)</summary>
            <div class="fields">
              {UTM.map((n) => (
                <Fragment key={n}>
                  <label for={`${id}-utm-${n}`}>utm_{n}</label>
                  <input id={`${id}-utm-${n}`} value={utm[n] || ''} onInput={(e) => setUTM({ ...utm, [n]: e.currentTarget.value })} />
                </Fragment>
              ))}
              {destination !== url.trim() && (
                <p class="sub">Link destination: <output id={`${id}-campaign-url`} class="code" for={UTM.map((n) => `${id}-utm-${n}`).join(' ')}>{destination}</output></p>
              )}
            </div>
          </details>
        </>
      )}
      <label for={`${id}-expires`}>Expires (your time zone; empty: {editing ? 'unchanged' : 'the default, 5 years'})</label>
      <input id={`${id}-expires`} type="datetime-local" value={expires} onInput={(e) => setExpires(e.currentTarget.value)} />
      <label for={`${id}-status`}>Redirect status</label>
      <select id={`${id}-status`} value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
        <option value="302">302 Found (default; clicks stay visible)</option>
        <option value="307">307 Temporary Redirect</option>
        <option value="301">301 Moved Permanently</option>
        <option value="308">308 Permanent Redirect</option>
      </select>
      <fieldset class="rules" id={`${id}-rules-fields`}>
        <legend>Redirect rules (optional)</legend>
        <label for={`${id}-password`}>{editing && link.protected ? 'New password (empty: keep the current one)' : 'Password'}</label>
        <input id={`${id}-password`} type="password" autocomplete="new-password" minLength={8} maxLength={128} value={password}
          disabled={noPassword} onInput={(e) => setPassword(e.currentTarget.value)} aria-describedby={`${id}-password-note`} />
        <small id={`${id}-password-note`}>8-128 characters; visitors must give it. Never shown again.</small>
        {editing && link.protected && (
          <label class="check">
            <input id={`${id}-no-password`} type="checkbox" checked={noPassword} onChange={(e) => setNoPassword(e.currentTarget.checked)} /> Remove the password
          </label>
        )}
        <label for={`${id}-max-clicks`}>Click limit</label>
        <input id={`${id}-max-clicks`} type="number" min="1" step="1" value={maxClicks} onInput={(e) => setMaxClicks(e.currentTarget.value)} />
        <label for={`${id}-rules`}>Rules, tried in order, one a line</label>
        <textarea id={`${id}-rules`} rows={3} value={rules} onInput={(e) => setRules(e.currentTarget.value)} aria-describedby={`${id}-rules-note`}
          placeholder="country=DE,AT;device=mobile;url=https://example.com/de" />
        <small id={`${id}-rules-note`}>KEY=VALUES;... with country, device (mobile, tablet, desktop), os (ios, android, windows, macos, linux), language and url</small>
        <label for={`${id}-targets`}>Split, one target a line</label>
        <textarea id={`${id}-targets`} rows={2} value={targets} onInput={(e) => setTargets(e.currentTarget.value)} aria-describedby={`${id}-targets-note`}
          placeholder="https://a.example.com/=70" />
        <small id={`${id}-targets-note`}>URL=WEIGHT; 2-10 targets, weights summing to 100</small>
        <label for={`${id}-expired-url`}>After expiry, send visitors to</label>
        <input id={`${id}-expired-url`} type="url" value={expiredURL} onInput={(e) => setExpiredURL(e.currentTarget.value)} placeholder="https://example.com/over" />
      </fieldset>
      {err && <p role="alert" class={stale ? 'error stale' : 'error'} id={`${id}-error`}>{err}</p>}
      <div class="row">
        <button type="submit" disabled={busy} id={`${id}-submit`}>{editing ? 'Save' : 'Create'}</button>
        {stale && <button type="button" id="edit-reload" onClick={reload}>Reload</button>}
        {onCancel && <button type="button" class="secondary" onClick={onCancel}>Cancel</button>}
      </div>
    </form>
  );
}

function QRPanel({ link, onClose, onAuthError }) {
  const [src, setSrc] = useState('');
  const [err, setErr] = useState('');
  useEffect(() => {
    let url = '';
    api.qrBlob(link.code, 'png', 256).then((b) => {
      url = URL.createObjectURL(b);
      setSrc(url);
    }, (ex) => { if (!onAuthError(ex)) setErr(ex.message); });
    return () => url && URL.revokeObjectURL(url);
  }, [link.code]);
  async function save(format) {
    try {
      const b = await api.qrBlob(link.code, format, 1024);
      downloadBlob(b, `${link.code}.${format}`);
    } catch (ex) {
      if (!onAuthError(ex)) setErr(ex.message);
    }
  }
  return (
    <section class="card qr" aria-label={`QR code of ${link.code}`}>
      <h2>QR code: {link.short_url}</h2>
      {src ? <img src={src} width="256" height="256" alt={`QR code for ${link.short_url}`} id="qr-img" /> : <p>Loading...</p>}
      {err && <p role="alert" class="error">{err}</p>}
      <div class="row">
        <button type="button" id="qr-png" onClick={() => save('png')}>Download PNG</button>
        <button type="button" id="qr-svg" onClick={() => save('svg')}>Download SVG</button>
        <button type="button" class="secondary" onClick={onClose}>Close</button>
      </div>
    </section>
  );
}

// What the API answers when a call may succeed if sent again: no answer,
// 429 (throttled) and 503 (a dependency slow or unavailable).
const RETRYABLE = new Set([0, 429, 503]);
const ATTEMPTS = 4;

const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));
const backoff = (retryAfter, attempt) => Math.min(10e3, retryAfter > 0 ? retryAfter * 1e3 : 500 * 2 ** (attempt - 1));

// sendChunk creates a chunk's links in one batch call, and sends the
// chunk again under the same Idempotency-Key while the call, or some of
// its rows, answer that they may succeed later: the rows already created
// are replayed, not created twice (docs/api.md, "Many at once"), so a slow
// moment costs a few seconds, not rows reported as failed.
async function sendChunk(reqs, key) {
  for (let attempt = 1; ; attempt++) {
    let res;
    try {
      res = await api.batchCreate(reqs, key);
    } catch (ex) {
      if (!RETRYABLE.has(ex.status) || attempt === ATTEMPTS) throw ex;
      await sleep(backoff(ex.retryAfter, attempt));
      continue;
    }
    if (attempt === ATTEMPTS || !res.results.some((r) => RETRYABLE.has(r.status))) return res;
    await sleep(backoff(0, attempt));
  }
}

function Importer({ onDone, onAuthError }) {
  const [progress, setProgress] = useState(null); // {done, total}
  const [report, setReport] = useState([]);
  const [err, setErr] = useState('');
  async function run(file) {
    setErr('');
    setReport([]);
    const rows = importRequests(await file.text());
    if (!rows.length) {
      setErr('The file has no rows.');
      return;
    }
    const out = [];
    setProgress({ done: 0, total: rows.length });
    for (let i = 0; i < rows.length; i += 100) {
      const chunk = rows.slice(i, i + 100);
      try {
        const res = await sendChunk(chunk.map((r) => r.req), api.newKey());
        for (const r of res.results) {
          const row = chunk[r.index];
          out.push({ line: row.line, status: r.status, code: r.link ? r.link.code : '', message: r.problem ? `${r.problem.title}${r.problem.field ? ' (' + r.problem.field + ')' : ''}: ${r.problem.detail || ''}` : 'created' });
        }
      } catch (ex) {
        if (onAuthError(ex)) return;
        for (const row of chunk) out.push({ line: row.line, status: ex.status || 0, code: '', message: ex.message });
      }
      setProgress({ done: Math.min(i + 100, rows.length), total: rows.length });
      setReport([...out]);
    }
    onDone();
  }
  const ok = report.filter((r) => r.status === 201).length;
  return (
    <section class="card" aria-label="Import links from CSV">
      <h2>Import from CSV</h2>
      <label for="import-file">CSV file (url,alias,ttl_seconds,redirect_status)</label>
      <input id="import-file" type="file" accept=".csv,text/csv" onChange={(e) => e.currentTarget.files[0] && run(e.currentTarget.files[0])} />
      {progress && (
        <p>
          <label for="import-progress">Progress</label>{' '}
          <progress id="import-progress" max={progress.total} value={progress.done}>{progress.done}/{progress.total}</progress>{' '}
          <span id="import-summary">{progress.done} of {progress.total} rows sent; {ok} created, {report.length - ok} failed</span>
        </p>
      )}
      {err && <p role="alert" class="error">{err}</p>}
      {report.length > 0 && (
        <div class="scroll" tabIndex={0} role="region" aria-label="Per-row report">
        <table id="import-report">
          <caption>Per-row report (line numbers of the file)</caption>
          <thead><tr><th scope="col">Line</th><th scope="col">Status</th><th scope="col">Code</th><th scope="col">Result</th></tr></thead>
          <tbody>{report.map((r) => <tr key={r.line} class={r.status === 201 ? '' : 'failed'}><td>{r.line}</td><td>{r.status}</td><td>{r.code}</td><td>{r.message}</td></tr>)}</tbody>
        </table>
        </div>
      )}
    </section>
  );
}

const NO_FEATURES = { protected: undefined, max_clicks: undefined, rules: undefined, targets: undefined, expired_url: undefined };

// features names a link's redirect rules in a few words.
function features(l) {
  return [
    l.protected && 'password',
    l.max_clicks && `limit ${l.max_clicks}`,
    l.rules && l.rules.length && `${l.rules.length} rule${l.rules.length > 1 ? 's' : ''}`,
    l.targets && l.targets.length && `${l.targets.length}-way split`,
    l.expired_url && 'after-expiry URL',
  ].filter(Boolean).join(' · ');
}

function Row({ l, onChange, onAuthError, onEdit, onQR }) {
  const [confirm, setConfirm] = useState(false);
  const [msg, setMsg] = useState('');
  const st = statusOf(l);
  const href = safeHref(l.short_url);
  async function toggle() {
    try {
      const next = await api.patchLink(l.code, { status: l.status === 'disabled' ? 'active' : 'disabled' }, `"${l.version}"`);
      onChange(next);
    } catch (ex) {
      if (!onAuthError(ex)) setMsg(ex.message);
    }
  }
  async function del() {
    try {
      await api.deleteLink(l.code);
      onChange({ ...l, deleted: true });
      setConfirm(false);
    } catch (ex) {
      if (!onAuthError(ex)) setMsg(ex.message);
    }
  }
  async function copy() {
    try {
      await navigator.clipboard.writeText(l.short_url);
      setMsg('Copied.');
    } catch {
      setMsg(`Copy this: ${l.short_url}`);
    }
  }
  return (
    <tr data-code={l.code}>
      <td data-label="Short link">
        {href ? <a href={href} target="_blank" rel="noopener noreferrer" class="short">{l.short_url}</a> : <span>{l.short_url}</span>}
        {l.alias && <div class="sub">alias {l.alias}</div>}
      </td>
      <td data-label="Destination" class="url"><span title={l.url}>{l.url}</span></td>
      <td data-label="Created"><Time iso={l.created_at} /></td>
      <td data-label="Expires"><Time iso={l.expires_at} /></td>
      <td data-label="Status"><Badge status={st} /> <span class="sub">{l.redirect_status}</span>{features(l) && <div class="sub features">{features(l)}</div>}</td>
      <td data-label="Actions" class="actions">
        {!l.deleted && (
          <>
            <button type="button" onClick={copy} aria-label={`Copy ${l.short_url}`}>Copy</button>
            <button type="button" onClick={() => onQR(l)} aria-label={`QR code of ${l.code}`}>QR</button>
            <a class="button" href={`#/links/${encodeURIComponent(l.code)}/stats`} aria-label={`Analytics of ${l.code}`}>Stats</a>
            <button type="button" onClick={() => onEdit(l)} aria-label={`Edit ${l.code}`}>Edit</button>
            <button type="button" onClick={toggle} aria-label={`${l.status === 'disabled' ? 'Enable' : 'Disable'} ${l.code}`}>{l.status === 'disabled' ? 'Enable' : 'Disable'}</button>
            {confirm ? (
              <span role="group" aria-label="Confirm delete">
                <button type="button" class="danger" onClick={del} id={`confirm-delete-${l.code}`}>Delete {l.code} for good</button>
                <button type="button" class="secondary" onClick={() => setConfirm(false)}>Keep</button>
              </span>
            ) : (
              <button type="button" class="danger" onClick={() => setConfirm(true)} aria-label={`Delete ${l.code}`}>Delete</button>
            )}
          </>
        )}
        {msg && <div role="status" class="sub">{msg}</div>}
      </td>
    </tr>
  );
}

export function Links({ onAuthError }) {
  const [links, setLinks] = useState([]);
  const [cursor, setCursor] = useState('');
  const [loading, setLoading] = useState(false);
  const [err, setErr] = useState('');
  const [q, setQ] = useState('');
  // search is the text the list was last searched for on the server ('' for
  // every link); q filters what is loaded as the user types.
  const [search, setSearch] = useState('');
  const [panel, setPanel] = useState(null); // 'new' | 'import' | {edit} | {qr}

  async function more(reset, s = search) {
    setLoading(true);
    setErr('');
    try {
      const page = await api.listLinks(PAGE, reset ? '' : cursor, s);
      setLinks((prev) => (reset ? page.links : [...prev, ...page.links]));
      setCursor(page.next_cursor || '');
    } catch (ex) {
      if (!onAuthError(ex)) setErr(ex.message);
    } finally {
      setLoading(false);
    }
  }
  // all loads every remaining page (for a filter over all links and the
  // export) and returns the whole list.
  async function all() {
    let list = links;
    let c = cursor;
    setLoading(true);
    try {
      while (c) {
        const page = await api.listLinks(100, c, search);
        list = [...list, ...page.links];
        c = page.next_cursor || '';
      }
      setLinks(list);
      setCursor('');
    } catch (ex) {
      if (!onAuthError(ex)) setErr(ex.message);
    } finally {
      setLoading(false);
    }
    return list;
  }
  useEffect(() => { more(true); }, []);

  async function exportCSV() {
    const list = (await all()).filter((l) => !l.deleted);
    const csv = toCSV(['code', 'short_url', 'url', 'alias', 'status', 'created_at', 'expires_at', 'redirect_status', 'version'],
      list.map((l) => [l.code, l.short_url, l.url, l.alias || '', statusOf(l), l.created_at, l.expires_at, l.redirect_status, l.version]));
    downloadBlob(new Blob([csv], { type: 'text/csv' }), 'links.csv');
  }
  // The API leaves out a redirect-rule field a link no longer has, so an
  // answer replaces those fields whole rather than merging over them.
  const replace = (n) => setLinks((prev) => prev.map((l) => (l.code === n.code ? { ...l, ...NO_FEATURES, ...n } : l)));
  const shown = links.filter((l) => matches(l, q));

  return (
    <>
      <div class="toolbar">
        <h1>Links</h1>
        <button type="button" id="new-link" onClick={() => setPanel(panel === 'new' ? null : 'new')} aria-expanded={panel === 'new'}>New link</button>
        <button type="button" id="import-toggle" onClick={() => setPanel(panel === 'import' ? null : 'import')} aria-expanded={panel === 'import'}>Import CSV</button>
        <button type="button" id="export-links" onClick={exportCSV}>Export CSV</button>
      </div>
      {panel === 'new' && <LinkForm onAuthError={onAuthError} onCancel={() => setPanel(null)} onDone={(l) => { setPanel(null); setLinks((prev) => [{ status: 'active', version: 1, ...l }, ...prev]); more(true); }} />}
      {panel === 'import' && <Importer onAuthError={onAuthError} onDone={() => more(true)} />}
      {panel && panel.edit && <LinkForm key={panel.edit.code} link={panel.edit} etag={`"${panel.edit.version}"`} onAuthError={onAuthError} onCancel={() => setPanel(null)} onDone={(l) => { replace(l); setPanel(null); }} />}
      {panel && panel.qr && <QRPanel link={panel.qr} onAuthError={onAuthError} onClose={() => setPanel(null)} />}
      <form class="filter" role="search" onSubmit={(e) => { e.preventDefault(); const s = q.trim(); setSearch(s); more(true, s); }}>
        <label for="filter">Filter by code, alias or URL</label>
        <input id="filter" type="search" value={q} onInput={(e) => setQ(e.currentTarget.value)} aria-describedby="filter-note" />
        <button type="submit" id="search">Search all links</button>
        <small id="filter-note">Typing filters the links loaded; Enter searches all of them.</small>
        <span role="status" id="count">
          {shown.length} of {links.length} loaded links{search ? ` matching "${search}"` : ''}{cursor ? ' (more on the server)' : ''}
        </span>
      </form>
      {err && <p role="alert" class="error">{err}</p>}
      <table class="links" id="links-table">
        <caption class="visually-hidden">Your links, newest first</caption>
        <thead><tr><th scope="col">Short link</th><th scope="col">Destination</th><th scope="col">Created</th><th scope="col">Expires</th><th scope="col">Status</th><th scope="col">Actions</th></tr></thead>
        <tbody>
          {shown.map((l) => <Row key={l.code} l={l} onAuthError={onAuthError} onChange={replace} onEdit={(x) => setPanel({ edit: x })} onQR={(x) => setPanel({ qr: x })} />)}
        </tbody>
      </table>
      {!loading && !links.length && <p>No links yet.</p>}
      {cursor && <button type="button" id="more" onClick={() => more(false)} disabled={loading}>Load more</button>}
      {loading && <p role="status">Loading...</p>}
    </>
  );
}
