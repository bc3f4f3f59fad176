import { useEffect, useState } from 'preact/hooks';
import * as api from './api.js';
import { Bars } from './analytics.jsx';

const DAY = 24 * 3600e3;

// Sparkline draws a daily series as a small SVG line (no inline style:
// the console's CSP allows none).
export function Sparkline({ series, code }) {
  if (!series) return <span class="spark-none">-</span>;
  const w = 84;
  const h = 20;
  const vals = series.map((p) => p.total);
  const max = Math.max(1, ...vals);
  const step = vals.length > 1 ? w / (vals.length - 1) : w;
  const pts = vals.map((v, i) => `${(i * step).toFixed(1)},${(h - 1 - ((h - 2) * v) / max).toFixed(1)}`).join(' ');
  const total = vals.reduce((a, b) => a + b, 0);
  return (
    <span class="spark" data-total={total}>
      <svg width={w} height={h} viewBox={`0 0 ${w} ${h}`} role="img" aria-label={`${total} clicks in the last ${vals.length} days of ${code}`}>
        <polyline points={pts} fill="none" stroke="#1b5e9a" stroke-width="1.5" />
      </svg>
      <span class="sub">{total}</span>
    </span>
  );
}

// lastWeek is the last 7 UTC days, today included, as API dates.
export function lastWeek(now = Date.now()) {
  const to = Math.floor(now / DAY) * DAY; // today's start; a date as to includes that day
  return { from: new Date(to - 6 * DAY).toISOString().slice(0, 10), to: new Date(to).toISOString().slice(0, 10) };
}

// useSparklines reads the 7-day series of codes with one GET /v1/stats.
export function useSparklines(codes, onAuthError) {
  const [series, setSeries] = useState({});
  const key = codes.join(',');
  useEffect(() => {
    if (!codes.length) return;
    let live = true;
    api.accountStats({ ...lastWeek(), codes: codes.slice(0, 100) }).then((s) => {
      if (!live) return;
      const m = {};
      for (const l of s.per_link || []) m[l.code] = l.series;
      setSeries((prev) => ({ ...prev, ...m }));
    }).catch((ex) => { onAuthError(ex); });
    return () => { live = false; };
  }, [key]);
  return series;
}

// Breakdowns shows a link's devices, operating systems, browsers,
// campaigns and visitors.
export function Breakdowns({ cur, hideBots }) {
  const c = cur.campaigns || { sources: [], media: [], campaigns: [] };
  return (
    <>
      {cur.visitors && (
        <dl class="totals" id="visitors">
          <div><dt>Unique visitors</dt><dd id="visitors-estimate">{cur.visitors.estimate}</dd></div>
          <div><dt>Error</dt><dd>&plusmn;{(100 * cur.visitors.standard_error).toFixed(1)} %</dd></div>
        </dl>
      )}
      <div class="grid2">
        <Bars rows={cur.devices || []} keyName="name" head="Device" hideBots={hideBots} id="devices" caption="Devices" />
        <Bars rows={cur.os || []} keyName="name" head="Operating system" hideBots={hideBots} id="os" caption="Operating systems" />
        <Bars rows={cur.browsers || []} keyName="name" head="Browser" hideBots={hideBots} id="browsers" caption="Browsers" />
        <Bars rows={c.sources} keyName="name" head="utm_source" hideBots={hideBots} id="campaign-sources" caption="Campaign sources" />
        <Bars rows={c.media} keyName="name" head="utm_medium" hideBots={hideBots} id="campaign-media" caption="Campaign media" />
        <Bars rows={c.campaigns} keyName="name" head="utm_campaign" hideBots={hideBots} id="campaign-names" caption="Campaigns" />
      </div>
    </>
  );
}

// TopTagsCount is how many of the owner's tags (those on the most links)
// the overview sums: one GET /v1/stats?tag= each.
const TopTagsCount = 5;

// TopTags is the last 7 days' clicks of the links of the owner's most used
// tags (GET /v1/tags, then GET /v1/stats?tag= for each), most clicked first.
function TopTags({ onAuthError }) {
  const [rows, setRows] = useState(null);
  useEffect(() => {
    api.listTags()
      .then((d) => {
        const top = [...d.tags].sort((a, b) => b.links - a.links).slice(0, TopTagsCount);
        return Promise.all(top.map((t) => api.accountStats({ ...lastWeek(), tag: t.tag }).then((s) => ({ tag: t.tag, links: t.links, ...s.totals }))));
      })
      .then((r) => setRows(r.sort((a, b) => b.total - a.total)))
      .catch((ex) => { if (!onAuthError(ex)) setRows([]); });
  }, []);
  if (!rows) return null;
  return (
    <table id="top-tags">
      <caption>Top tags</caption>
      <thead><tr><th scope="col">Tag</th><th scope="col">Links</th><th scope="col">Total</th><th scope="col">Humans</th><th scope="col">Bots</th></tr></thead>
      <tbody>
        {rows.map((t) => (
          <tr key={t.tag} data-tag={t.tag}><td>{t.tag}</td><td>{t.links}</td><td>{t.total}</td><td>{t.human}</td><td>{t.bot}</td></tr>
        ))}
        {!rows.length && <tr><td colSpan={5}>No tags yet</td></tr>}
      </tbody>
    </table>
  );
}

// Overview is the account's last 7 days: totals, top links and tags,
// countries and devices (GET /v1/stats).
export function Overview({ onAuthError }) {
  const [s, setS] = useState(null);
  const [err, setErr] = useState('');
  useEffect(() => {
    api.accountStats(lastWeek()).then(setS).catch((ex) => { if (!onAuthError(ex)) setErr(ex.message); });
  }, []);
  return (
    <section aria-labelledby="overview-title">
      <h1 id="overview-title">Overview: last 7 days</h1>
      {err && <p role="alert" class="error">{err}</p>}
      {!s && !err && <p role="status">Loading...</p>}
      {s && (
        <>
          <dl class="totals" id="overview-totals">
            <div><dt>Total</dt><dd id="overview-total">{s.totals.total}</dd></div>
            <div><dt>Humans</dt><dd>{s.totals.human}</dd></div>
            <div><dt>Bots</dt><dd>{s.totals.bot}</dd></div>
            <div><dt>Links</dt><dd>{s.links}{s.partial ? ' (your newest 1,000)' : ''}</dd></div>
          </dl>
          <table id="top-links">
            <caption>Top links</caption>
            <thead><tr><th scope="col">Link</th><th scope="col">Total</th><th scope="col">Humans</th><th scope="col">Bots</th></tr></thead>
            <tbody>
              {s.top_links.map((l) => (
                <tr key={l.code}><td><a href={`#/links/${encodeURIComponent(l.code)}/stats`}>{l.code}</a></td><td>{l.total}</td><td>{l.human}</td><td>{l.bot}</td></tr>
              ))}
              {!s.top_links.length && <tr><td colSpan={4}>No clicks in this range</td></tr>}
            </tbody>
          </table>
          <TopTags onAuthError={onAuthError} />
          <div class="grid2">
            <Bars rows={s.countries} keyName="country" hideBots={false} id="overview-countries" caption="Top countries" />
            <Bars rows={s.devices} keyName="name" head="Device" hideBots={false} id="overview-devices" caption="Devices" />
          </div>
        </>
      )}
    </section>
  );
}
