import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import './style.css';
import { apiKey, setAPIKey, signOut, listLinks, ApiError } from './api.js';
import { Links } from './links.jsx';
import { Analytics } from './analytics.jsx';
import { Audit } from './audit.jsx';

// route reads the hash: #/links (default), #/links/CODE/stats or #/audit.
function route() {
  if (location.hash === '#/audit') return { view: 'audit' };
  const m = location.hash.match(/^#\/links\/([A-Za-z0-9_-]+)\/stats$/);
  return m ? { view: 'stats', code: m[1] } : { view: 'links' };
}

function SignIn({ onIn, reason }) {
  const [key, setKey] = useState('');
  const [err, setErr] = useState(reason || '');
  const [busy, setBusy] = useState(false);
  async function submit(e) {
    e.preventDefault();
    setBusy(true);
    setErr('');
    setAPIKey(key.trim());
    try {
      await listLinks(1);
      onIn();
    } catch (ex) {
      signOut();
      setErr(ex instanceof ApiError ? ex.message : String(ex));
    } finally {
      setBusy(false);
    }
  }
  return (
    <main class="signin">
      <h1>Shortener console</h1>
      <form onSubmit={submit} aria-describedby="signin-note">
        <label for="apikey">API key</label>
        <input id="apikey" type="password" autocomplete="off" required value={key} onInput={(e) => setKey(e.currentTarget.value)} />
        <button type="submit" disabled={busy}>Sign in</button>
        <p id="signin-note" class="note">The key is kept in this browser tab only (session storage) and sent only to this site's API.</p>
        {err && <p role="alert" class="error" id="signin-error">{err}</p>}
      </form>
    </main>
  );
}

function App() {
  const [signedIn, setSignedIn] = useState(!!apiKey());
  const [reason, setReason] = useState('');
  const [r, setR] = useState(route());
  useEffect(() => {
    const f = () => setR(route());
    addEventListener('hashchange', f);
    return () => removeEventListener('hashchange', f);
  }, []);
  // A 401 or 403 anywhere signs out with the API's reason.
  const onAuthError = (ex) => {
    if (ex instanceof ApiError && (ex.status === 401 || ex.status === 403)) {
      signOut();
      setReason(ex.message);
      setSignedIn(false);
      return true;
    }
    return false;
  };
  if (!signedIn) return <SignIn reason={reason} onIn={() => { setReason(''); setSignedIn(true); }} />;
  return (
    <div class="shell">
      <header>
        <a class="brand" href="#/links">Shortener console</a>
        <nav aria-label="Main">
          <a href="#/links" aria-current={r.view === 'links' ? 'page' : undefined}>Links</a>
          <a href="#/audit" id="nav-audit" aria-current={r.view === 'audit' ? 'page' : undefined}>Audit</a>
        </nav>
        <button type="button" class="secondary" id="signout" onClick={() => { signOut(); setSignedIn(false); }}>Sign out</button>
      </header>
      <main id="main">
        {r.view === 'stats' ? <Analytics code={r.code} onAuthError={onAuthError} />
          : r.view === 'audit' ? <Audit onAuthError={onAuthError} /> : <Links onAuthError={onAuthError} />}
      </main>
    </div>
  );
}

render(<App />, document.getElementById('app'));
