import { useEffect, useState } from 'preact/hooks';
import * as api from './api.js';

// The API's tag rules (docs/api.md, "Titles, notes and tags"): trimmed,
// lower-cased, 1-40 of a-z 0-9 - _ . :, at most 20 a link.
export const MAX_TAGS = 20;
const TAG = /^[a-z0-9_.:-]{1,40}$/;

export function normalizeTag(raw) {
  return raw.trim().toLowerCase();
}

// TagChips edits a list of tags as chips: Enter or a comma adds what is
// typed, each chip's button removes it.
export function TagChips({ id, tags, onChange }) {
  const [draft, setDraft] = useState('');
  const [err, setErr] = useState('');
  function add(raw) {
    const parts = raw.split(',').map(normalizeTag).filter(Boolean);
    let next = tags;
    for (const t of parts) {
      if (!TAG.test(t)) {
        setErr(`"${t}": a tag is 1-40 of a-z 0-9 - _ . :`);
        return;
      }
      if (!next.includes(t)) next = [...next, t];
    }
    if (next.length > MAX_TAGS) {
      setErr(`At most ${MAX_TAGS} tags.`);
      return;
    }
    setErr('');
    setDraft('');
    onChange(next);
  }
  // Enter adds the tag, never submits the form: its keypress is held back too.
  function onKeyDown(e) {
    if (e.key === 'Enter' || e.key === ',') {
      e.preventDefault();
      if (draft.trim()) add(draft);
    } else if (e.key === 'Backspace' && !draft && tags.length) {
      onChange(tags.slice(0, -1));
    }
  }
  return (
    <div class="chips" id={`${id}-chips`}>
      <ul class="chip-list" aria-label="Tags">
        {tags.map((t) => (
          <li class="chip" key={t} data-tag={t}>
            <span>{t}</span>
            <button type="button" class="chip-remove" onClick={() => onChange(tags.filter((x) => x !== t))} aria-label={`Remove tag ${t}`}>×</button>
          </li>
        ))}
      </ul>
      <label for={`${id}-tag-input`}>Tags (Enter or comma adds one)</label>
      <input id={`${id}-tag-input`} value={draft} onInput={(e) => setDraft(e.currentTarget.value)} onKeyDown={onKeyDown}
        onKeyPress={(e) => e.key === 'Enter' && e.preventDefault()}
        onBlur={() => draft.trim() && add(draft)} aria-describedby={`${id}-tag-note`} />
      <small id={`${id}-tag-note`}>Up to {MAX_TAGS}; letters are lower-cased; a-z 0-9 - _ . :</small>
      {err && <p role="alert" class="error" id={`${id}-tag-error`}>{err}</p>}
    </div>
  );
}

// TagFilter picks one of the owner's tags (GET /v1/tags) to list by;
// '' is every link.
export function TagFilter({ value, onChange, onAuthError, refresh }) {
  const [tags, setTags] = useState([]);
  useEffect(() => {
    api.listTags().then((r) => setTags(r.tags), (ex) => onAuthError(ex));
  }, [refresh]);
  return (
    <>
      <label for="tag-filter">Tag</label>
      <select id="tag-filter" value={value} onChange={(e) => onChange(e.currentTarget.value)}>
        <option value="">Every tag</option>
        {tags.map((t) => <option key={t.tag} value={t.tag}>{t.tag} ({t.links})</option>)}
      </select>
    </>
  );
}

// TagList shows a link's tags as chips, read-only.
export function TagList({ tags }) {
  if (!tags || !tags.length) return null;
  return <ul class="chip-list tags" aria-label="Tags">{tags.map((t) => <li class="chip" key={t} data-tag={t}>{t}</li>)}</ul>;
}
