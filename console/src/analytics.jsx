import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import * as api from './api.js';
import { fmtLocal, utcTitle, downloadBlob } from './format.js';
import { toCSV } from './csv.js';

const HOUR = 3600e3;
const DAY = 24 * HOUR;
// The API answers hourly series for at most 92 days.
const MAX_HOURLY = 92 * DAY;
export const PRESETS = [
  { id: '24h', label: '24 h', span: DAY, granularity: 'hour' },
  { id: '7d', label: '7 d', span: 7 * DAY, granularity: 'hour' },
  { id: '30d', label: '30 d', span: 30 * DAY, granularity: 'day' },
  { id: '90d', label: '90 d', span: 90 * DAY, granularity: 'day' },
];

const iso = (ms) => new Date(ms).toISOString().replace('.000Z', 'Z');

// rangeFor is [from, to) of a preset ending at the current bucket's end,
// and the period of the same length before it.
export function rangeFor(span, granularity, now = Date.now()) {
  const unit = granularity === 'hour' ? HOUR : DAY;
  const to = Math.floor(now / unit) * unit + unit;
  const from = to - span;
  return { from, to, prevFrom: from - span, prevTo: from };
}

// Chart draws the series with uPlot: humans, bots stacked on them, and
// the previous period's total as a dashed line.
export function Chart({ series, prev, hideBots, granularity }) {
  const el = useRef(null);
  useEffect(() => {
    if (!el.current || !series.length) return;
    const xs = series.map((b) => Date.parse(b.start) / 1000);
    const human = series.map((b) => b.human);
    const stacked = series.map((b) => b.human + b.bot);
    const previous = series.map((_, i) => (prev && prev[i] ? (hideBots ? prev[i].human : prev[i].total) : null));
    const data = [xs, human];
    const s = [{}, { label: 'Humans', stroke: '#1b5e9a', fill: 'rgba(27,94,154,0.35)', width: 1 }];
    if (!hideBots) {
      data.push(stacked);
      s.push({ label: 'Humans + bots', stroke: '#9a4f00', fill: 'rgba(154,79,0,0.20)', width: 1 });
    }
    data.push(previous);
    s.push({ label: 'Previous period', stroke: '#444', dash: [6, 4], width: 1.5 });
    const width = Math.max(300, el.current.clientWidth || 600);

    const opts = {
      width,
      height: 260,
      series: s,
      scales: { x: { time: true } },
      axes: [{}, { label: 'clicks' }],
      bands: hideBots ? [] : [{ series: [2, 1] }],
      cursor: { drag: { x: false, y: false } },
    };
    const plot = new uPlot(opts, data, el.current);
    // Follow the page's width (a phone turned, a window resized).
    const ro = new ResizeObserver(() => {
      const w = Math.max(300, el.current ? el.current.clientWidth : width);
      if (w !== plot.width) plot.setSize({ width: w, height: 260 });
    });
    ro.observe(el.current);
    return () => {
      ro.disconnect();
      plot.destroy();
    };
  }, [series, prev, hideBots, granularity]);
  return <div ref={el} class="chart" role="img" aria-label={`Clicks per ${granularity}${hideBots ? ', humans only' : ', humans and bots stacked'}, with the previous period dashed`} />;
}

function Bars({ rows, keyName, hideBots, id, caption }) {
  const val = (r) => (hideBots ? r.human : r.total);
  const max = Math.max(1, ...rows.map(val));
  return (
    <div class="bars">
      <ul aria-hidden="true">
        {rows.map((r) => (
          <li key={r[keyName]}>
            <span class="bar-label">{r[keyName]}</span>
            <span class="track"><span class="bar" ref={(e) => e && (e.style.width = `${(100 * val(r)) / max}%`)} /></span>
          </li>
        ))}
      </ul>
      <table id={id}>
        <caption>{caption}</caption>
        <thead><tr><th scope="col">{{ country: 'Country', host: 'Referrer host', destination: 'Destination' }[keyName]}</th><th scope="col">Total</th><th scope="col">Humans</th>{!hideBots && <th scope="col">Bots</th>}</tr></thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r[keyName]}><td>{r[keyName]}</td><td>{hideBots ? r.human : r.total}</td><td>{r.human}</td>{!hideBots && <td>{r.bot}</td>}</tr>
          ))}
          {!rows.length && <tr><td colSpan={4}>None in this range</td></tr>}
        </tbody>
      </table>
    </div>
  );
}

// statsCSV is the CSV of what is shown: one row per bucket, with the
// previous period's bucket beside it.
export function statsCSV(cur, prev, hideBots) {
  const header = hideBots ? ['start', 'human', 'previous_start', 'previous_human'] : ['start', 'total', 'human', 'bot', 'previous_start', 'previous_total'];
  const rows = cur.series.map((b, i) => {
    const p = prev && prev.series[i];
    return hideBots ? [b.start, b.human, p ? p.start : '', p ? p.human : ''] : [b.start, b.total, b.human, b.bot, p ? p.start : '', p ? p.total : ''];
  });
  return toCSV(header, rows);
}

export function Analytics({ code, onAuthError }) {
  const [preset, setPreset] = useState('7d');
  const [granularity, setGranularity] = useState('hour');
  const [custom, setCustom] = useState({ from: '', to: '' });
  const [hideBots, setHideBots] = useState(false);
  const [cur, setCur] = useState(null);
  const [prev, setPrev] = useState(null);
  const [err, setErr] = useState('');
  const [loading, setLoading] = useState(false);
  // shown names the range whose series is on the page; until the chosen
  // range's answer arrives, the page still shows the previous one.
  const [shown, setShown] = useState('');
  const chosen = [code, preset, granularity, custom.from, custom.to].join('|');

  function range() {
    if (preset === 'custom') {
      if (!custom.from || !custom.to) return null;
      // Dates are days in the browser's zone; the range ends after custom.to.
      const from = new Date(custom.from + 'T00:00').getTime();
      const to = new Date(custom.to + 'T00:00').getTime() + DAY;
      if (!(to > from)) return null;
      const span = to - from;
      return { from, to, prevFrom: from - span, prevTo: from };
    }
    const p = PRESETS.find((x) => x.id === preset);
    return rangeFor(p.span, granularity);
  }
  const r = range();
  const tooLong = r && granularity === 'hour' && r.to - r.from > MAX_HOURLY;

  // Only the newest load may set the page: a range chosen while another
  // loads must not be overwritten by the older answer arriving last.
  const latest = useRef(0);
  async function load() {
    if (!r || tooLong) return;
    const seq = ++latest.current;
    const key = chosen;
    setLoading(true);
    setErr('');
    try {
      const [a, b] = await Promise.all([
        api.stats(code, iso(r.from), iso(r.to), granularity),
        api.stats(code, iso(r.prevFrom), iso(r.prevTo), granularity),
      ]);
      if (seq !== latest.current) return;
      setCur(a);
      setPrev(b);
      setShown(key);
    } catch (ex) {
      if (seq === latest.current && !onAuthError(ex)) setErr(ex.message);
    } finally {
      if (seq === latest.current) setLoading(false);
    }
  }
  useEffect(() => { load(); }, [code, preset, granularity, custom.from, custom.to]);

  function choose(p) {
    setPreset(p.id);
    setGranularity(p.granularity);
  }
  const t = cur && cur.totals;
  const pt = prev && prev.totals;
  return (
    <section aria-labelledby="stats-title">
      <p><a href="#/links">&larr; All links</a></p>
      <h1 id="stats-title">Analytics: <span class="code">{code}</span></h1>
      <div class="toolbar" role="group" aria-label="Range">
        {PRESETS.map((p) => (
          <button type="button" key={p.id} class={preset === p.id ? 'on' : 'secondary'} aria-pressed={preset === p.id} onClick={() => choose(p)} id={`preset-${p.id}`}>{p.label}</button>
        ))}
        <button type="button" id="preset-custom" class={preset === 'custom' ? 'on' : 'secondary'} aria-pressed={preset === 'custom'} onClick={() => { setPreset('custom'); setGranularity('day'); }}>Custom</button>
        <label for="granularity">Per</label>
        <select id="granularity" value={granularity} onChange={(e) => setGranularity(e.currentTarget.value)}>
          <option value="hour">hour</option>
          <option value="day">day</option>
        </select>
        <label class="check"><input type="checkbox" id="hide-bots" checked={hideBots} onChange={(e) => setHideBots(e.currentTarget.checked)} /> Hide bots</label>
        <button type="button" id="refresh" onClick={load}>Refresh</button>
        <button type="button" id="export-stats" disabled={!cur || shown !== chosen} title={cur && shown !== chosen ? 'Loading the chosen range first' : undefined} onClick={() => downloadBlob(new Blob([statsCSV(cur, prev, hideBots)], { type: 'text/csv' }), `${code}-${granularity}.csv`)}>Export CSV</button>
      </div>
      {preset === 'custom' && (
        <div class="toolbar">
          <label for="custom-from">From (day)</label>
          <input id="custom-from" type="date" value={custom.from} onInput={(e) => setCustom({ ...custom, from: e.currentTarget.value })} />
          <label for="custom-to">To (day, included)</label>
          <input id="custom-to" type="date" value={custom.to} onInput={(e) => setCustom({ ...custom, to: e.currentTarget.value })} />
        </div>
      )}
      {tooLong && <p role="alert" class="error">Hourly series cover at most 92 days: choose "day" or a shorter range.</p>}
      {err && <p role="alert" class="error">{err}</p>}
      {loading && <p role="status">Loading...</p>}
      {cur && (
        <>
          <p class="range">
            <time dateTime={cur.from} title={utcTitle(cur.from)}>{fmtLocal(cur.from)}</time> to{' '}
            <time dateTime={cur.to} title={utcTitle(cur.to)}>{fmtLocal(cur.to)}</time>
            {cur.partial && ' (partial: some counts could not be read; refresh)'}
          </p>
          <dl class="totals" id="totals">
            {!hideBots && <div><dt>Total</dt><dd id="total-total">{t.total}</dd></div>}
            <div><dt>Humans</dt><dd id="total-human">{t.human}</dd></div>
            {!hideBots && <div><dt>Bots</dt><dd id="total-bot">{t.bot}</dd></div>}
            <div><dt>Previous period</dt><dd id="total-prev">{pt ? (hideBots ? pt.human : pt.total) : ''}</dd></div>
          </dl>
          {/* A link imported with another shortener's click total: shown
              apart, never in the counts above (the API's "imported"). */}
          {cur.imported && <p class="sub" id="imported-clicks">Imported: {cur.imported.clicks} clicks counted by the previous shortener before the import, not in these counts</p>}
          <Chart series={cur.series} prev={prev && prev.series} hideBots={hideBots} granularity={granularity} />
          <div class="grid2">
            <Bars rows={cur.countries} keyName="country" hideBots={hideBots} id="countries" caption="Top countries" />
            <Bars rows={cur.referrers} keyName="host" hideBots={hideBots} id="referrers" caption="Top referrer hosts" />
          </div>
          {/* Only links with rules or targets have it: every destination
              (rule-N, target-N, default, expired), at most 32. */}
          {cur.destinations && (
            <Bars rows={cur.destinations} keyName="destination" hideBots={hideBots} id="destinations" caption="Destinations (rules and targets)" />
          )}
        </>
      )}
    </section>
  );
}
