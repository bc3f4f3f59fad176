// CSV in and out (RFC 4180: quoted fields, doubled quotes, CRLF or LF).

// parseCSV returns the rows of text as arrays of strings.
export function parseCSV(text) {
  const rows = [];
  let row = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      field = '';
      if (row.length > 1 || row[0] !== '') rows.push(row);
      row = [];
    } else field += c;
  }
  row.push(field);
  if (row.length > 1 || row[0] !== '') rows.push(row);
  return rows;
}

// importRequests turns a CSV of url,alias,ttl_seconds,redirect_status (the
// CLI's import format; a header row is optional, columns by name when
// present) into create requests, or an error per row.
export function importRequests(text) {
  const rows = parseCSV(text.replace(/^\uFEFF/, ''));
  if (!rows.length) return [];
  let cols = ['url', 'alias', 'ttl_seconds', 'redirect_status'];
  let line = 1;
  if (rows[0].some((c) => c.trim().toLowerCase() === 'url')) {
    cols = rows[0].map((c) => c.trim().toLowerCase());
    rows.shift();
    line = 2;
  }
  return rows.map((r, i) => {
    const req = {};
    cols.forEach((c, j) => {
      const v = (r[j] || '').trim();
      if (!v) return;
      if (c === 'ttl_seconds' || c === 'redirect_status') req[c] = Number(v);
      else if (c === 'url' || c === 'alias' || c === 'expires_at') req[c] = v;
    });
    return { line: line + i, req };
  });
}

function cell(v) {
  let s = v === undefined || v === null ? '' : String(v);
  // A cell a spreadsheet would run as a formula is kept as text.
  if (/^[=+\-@\t\r]/.test(s)) s = "'" + s;
  return /[",\r\n]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
}

// toCSV joins a header and rows.
export function toCSV(header, rows) {
  return [header, ...rows].map((r) => r.map(cell).join(',')).join('\r\n') + '\r\n';
}
