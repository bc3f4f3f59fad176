import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import './style.css';
import { apiKey, setAPIKey, signOut, listLinks, ApiError } from './api.js';
import { loadConfig, authConfig, session, beginSignIn, completeSignIn, logoutURL } from './auth.js';
import { Links } from './links.jsx';
import { Analytics } from './analytics.jsx';
import { Overview } from './overview.jsx';
import { Audit } from './audit.jsx';
import { Keys } from './keys.jsx';

// route reads the hash: #/links (default), #/links/CODE/stats, #/audit
// or #/keys.
function route() {
  if (location.hash === '#/audit') return { view: 'audit' };
  if (location.hash === '#/keys') return { view: 'keys' };
  const m = location.hash.match(/^#\/links\/([A-Za-z0-9_-]+)\/stats$/);
  if (!m && location.hash === '#/overview') return { view: 'overview' };
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
  const idp = authConfig();
  async function signInWithIdP() {
    setBusy(true);
    setErr('');
    try {
      await beginSignIn();
    } catch (ex) {
      setBusy(false);
      setErr(String(ex.message || ex));
    }
  }
  return (
    <main class="signin">
      <h1>Shortener console</h1>
      {idp && (
        <section class="idp" aria-labelledby="idp-title">
          <h2 id="idp-title" class="visually-hidden">Sign in with your account</h2>
          <button type="button" id="signin-idp" disabled={busy} onClick={signInWithIdP}>Sign in</button>
          <p class="note">With your account at this deployment's sign-in page. Or use an API key:</p>
        </section>
      )}
      <form onSubmit={submit} aria-describedby="signin-note">
        <label for="apikey">API key</label>
        <input id="apikey" type="password" autocomplete="off" required value={key} onInput={(e) => setKey(e.currentTarget.value)} />
        <button type="submit" disabled={busy}>{idp ? 'Sign in with the key' : 'Sign in'}</button>
        <p id="signin-note" class="note">The key is kept in this browser tab only (session storage) and sent only to this site's API.</p>
        {err && <p role="alert" class="error" id="signin-error">{err}</p>}
      </form>
    </main>
  );
}

function App({ reason: initialReason }) {
  const [signedIn, setSignedIn] = useState(!!apiKey() || !!session());
  const [reason, setReason] = useState(initialReason || '');
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
  const s = session();
  const user = s && s.user;
  // Signing out of a session also ends the provider's: its logout
  // endpoint sends the browser back here.
  const out = () => {
    const viaIdP = !!session() && !!authConfig();
    signOut();
    if (viaIdP) location.assign(logoutURL());
    else setSignedIn(false);
  };
  if (!signedIn) return <SignIn reason={reason} onIn={() => { setReason(''); setSignedIn(true); }} />;
  return (
    <div class="shell">
      <header>
        <a class="brand" href="#/links">Shortener console</a>
        <nav aria-label="Main">
          <a href="#/links" aria-current={r.view === 'links' ? 'page' : undefined}>Links</a>
          <a href="#/overview" id="nav-overview" aria-current={r.view === 'overview' ? 'page' : undefined}>Overview</a>
          <a href="#/audit" id="nav-audit" aria-current={r.view === 'audit' ? 'page' : undefined}>Audit</a>
          <a href="#/keys" id="nav-keys" aria-current={r.view === 'keys' ? 'page' : undefined}>Keys</a>
        </nav>
        {user && <span class="note" id="signed-in-as">{user}</span>}
        <button type="button" class="secondary" id="signout" onClick={out}>Sign out</button>
      </header>
      <main id="main">
        {r.view === 'overview' && <Overview onAuthError={onAuthError} />}
        {r.view === 'stats' && <Analytics code={r.code} onAuthError={onAuthError} />}
        {r.view === 'links' && <Links onAuthError={onAuthError} />}
        {r.view === 'audit' && <Audit onAuthError={onAuthError} />}
        {r.view === 'keys' && <Keys onAuthError={onAuthError} />}
      </main>
    </div>
  );
}

// Settings first (is sign-in on?), then a return from the sign-in page
// when this load is one.
async function start() {
  await loadConfig();
  let reason = '';
  try {
    await completeSignIn();
  } catch (ex) {
    signOut();
    reason = String(ex.message || ex);
  }
  render(<App reason={reason} />, document.getElementById('app'));
}
start();
