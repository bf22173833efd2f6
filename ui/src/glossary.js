// glossary.js — the API vocabulary explained where it first appears
// (LEARN-3): tutorials/glossary.json's terms, each with the forms it takes
// in a text ("Pod", "Pods") and a definition. A tutorial step explains the
// terms that appear in its narration for the first time in that tutorial;
// later steps use them plainly. Pure: the player (tutorials.js) renders
// what it finds. Tested in test/glossary.test.mjs.

/** Loads /tutorials/glossary.json once (an empty glossary if it cannot). */
let loaded = null;
export function loadGlossary(fetchFn = fetch) {
  if (!loaded) {
    loaded = fetchFn('/tutorials/glossary.json', { cache: 'no-cache' })
      .then((r) => (r.ok ? r.json() : []))
      .catch(() => []);
  }
  return loaded;
}

function escapeRE(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Glossary finds its terms in text: {entries, find(text) → [{index, text,
 * entry}]} each a whole-word occurrence of a form, in order.
 */
export class Glossary {
  constructor(entries = []) {
    this.entries = entries.filter((e) => e && e.term && Array.isArray(e.forms) && e.forms.length && e.text);
    this.byForm = new Map();
    for (const e of this.entries) for (const f of e.forms) this.byForm.set(f, e);
    const forms = [...this.byForm.keys()].sort((a, b) => b.length - a.length).map(escapeRE);
    // A whole word: not part of a longer name, nor of a dotted path
    // (metadata.name is not the term metadata; "a Pod." is the term Pod).
    this.re = forms.length ? new RegExp(`(?<![A-Za-z0-9_.-])(${forms.join('|')})(?![A-Za-z0-9_-]|\\.[A-Za-z0-9_])`, 'g') : null;
  }

  /**
   * find lists the terms in text, prose and `code` spans that are exactly a
   * form (a longer span, `kubectl get pods`, is code, not the term).
   */
  find(text) {
    if (!this.re) return [];
    const prose = String(text || '').replace(/`([^`]*)`/g, (whole, code) => (this.byForm.has(code) ? ` ${code} ` : ' '.repeat(whole.length)));
    const out = [];
    for (const m of prose.matchAll(this.re)) out.push({ index: m.index, text: m[1], entry: this.byForm.get(m[1]) });
    return out;
  }

  /**
   * firstUses is, for each of texts (a tutorial's step narrations, in
   * order), the entries that appear in it for the first time.
   */
  firstUses(texts) {
    const seen = new Set();
    return texts.map((t) => {
      const here = [];
      for (const { entry } of this.find(t)) {
        if (seen.has(entry.term)) continue;
        seen.add(entry.term);
        here.push(entry);
      }
      return here;
    });
  }

  /**
   * segments splits text into [{text}, {text, entry}, …], marking the first
   * occurrence of each of entries (the terms to explain here).
   */
  segments(text, entries) {
    const want = new Set(entries.map((e) => e.term));
    const out = [];
    let at = 0;
    for (const m of this.find(text)) {
      if (!want.has(m.entry.term)) continue;
      want.delete(m.entry.term);
      if (m.index > at) out.push({ text: text.slice(at, m.index) });
      out.push({ text: m.text, entry: m.entry });
      at = m.index + m.text.length;
    }
    if (at < text.length || out.length === 0) out.push({ text: text.slice(at) });
    return out;
  }
}
