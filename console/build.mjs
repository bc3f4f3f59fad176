// Bundles the console with esbuild into build/console: index.html and
// assets/ with content-hashed names (so the HTML can be never cached and
// the assets cached for a year as immutable). No CDN at run time: every
// byte the page loads is in that folder. Prints the gzipped size of all
// JavaScript and CSS and fails above the budget of 150 KB.
//
//   node console/build.mjs [outdir]
import * as esbuild from 'esbuild';
import { gzipSync } from 'node:zlib';
import { mkdirSync, readFileSync, rmSync, writeFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = resolve(process.argv[2] || join(here, '..', 'build', 'console'));
const budget = 150 * 1024;

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'assets'), { recursive: true });

// CONSOLE_BENCH=1 adds the chart benchmark page (bench.html), for the
// render figures in docs/benchmarks.md; the deployed build never has it.
const bench = process.env.CONSOLE_BENCH === '1';
const entryPoints = { app: join(here, 'src', 'main.jsx') };
if (bench) entryPoints.bench = join(here, 'bench', 'chart.jsx');

const result = await esbuild.build({
  entryPoints,
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2020'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  entryNames: '[name]-[hash]',
  assetNames: '[name]-[hash]',
  outdir: join(out, 'assets'),
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
});

const files = Object.keys(result.metafile.outputs).map((f) => resolve(f));
const rel = (f) => 'assets/' + f.split('/assets/')[1];

// writePage fills index.html's template with the entry's hashed files.
// Absolute asset paths: the page works at /console and /console/.
function writePage(entry, name) {
  const js = files.find((f) => f.includes(`/${entry}-`) && f.endsWith('.js'));
  const css = files.find((f) => f.includes(`/${entry}-`) && f.endsWith('.css'));
  if (!js || !css) throw new Error(`esbuild wrote no JavaScript or no CSS for ${entry}`);
  const html = readFileSync(join(here, 'index.html'), 'utf8')
    .replace('{{CSS}}', '/console/' + rel(css))
    .replace('{{JS}}', '/console/' + rel(js));
  if (/<script(?![^>]*\bsrc=)/i.test(html)) throw new Error('index.html has an inline script');
  writeFileSync(join(out, name), html);
}
writePage('app', 'index.html');
if (bench) writePage('bench', 'bench.html');

// The budget counts what the console loads: the app's files.
let raw = 0;
let gz = 0;
const parts = [];
const kb = (n) => (n / 1024).toFixed(1) + ' KB';
for (const f of readdirSync(join(out, 'assets')).sort()) {
  if (!/^app-.*\.(js|css)$/.test(f)) continue;
  const b = readFileSync(join(out, 'assets', f));
  const z = gzipSync(b, { level: 9 }).length;
  raw += b.length;
  gz += z;
  parts.push(`${f} ${kb(b.length)} (${kb(z)} gzipped)`);
}
console.error(`console: ${out}: ${parts.join(', ')}; JS+CSS ${kb(raw)}, ${kb(gz)} gzipped (budget ${kb(budget)})`);
if (gz > budget) {
  console.error('console: over the size budget');
  process.exit(1);
}
