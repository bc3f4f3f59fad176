import { useEffect, useState } from 'preact/hooks';
import * as api from './api.js';
import { fmtLocal, utcTitle } from './format.js';

// missingRole is the API's 403 for a caller below admin: not a reason to
// sign out.
function missingRole(ex) {
  return ex instanceof api.ApiError && ex.status === 403 && !!ex.problem && /missing-role$/.test(ex.problem.type || '');
}

function When({ iso }) {
  return iso ? <time dateTime={iso} title={utcTitle(iso)}>{fmtLocal(iso)}</time> : <span>never</span>;
}

// Shown holds a new key, shown once: only in this component's state,
// never in storage nor the browser console; Done forgets it.
function Shown({ created, onDone }) {
  const [msg, setMsg] = useState('');
  async function copy() {
    try {
      await navigator.clipboard.writeText(created.key);
      setMsg('Copied.');
    } catch {
      setMsg('Could not copy: select the key and copy it.');
    }
  }
  return (
    <section class="card" id="key-shown" aria-labelledby="key-shown-title">
      <h2 id="key-shown-title">{created.replaces ? `Key ${created.id} replaces ${created.replaces}` : `New key ${created.id}`}</h2>
      <label for="key-value">API key ({created.role})</label>
      <div class="row">
        <input id="key-value" class="code" readOnly size="44" value={created.key} aria-describedby="key-once" onFocus={(e) => e.currentTarget.select()} />
        <button type="button" id="key-copy" onClick={copy}>Copy</button>
        <button type="button" class="secondary" id="key-done" onClick={onDone}>Done</button>
      </div>
      <p id="key-once" class="note"><strong>Copy it now: you will not see it again.</strong> Only its ID is kept; a lost key is rotated, not recovered.</p>
      {created.warning && <p role="alert" class="error" id="key-warning">{created.warning}</p>}
      {msg && <p role="status" class="sub">{msg}</p>}
    </section>
  );
}

function KeyRow({ k, onRotate, onRevoke, busy }) {
  const [confirm, setConfirm] = useState(false);
  const live = k.status !== 'revoked';
  return (
    <tr data-id={k.id}>
      <td class="code">{k.id}</td>
      <td class="role">{k.role}</td>
      <td class="note-cell">{k.note}</td>
      <td class="status"><span class={`badge badge-${k.status === 'revoked' ? 'deleted' : k.status}`}>{k.status}</span></td>
      <td><When iso={k.created_at} /></td>
      <td><When iso={k.expires_at} /></td>
      <td class="actions">
        {k.status === 'active' && <button type="button" disabled={busy} onClick={() => onRotate(k)} aria-label={`Rotate key ${k.id}`}>Rotate</button>}
        {live && (confirm ? (
          <span role="group" aria-label={`Confirm revoking key ${k.id}`}>
            <button type="button" class="danger" disabled={busy} id={`confirm-revoke-${k.id}`} onClick={() => { setConfirm(false); onRevoke(k); }}>Revoke {k.id} for good</button>
            <button type="button" class="secondary" onClick={() => setConfirm(false)}>Keep</button>
          </span>
        ) : (
          <button type="button" class="danger" disabled={busy} onClick={() => setConfirm(true)} aria-label={`Revoke key ${k.id}`}>Revoke</button>
        ))}
      </td>
    </tr>
  );
}

// Keys is the workspace's API keys, for its admins: list, create,
// rotate and revoke.
export function Keys({ onAuthError }) {
  const [keys, setKeys] = useState([]);
  const [loaded, setLoaded] = useState(false);
  const [err, setErr] = useState('');
  const [denied, setDenied] = useState(false);
  const [busy, setBusy] = useState(false);
  const [form, setForm] = useState({ role: 'viewer', note: '', days: '' });
  const [created, setCreated] = useState(null);

  function fail(ex) {
    if (missingRole(ex)) setDenied(true);
    else if (!onAuthError(ex)) setErr(ex.message);
  }
  // put puts a key into the list, in place or last: the listing is
  // eventually consistent, so what a call answered is shown at once.
  const put = (list, k) => (list.some((x) => x.id === k.id) ? list.map((x) => (x.id === k.id ? { ...x, ...k } : x)) : [...list, k]);
  const info = ({ key, replaces, warning, ...k }) => k;

  async function act(f) {
    setBusy(true);
    setErr('');
    try {
      await f();
    } catch (ex) {
      fail(ex);
    } finally {
      setBusy(false);
    }
  }
  const load = () => act(async () => {
    const r = await api.listKeys();
    setKeys((prev) => r.keys.reduce(put, prev.filter((k) => r.keys.some((x) => x.id === k.id) || k.fresh)));
    setLoaded(true);
  });
  useEffect(() => { load(); }, []);

  function create(e) {
    e.preventDefault();
    const body = { role: form.role };
    if (form.note.trim()) body.note = form.note.trim();
    if (form.days !== '') body.expires_in_days = Number(form.days);
    act(async () => {
      const c = await api.createKey(body);
      setCreated(c);
      setKeys((prev) => put(prev, { ...info(c), fresh: true }));
      setForm({ role: 'viewer', note: '', days: '' });
    });
  }
  const rotate = (k) => act(async () => {
    const c = await api.rotateKey(k.id);
    setCreated(c);
    setKeys((prev) => put(c.warning ? prev : put(prev, { id: k.id, status: 'revoked' }), { ...info(c), fresh: true }));
  });
  const revoke = (k) => act(async () => {
    await api.revokeKey(k.id);
    setKeys((prev) => put(prev, { id: k.id, status: 'revoked' }));
    if (created && created.id === k.id) setCreated(null);
  });

  if (denied) {
    return <section><h1>API keys</h1><p role="alert" class="error" id="keys-denied">Only the workspace's admins may list and manage its API keys. Sign in with an admin key or account to see them.</p></section>;
  }
  const set = (f) => (e) => setForm({ ...form, [f]: e.currentTarget.value });
  return (
    <section aria-labelledby="keys-title">
      <div class="toolbar">
        <h1 id="keys-title">API keys</h1>
        <button type="button" class="secondary" id="keys-reload" disabled={busy} onClick={load}>Reload</button>
      </div>
      {created && <Shown created={created} onDone={() => setCreated(null)} />}
      <form class="filters row" id="key-form" onSubmit={create}>
        <label>Role
          <select id="key-role" value={form.role} onChange={set('role')}>
            <option value="viewer">viewer</option>
            <option value="editor">editor</option>
            <option value="admin">admin</option>
          </select>
        </label>
        <label>Note <input id="key-note" maxLength={100} value={form.note} onInput={set('note')} /></label>
        <label>Expires in days <input id="key-days" type="number" min="1" max="3650" step="1" placeholder="never" value={form.days} onInput={set('days')} /></label>
        <button type="submit" id="key-create" disabled={busy}>Create key</button>
      </form>
      {err && <p role="alert" class="error" id="keys-error">{err}</p>}
      <table id="keys-table">
        <thead>
          <tr><th scope="col">ID</th><th scope="col">Role</th><th scope="col">Note</th><th scope="col">Status</th><th scope="col">Created</th><th scope="col">Expires</th><th scope="col">Actions</th></tr>
        </thead>
        <tbody>
          {keys.map((k) => <KeyRow key={k.id} k={k} busy={busy} onRotate={rotate} onRevoke={revoke} />)}
        </tbody>
      </table>
      {loaded && keys.length === 0 && !err && <p id="keys-empty">No keys yet.</p>}
    </section>
  );
}
