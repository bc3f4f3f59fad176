// The link editor's text form of redirect rules and targets: one a line,
// in the syntax of the CLI's --rule and --target (docs/cli.md), so a rule
// reads the same everywhere. The API validates the values; this only
// splits them, and names the line that cannot be split.

const RULE_KEYS = ['url', 'country', 'device', 'os', 'language'];

// parseRule reads 'country=DE,AT;device=mobile;url=https://...'. The url
// is taken whole, commas included; a ';' in it is kept when what follows
// does not start a known KEY=.
export function parseRule(line) {
  const rule = {};
  let last = '';
  for (const part of line.split(';')) {
    const eq = part.indexOf('=');
    const key = eq < 0 ? '' : part.slice(0, eq).trim().toLowerCase();
    if (!RULE_KEYS.includes(key)) {
      if (!part.trim()) continue;
      if (last === 'url') {
        rule.url += ';' + part;
        continue;
      }
      throw new Error(`"${part.trim()}" is not KEY=VALUES with KEY one of ${RULE_KEYS.join(', ')}`);
    }
    if (key in rule) throw new Error(`${key} is given twice`);
    last = key;
    const value = part.slice(eq + 1);
    rule[key] = key === 'url' ? value.trim() : value.split(',').map((v) => v.trim()).filter(Boolean);
  }
  if (!rule.url) throw new Error('give the rule a url=');
  return rule;
}

export function formatRule(r) {
  const parts = ['country', 'device', 'os', 'language'].filter((k) => r[k] && r[k].length).map((k) => `${k}=${r[k].join(',')}`);
  return [...parts, `url=${r.url}`].join(';');
}

// parseTarget reads 'URL=WEIGHT'; the weight follows the last '='.
export function parseTarget(line) {
  const eq = line.lastIndexOf('=');
  const weight = eq < 0 ? NaN : Number(line.slice(eq + 1).trim());
  const url = eq < 0 ? '' : line.slice(0, eq).trim();
  if (!url || !Number.isInteger(weight)) throw new Error('give URL=WEIGHT, such as https://a.example=70');
  return { url, weight };
}

export const formatTarget = (t) => `${t.url}=${t.weight}`;

// parseLines parses each non-blank line of text, naming the line at fault.
export function parseLines(text, parse, what) {
  const out = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    try {
      out.push(parse(line));
    } catch (ex) {
      throw new Error(`${what} line ${i + 1}: ${ex.message}`);
    }
  });
  return out;
}

export const rulesText = (rules) => (rules || []).map(formatRule).join('\n');
export const targetsText = (targets) => (targets || []).map(formatTarget).join('\n');
