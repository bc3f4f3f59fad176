// Sign-in through the deployment's identity provider (Amazon Cognito's
// hosted UI deployed, the local provider in the local run): the OAuth 2.0
// authorization code grant with PKCE (RFC 7636, S256) for a public client.
// config.json (written at deploy time) says whether it is on and where.
//
// Tokens live in sessionStorage, as the API key does: gone with the tab,
// never in a URL, never written to the console. The code and state the
// provider sends back are taken out of the address bar before anything
// else happens.

const SESSION = 'shortener.session';
const PENDING = 'shortener.signin';

let config = null;

// loadConfig reads config.json; a deployment without one (or an answer
// that is not JSON) has sign-in off.
export async function loadConfig() {
  try {
    const res = await fetch('/console/config.json', { cache: 'no-store', credentials: 'omit', redirect: 'error' });
    if (res.ok) {
      const c = await res.json();
      if (c && c.auth && c.auth.authorizeUrl && c.auth.tokenUrl && c.auth.clientId) config = c.auth;
    }
  } catch {
    /* sign-in off */
  }
  return config;
}

export function authConfig() {
  return config;
}

function b64url(bytes) {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function random(n) {
  return b64url(crypto.getRandomValues(new Uint8Array(n)));
}

// session is the signed-in user's tokens, or null.
export function session() {
  try {
    const s = JSON.parse(sessionStorage.getItem(SESSION) || 'null');
    return s && s.access ? s : null;
  } catch {
    return null;
  }
}

function keep(t, previous) {
  const s = {
    access: t.access_token,
    // Cognito's refresh grant answers without a refresh token: keep ours.
    refresh: t.refresh_token || (previous && previous.refresh) || '',
    expires: Date.now() + (Number(t.expires_in) || 3600) * 1000,
    user: (t.id_token && userOf(t.id_token)) || (previous && previous.user) || '',
  };
  sessionStorage.setItem(SESSION, JSON.stringify(s));
  return s;
}

// userOf is the name to show from an ID token's claims (its signature is
// the API's to check; this is display only).
function userOf(idToken) {
  try {
    const p = idToken.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
    const c = JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(p), (x) => x.charCodeAt(0))));
    return c.email || c['cognito:username'] || '';
  } catch {
    return '';
  }
}

export function clearSession() {
  sessionStorage.removeItem(SESSION);
}

// beginSignIn sends the browser to the provider's authorize endpoint with
// a fresh state and PKCE challenge, kept in this tab for the return.
export async function beginSignIn() {
  const verifier = random(32); // 43 characters
  const state = random(16);
  sessionStorage.setItem(PENDING, JSON.stringify({ verifier, state }));
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: config.clientId,
    redirect_uri: config.redirectUri,
    scope: config.scope || 'openid email profile',
    state,
    code_challenge: b64url(new Uint8Array(digest)),
    code_challenge_method: 'S256',
  });
  location.assign(`${config.authorizeUrl}?${q}`);
}

// token posts a form to the token endpoint; a refusal throws with the
// provider's error.
async function token(form) {
  let res;
  try {
    res = await fetch(config.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: config.clientId, ...form }),
      cache: 'no-store',
      credentials: 'omit',
      redirect: 'error',
    });
  } catch {
    throw new Error('The sign-in service could not be reached. Check your connection and try again.');
  }
  let body = null;
  try {
    body = await res.json();
  } catch {
    /* not JSON */
  }
  if (!res.ok || !body || !body.access_token) {
    const why = body && body.error ? `${body.error}${body.error_description ? ': ' + body.error_description : ''}` : `status ${res.status}`;
    throw new Error(`The sign-in service refused the sign-in (${why}). Sign in again.`);
  }
  return body;
}

// completeSignIn finishes a return from the provider, when this page load
// is one: it takes code, state and any error out of the URL at once, then
// checks state and exchanges the code. It returns true when signed in,
// false when the page was not a return, and throws with the reason when
// the sign-in failed (nothing is stored then).
export async function completeSignIn() {
  const q = new URLSearchParams(location.search);
  if (!q.has('code') && !q.has('error') && !q.has('state')) return false;
  const code = q.get('code');
  const state = q.get('state');
  const error = q.get('error');
  const desc = q.get('error_description');
  for (const k of ['code', 'state', 'error', 'error_description']) q.delete(k);
  const rest = q.toString();
  history.replaceState(history.state, '', location.pathname + (rest ? '?' + rest : '') + location.hash);

  let pending = null;
  try {
    pending = JSON.parse(sessionStorage.getItem(PENDING) || 'null');
  } catch {
    /* none */
  }
  sessionStorage.removeItem(PENDING);
  if (!config) throw new Error('Sign-in is not set up for this console.');
  if (error) throw new Error(`The sign-in was refused (${error}${desc ? ': ' + desc : ''}).`);
  if (!pending || !state || state !== pending.state) {
    throw new Error('This sign-in answer does not match a sign-in started in this tab, so it was refused. Sign in again.');
  }
  if (!code) throw new Error('The sign-in service sent no code. Sign in again.');
  keep(await token({ grant_type: 'authorization_code', code, redirect_uri: config.redirectUri, code_verifier: pending.verifier }));
  return true;
}

let refreshing = null;

// refresh gets new tokens with the refresh token; on failure the session
// is cleared and it returns null.
export function refresh() {
  if (!refreshing) {
    refreshing = (async () => {
      const s = session();
      if (!s || !s.refresh || !config) {
        clearSession();
        return null;
      }
      try {
        return keep(await token({ grant_type: 'refresh_token', refresh_token: s.refresh }), s);
      } catch {
        clearSession();
        return null;
      }
    })().finally(() => {
      refreshing = null;
    });
  }
  return refreshing;
}

// accessToken is a current access token, refreshed when it has less than
// a minute left; '' when not signed in.
export async function accessToken() {
  let s = session();
  if (s && s.expires - Date.now() < 60000) s = await refresh();
  return s ? s.access : '';
}

// logoutURL is where signing out sends the browser: the provider's logout
// endpoint, which comes back to the console.
export function logoutURL() {
  const q = new URLSearchParams({ client_id: config.clientId, logout_uri: config.redirectUri });
  return `${config.logoutUrl}?${q}`;
}
