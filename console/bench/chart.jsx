// The chart benchmark page (built only with CONSOLE_BENCH=1, never
// deployed): the analytics page's own Chart component with a 90-day
// hourly series, 2,160 buckets of synthetic counts, since the stats API
// answers hourly series of at most 31 days. window.benchChart() renders it
// afresh and resolves with the milliseconds from the render call to the
// first frame after the chart is drawn.
import { render } from 'preact';
import '../src/style.css';
import { Chart } from '../src/analytics.jsx';

const HOUR = 3600e3;

function series(n, start, seed) {
  let x = seed;
  const rnd = () => ((x = (x * 1103515245 + 12345) % 2147483648) / 2147483648);
  const out = [];
  for (let i = 0; i < n; i++) {
    const human = Math.floor(rnd() * 40);
    const bot = Math.floor(rnd() * 10);
    out.push({ start: new Date(start + i * HOUR).toISOString(), total: human + bot, human, bot });
  }
  return out;
}

const n = 2160;
const start = Date.UTC(2026, 8, 1);
const cur = series(n, start, 7);
const prev = series(n, start - n * HOUR, 11);
const root = document.getElementById('app');

window.benchChart = () =>
  new Promise((resolve) => {
    render(null, root);
    const t0 = performance.now();
    render(<Chart series={cur.slice()} prev={prev} hideBots={false} granularity="hour" />, root);
    requestAnimationFrame(() => setTimeout(() => resolve({ ms: performance.now() - t0, canvases: root.querySelectorAll('canvas').length, points: n })));
  });
