import { useEffect, useState } from 'preact/hooks';
import * as api from './api.js';
import { fmtLocal, utcTitle } from './format.js';

const PAGE = 50;

// toISO turns a datetime-local value into RFC 3339 (UTC), '' for none.
function toISO(local) {
  if (!local) return '';
  const d = new Date(local);
  return isNaN(d) ? '' : d.toISOString();
}

// Audit is the workspace's audit log: who changed what, when and from
// where, newest first, for the workspace's admins.
export function Audit({ onAuthError }) {
  const [filters, setFilters] = useState({ target_type: '', target: '', actor: '', from: '', to: '' });
  const [draft, setDraft] = useState(filters);
  const [entries, setEntries] = useState([]);
  const [next, setNext] = useState('');
  const [err, setErr] = useState('');
  const [denied, setDenied] = useState(false);
  const [busy, setBusy] = useState(false);
  const [open, setOpen] = useState('');

  async function load(cursor, f) {
    setBusy(true);
    setErr('');
    try {
      const page = await api.auditLog(PAGE, cursor, { ...f, from: toISO(f.from), to: toISO(f.to) });
      setEntries((prev) => (cursor ? prev.concat(page.entries) : page.entries));
      setNext(page.next_cursor || '');
    } catch (ex) {
      if (ex instanceof api.ApiError && ex.status === 403 && ex.problem && /admins/.test(ex.problem.detail || '')) {
        // A role that may not read the log: not a reason to sign out.
        setDenied(true);
      } else if (!onAuthError(ex)) {
        setErr(ex.message);
      }
    } finally {
      setBusy(false);
    }
  }
  useEffect(() => {
    load('', filters);
  }, [filters]);

  if (denied) {
    return <section><h1>Audit log</h1><p role="alert" class="error" id="audit-denied">Only the workspace's admins may read its audit log.</p></section>;
  }
  const set = (k) => (e) => setDraft({ ...draft, [k]: e.currentTarget.value });
  return (
    <section aria-labelledby="audit-title">
      <h1 id="audit-title">Audit log</h1>
      <form class="filters" id="audit-filters" onSubmit={(e) => { e.preventDefault(); setFilters(draft); }}>
        <label>Target
          <select id="audit-type" value={draft.target_type} onChange={set('target_type')}>
            <option value="">any</option>
            <option value="link">link</option>
            <option value="webhook">webhook</option>
            <option value="key">key</option>
            <option value="member">member</option>
          </select>
        </label>
        <label>Code or ID <input id="audit-target" value={draft.target} onInput={set('target')} /></label>
        <label>Actor <input id="audit-actor" placeholder="key:1a2b3c4d or user:…" value={draft.actor} onInput={set('actor')} /></label>
        <label>From <input id="audit-from" type="datetime-local" value={draft.from} onInput={set('from')} /></label>
        <label>To <input id="audit-to" type="datetime-local" value={draft.to} onInput={set('to')} /></label>
        <button type="submit" disabled={busy}>Filter</button>
      </form>
      {err && <p role="alert" class="error" id="audit-error">{err}</p>}
      <table id="audit-table">
        <thead>
          <tr><th scope="col">When</th><th scope="col">Actor</th><th scope="col">Source</th><th scope="col">Action</th><th scope="col">Target</th><th scope="col">Change</th></tr>
        </thead>
        <tbody>
          {entries.map((e) => (
            <tr key={e.id} data-id={e.id}>
              <td><time dateTime={e.at} title={utcTitle(e.at)}>{fmtLocal(e.at)}</time></td>
              <td class="actor">{e.actor.username ? `${e.actor.username} (${e.actor.id})` : e.actor.id}</td>
              <td class="source">{e.source}</td>
              <td class="action">{e.action}</td>
              <td class="target">{e.target.type} {e.target.id}</td>
              <td>
                <button type="button" class="secondary" aria-expanded={open === e.id} onClick={() => setOpen(open === e.id ? '' : e.id)}>Details</button>
                {open === e.id && (
                  <div class="change">
                    <h2>Before</h2><pre class="before">{e.before ? JSON.stringify(e.before, null, 2) : '—'}</pre>
                    <h2>After</h2><pre class="after">{e.after ? JSON.stringify(e.after, null, 2) : '—'}</pre>
                  </div>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {!busy && entries.length === 0 && !err && <p id="audit-empty">No changes match.</p>}
      {next && <button type="button" id="audit-more" disabled={busy} onClick={() => load(next, filters)}>More</button>}
    </section>
  );
}
