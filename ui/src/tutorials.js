// tutorials.js — the tutorial player: lists /tutorials/index.json, shows each
// step's narration and request, runs it with runStep (tutorial-runner.js)
// through apiFetch, and shows the response and every expectation passed or
// failed. A kubectl step ("type this") runs in the terminal, docked beside
// the player: the learner types it (or the player enters it), and its
// output and HTTP exchanges are judged as the step expects. Progress (current step, saved variables, results) is kept per
// tutorial in localStorage ("kubeplay.tutorial.<id>"); a tutorial played
// through is recorded for the start page (progress.js).

import { h, mount, copyText } from './dom.js';
import { apiFetch, currentTarget } from './api.js';
import { kubectlLine, requestLine, runStep, substitute } from './tutorial-runner.js';
import { kubectlArgs, parseLine } from './terminalmodel.js';
import { Glossary, loadGlossary } from './glossary.js';
import { highlightJson } from './highlight.js';
import { statusLine } from './response.js';
import { markTutorialFinished, saveTutorialStep } from './progress.js';

const STORE = 'kubeplay.tutorial.';

function loadProgress(id) {
  try {
    const v = JSON.parse(localStorage.getItem(STORE + id) || 'null');
    if (v && typeof v === 'object') return { index: v.index | 0, vars: v.vars || {}, results: v.results || {} };
  } catch {
    // start afresh
  }
  return { index: 0, vars: {}, results: {} };
}

// sessionValue reads (or, given value, writes) a session value; a frame
// that may keep no storage (third-party storage blocked) has none.
function sessionValue(key, value) {
  try {
    if (value === undefined) return sessionStorage.getItem(key);
    sessionStorage.setItem(key, value);
  } catch {
    // no session storage here
  }
  return null;
}

function saveProgress(id, p) {
  try {
    localStorage.setItem(STORE + id, JSON.stringify(p));
  } catch {
    // progress is a convenience
  }
}

/**
 * Narration: paragraphs split by blank lines, `code` in backticks. With a
 * glossary, the first occurrence of each of terms (the glossary entries to
 * explain here) is marked, its definition on hover and focus.
 */
export function renderNarration(text, glossary = null, terms = []) {
  const left = new Map(terms.map((e) => [e.term, e]));
  const mark = (entry, ...children) => {
    left.delete(entry.term);
    return h('abbr', { class: 'gloss', title: entry.text, tabindex: 0, dataset: { term: entry.term } }, ...children);
  };
  return String(text || '')
    .split(/\n\s*\n/)
    .map((para) => {
      const p = h('p');
      const parts = para.split(/(`[^`]*`)/);
      for (const part of parts) {
        if (part.startsWith('`') && part.endsWith('`') && part.length >= 2) {
          const code = part.slice(1, -1);
          const entry = glossary && glossary.byForm.get(code);
          p.appendChild(entry && left.has(entry.term) ? mark(entry, h('code', {}, code)) : h('code', {}, code));
        } else if (part) {
          const segments = glossary && left.size ? glossary.segments(part, [...left.values()]) : [{ text: part }];
          for (const seg of segments) p.appendChild(seg.entry ? mark(seg.entry, seg.text) : document.createTextNode(seg.text));
        }
      }
      return p;
    });
}

/**
 * The expectations of a step as a list of {label, prefixes}; a failure message
 * from runStep starting with one of the prefixes belongs to that expectation.
 */
export function expectationItems(step, vars) {
  const e = step.expect || {};
  const items = [];
  if (e.exit !== undefined) items.push({ label: `kubectl exits with ${e.exit}`, prefixes: ['exit:'] });
  (e.requests || []).forEach((r, i) => items.push({ label: `${i ? 'then sends' : 'sends'} ${substitute(r, vars)}`, prefixes: [`requests: no ${substitute(r, vars)}`] }));
  if (e.status !== undefined) items.push({ label: `status is ${e.status}`, prefixes: ['status:'] });
  if (e.warnings !== undefined) {
    const w = substitute(e.warnings, vars);
    items.push({ label: w.length ? `warnings: ${w.map((t) => JSON.stringify(t)).join(', ')}` : 'no warnings', prefixes: ['warnings:'] });
  }
  for (const [p, v] of Object.entries(e.json || {})) items.push({ label: `${p} = ${JSON.stringify(substitute(v, vars))}`, prefixes: [`${p}:`] });
  for (const p of e.jsonPresent || []) items.push({ label: `${p} is present`, prefixes: [`${p}:`] });
  for (const p of e.jsonAbsent || []) items.push({ label: `${p} is absent`, prefixes: [`${p}:`] });
  for (const [p, n] of Object.entries(e.atLeast || {})) items.push({ label: `${p} ≥ ${n}`, prefixes: [`${p}:`] });
  for (const s of e.contains || []) {
    const t = substitute(s, vars);
    const what = step.kubectl !== undefined ? 'output' : 'body';
    items.push({ label: `${what} contains ${JSON.stringify(t)}`, prefixes: [`${what} does not contain ${JSON.stringify(t)}`] });
  }
  (e.events || []).forEach((ev, i) => {
    const bits = [ev.type, ev.name !== undefined ? `named ${substitute(ev.name, vars)}` : '', ...Object.entries(ev.json || {}).map(([k, v]) => `${k} = ${JSON.stringify(substitute(v, vars))}`)].filter(Boolean);
    items.push({ label: `event ${i}: ${bits.join(', ')}`, prefixes: [`events.${i}:`, `events.${i}.`] });
  });
  if (e.eventCount !== undefined) items.push({ label: `${e.eventCount} events`, prefixes: ['eventCount:'] });
  for (const [name, p] of Object.entries(step.save || {})) items.push({ label: `save ${name} from ${p}`, prefixes: [`save ${name}:`] });
  return items;
}

// sameCommand says whether two command lines run the same kubectl commands
// ("k" for "kubectl", spaces and quoting aside).
/** What a watch step reads, in words: N events, or until one matches. */
function watchLine(watch) {
  const n = `${watch.events} watch event${watch.events === 1 ? '' : 's'}`;
  if (!watch.until) return `Reads ${n}, then closes the stream.`;
  const cond = Object.entries(watch.until).map(([k, v]) => `${k} = ${JSON.stringify(v)}`).join(' and ');
  return `Reads watch events until one has ${cond} (at most ${n}), then closes the stream.`;
}

function sameCommand(a, b) {
  const norm = (line) => {
    const p = parseLine(line);
    return JSON.stringify([p.words, ...p.pipe].map((w) => kubectlArgs(w).args).concat([p.stdin]));
  };
  return norm(a) === norm(b);
}

/** The builder spec for a step's request with variables filled in. */
export function stepToSpec(step, vars, ns) {
  const r = substitute(step.request || {}, vars);
  const headers = Object.entries(r.headers || {});
  if (!headers.some(([k]) => k.toLowerCase() === 'accept')) headers.unshift(['Accept', 'application/json']);
  let body = '';
  let bodyMode = 'json';
  if (r.body !== undefined && r.body !== null) {
    if (typeof r.body === 'string') {
      body = r.body;
      const ct = (headers.find(([k]) => k.toLowerCase() === 'content-type') || [])[1] || '';
      if (/yaml/i.test(ct)) bodyMode = 'yaml';
    } else {
      body = JSON.stringify(r.body, null, 2) + '\n';
    }
    if (!headers.some(([k]) => k.toLowerCase() === 'content-type')) headers.push(['Content-Type', 'application/json']);
  }
  return { method: (r.method || 'GET').toUpperCase(), path: r.path || '/', namespace: vars.ns || ns, params: [], headers, body, bodyMode };
}

/**
 * createTutorialPlayer makes the Tutorials view. terminal, if given, runs
 * kubectl steps: {run(line) → Promise<{exit, output, exchanges}>, type(line),
 * onCommand(fn)}, the terminal panel shown beside the player.
 */
export function createTutorialPlayer({ onOpenInBuilder, terminal = null }) {
  const list = h('ul', { class: 'tutorial-list', testid: 'tutorial-list' }, h('li', { class: 'muted' }, 'Loading tutorials…'));
  const player = h('div', { class: 'tutorial-player', testid: 'tutorial-player' }, h('p', { class: 'muted' }, 'Choose a tutorial.'));
  const el = h('section', { class: 'tutorials' }, h('aside', { class: 'panel' }, h('strong', {}, 'Tutorials'), list), h('div', { class: 'panel tutorial-main' }, player));

  let index = [];
  let current = null; // {meta, tut, progress}
  let running = false;
  // The API vocabulary, each term explained at its first use in a tutorial.
  let glossary = new Glossary([]);
  loadGlossary().then((entries) => {
    glossary = new Glossary(entries);
    if (current) renderPlayer();
  });

  async function load() {
    try {
      const res = await fetch('/tutorials/index.json', { cache: 'no-cache' });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      index = await res.json();
      if (!Array.isArray(index)) throw new Error('index.json is not a list');
    } catch (e) {
      mount(list, h('li', { class: 'muted', testid: 'tutorial-load-error' }, `No tutorials: could not load /tutorials/index.json (${e.message}).`));
      return;
    }
    renderList();
    const want = sessionValue('kubeplay.tutorial.open');
    if (want && index.some((t) => t.id === want)) open(want);
  }

  function renderList() {
    mount(
      list,
      index.map((t) => {
        const p = loadProgress(t.id);
        const done = Object.values(p.results).filter(Boolean).length;
        return h(
          'li',
          {},
          h(
            'button',
            { type: 'button', class: `tutorial-item${current && current.meta.id === t.id ? ' active' : ''}`, testid: 'tutorial-item', dataset: { id: t.id }, on: { click: () => open(t.id) } },
            h('span', {}, t.title),
            done ? h('span', { class: 'muted' }, ` · ${done} passed`) : null,
          ),
        );
      }),
    );
  }

  async function open(id) {
    const meta = index.find((t) => t.id === id);
    if (!meta) return;
    mount(player, h('p', { class: 'muted' }, `Loading ${meta.title}…`));
    try {
      const res = await fetch(`/tutorials/${meta.file}`, { cache: 'no-cache' });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const tut = await res.json();
      if (!Array.isArray(tut.steps) || !tut.steps.length) throw new Error('the tutorial has no steps');
      const progress = loadProgress(id);
      progress.index = Math.min(Math.max(0, progress.index), tut.steps.length - 1);
      current = { meta, tut, progress, lastResult: null };
      sessionValue('kubeplay.tutorial.open', id);
      noteStep();
      renderList();
      renderPlayer();
    } catch (e) {
      mount(player, h('div', { class: 'status-error' }, `Could not load ${meta.file}: ${e.message}`));
    }
  }

  function go(i) {
    if (!current) return;
    current.progress.index = Math.min(Math.max(0, i), current.tut.steps.length - 1);
    current.lastResult = null;
    saveProgress(current.meta.id, current.progress);
    noteStep();
    renderPlayer();
  }

  // noteStep records the step the learner is on (the start page, and a
  // workshop's instructor).
  function noteStep() {
    saveTutorialStep(current.meta.id, current.progress.index + 1, current.tut.steps.length);
  }

  function restart() {
    if (!current) return;
    current.progress = { index: 0, vars: {}, results: {} };
    current.lastResult = null;
    saveProgress(current.meta.id, current.progress);
    noteStep();
    renderList();
    renderPlayer();
  }

  async function run() {
    if (!current || running) return;
    const { tut, progress } = current;
    const i = progress.index;
    const step = tut.steps[i];
    running = true;
    renderPlayer();
    const target = currentTarget();
    const t0 = performance.now();
    let result;
    try {
      result = await runStep(step, progress.vars, (path, init) => apiFetch(path, init, target), { kubectl: terminal ? terminal.run : undefined });
    } catch (e) {
      result = { ok: false, status: 0, headers: {}, bodyText: '', json: null, events: null, failures: [`runner error: ${e.message}`], vars: progress.vars };
    }
    result.ms = performance.now() - t0;
    running = false;
    if (current.tut !== tut) return;
    record(i, result);
  }

  // record keeps step i's result and shows it.
  function record(i, result) {
    const { tut, progress } = current;
    progress.vars = result.vars || progress.vars;
    progress.results[i] = !!result.ok;
    // Finished once every step has passed (the start page's progress).
    if (tut.steps.every((_, k) => progress.results[k] === true)) markTutorialFinished(current.meta.id);
    saveProgress(current.meta.id, progress);
    current.lastResult = { index: i, result };
    renderList();
    renderPlayer();
  }

  // A kubectl step the learner typed in the terminal themselves is judged
  // as if the player had run it.
  if (terminal) {
    terminal.onCommand(async (typed) => {
      if (!current || running) return;
      const i = current.progress.index;
      const step = current.tut.steps[i];
      if (step.kubectl === undefined || !sameCommand(typed.line, kubectlLine(step, current.progress.vars))) return;
      const tut = current.tut;
      const result = await runStep(step, current.progress.vars, null, { kubectl: async () => typed });
      if (current.tut === tut && current.progress.index === i) record(i, result);
    });
  }

  function renderPlayer() {
    if (!current) return;
    const { tut, progress } = current;
    const n = tut.steps.length;
    const i = progress.index;
    const step = tut.steps[i];
    const passed = Object.entries(progress.results).filter(([, ok]) => ok).length;
    const req = substitute(step.request || {}, progress.vars);
    const res = current.lastResult && current.lastResult.index === i ? current.lastResult.result : null;

    const pills = h(
      'ol',
      { class: 'step-pills', testid: 'tutorial-steps' },
      tut.steps.map((s, k) => {
        const r = progress.results[k];
        const cls = ['pill', k === i ? 'current' : '', r === true ? 'pass' : r === false ? 'fail' : ''].filter(Boolean).join(' ');
        return h('li', {}, h('button', { type: 'button', class: cls, title: s.title, on: { click: () => go(k) } }, String(k + 1)));
      }),
    );

    const bodyText = req.body === undefined || req.body === null ? '' : typeof req.body === 'string' ? req.body : JSON.stringify(req.body, null, 2);
    const bodyPre = bodyText ? h('pre', { class: 'code-view small' }) : null;
    if (bodyPre) {
      if (typeof req.body === 'string') bodyPre.textContent = bodyText;
      else bodyPre.innerHTML = highlightJson(bodyText);
    }

    const terms = glossary.firstUses(tut.steps.map((s) => s.narration))[i];
    const isKubectl = step.kubectl !== undefined;
    const line = isKubectl ? kubectlLine(step, progress.vars) : '';
    const runBtn = h('button', { type: 'button', class: 'primary', testid: 'tutorial-run-step', dataset: { write: '' }, disabled: running || (isKubectl && !terminal), title: isKubectl ? 'Enter the command in the terminal beside' : undefined, on: { click: run } }, running ? 'Running…' : res ? 'Run again' : 'Run step');
    const nextBtn = h('button', { type: 'button', testid: 'tutorial-next', disabled: i >= n - 1, class: res && res.ok ? 'primary' : '', on: { click: () => go(i + 1) } }, 'Next →');
    const prevBtn = h('button', { type: 'button', testid: 'tutorial-prev', disabled: i === 0, on: { click: () => go(i - 1) } }, '← Previous');
    const restartBtn = h('button', { type: 'button', testid: 'tutorial-restart', on: { click: () => { if (confirm('Start this tutorial over (forgets saved variables and results)?')) restart(); } } }, 'Start over');
    const builderBtn = isKubectl ? null : h('button', { type: 'button', testid: 'tutorial-open-builder', title: 'Load this request into the request builder to experiment', on: { click: () => onOpenInBuilder(stepToSpec(step, progress.vars, 'default')) } }, 'Open in builder');

    const varsEntries = Object.entries(progress.vars);
    mount(
      player,
      h('header', { class: 'tut-head' }, h('h2', {}, tut.title), tut.summary ? h('p', { class: 'muted' }, tut.summary) : null),
      h(
        'div',
        { class: 'tut-progress' },
        h('span', { testid: 'tutorial-progress' }, `Step ${i + 1} of ${n}`),
        h('progress', { max: n, value: passed }),
        h('span', { class: 'muted' }, `${passed} passed`),
        pills,
      ),
      h('h3', { testid: 'tutorial-step-title' }, step.title),
      h('div', { class: 'narration', testid: 'tutorial-narration' }, renderNarration(step.narration, glossary, terms)),
      terms.length
        ? h('details', { class: 'tut-glossary', testid: 'tutorial-glossary', open: true }, h('summary', {}, `New here: ${terms.map((e) => e.term).join(', ')}`),
            h('dl', {}, terms.map((e) => [h('dt', {}, e.term), h('dd', {}, e.text)])))
        : null,
      isKubectl
        ? h(
            'div',
            { class: 'tut-request tut-kubectl', testid: 'tutorial-kubectl' },
            h('div', { class: 'muted' }, 'Type this in the terminal:'),
            h('pre', { class: 'mono', testid: 'tutorial-kubectl-line' }, `$ ${line}`),
            h('div', { class: 'row' },
              h('button', { type: 'button', testid: 'tutorial-type', disabled: running || !terminal, title: 'Put the command at the terminal\'s prompt; press Enter there to run it', on: { click: () => terminal.type(line) } }, 'Type it in the terminal'),
              h('button', { type: 'button', testid: 'tutorial-copy', on: { click: () => copyText(line) } }, 'Copy')),
          )
        : h(
        'div',
        { class: 'tut-request', testid: 'tutorial-request' },
        h('div', { class: 'req-line' }, h('span', { class: `method m-${(req.method || 'GET').toLowerCase()}` }, (req.method || 'GET').toUpperCase()), h('code', {}, req.path)),
        Object.entries(req.headers || {}).map(([k, v]) => h('div', { class: 'req-header mono' }, `${k}: ${v}`)),
        step.watch ? h('div', { class: 'muted' }, watchLine(step.watch)) : null,
        bodyPre,
      ),
      h('div', { class: 'row actions' }, prevBtn, runBtn, nextBtn, h('span', { class: 'grow' }), builderBtn, restartBtn),
      res ? renderResult(step, res, current.progress.vars) : null,
      i === n - 1 && passed === n ? h('div', { class: 'tut-done', testid: 'tutorial-complete' }, 'Tutorial complete: every step passed.') : null,
      varsEntries.length
        ? h('details', { class: 'tut-vars' }, h('summary', {}, `Saved variables (${varsEntries.length})`), h('table', { class: 'headers-table' }, varsEntries.map(([k, v]) => h('tr', {}, h('th', {}, k), h('td', { class: 'mono' }, typeof v === 'string' ? v : JSON.stringify(v))))))
        : null,
    );
  }

  function renderResult(step, res, vars) {
    const items = expectationItems(step, vars);
    const used = new Set();
    const rows = items.map((it) => {
      const mine = res.failures.filter((f) => it.prefixes.some((p) => f.startsWith(p)));
      mine.forEach((f) => used.add(f));
      // An expectation cannot pass if the request itself never ran.
      const ok = mine.length === 0 && !!res.ran;
      return h('li', { class: ok ? 'pass' : 'fail', dataset: { ok: String(ok) } }, h('span', { class: 'mark' }, ok ? '✔' : '✘'), ' ', it.label, mine.length ? h('div', { class: 'fail-detail' }, mine.join('; ')) : null);
    });
    const other = res.failures.filter((f) => !used.has(f));
    const body = res.events ? null : res.json !== null && res.json !== undefined ? JSON.stringify(res.json, null, 2) : res.bodyText;
    const bodyPre = body ? h('pre', { class: 'code-view small' }) : null;
    if (bodyPre) {
      if (res.json !== null && res.json !== undefined) bodyPre.innerHTML = highlightJson(body);
      else bodyPre.textContent = body;
    }
    return h(
      'div',
      { class: `step-result ${res.ok ? 'ok' : 'bad'}`, testid: 'tutorial-step-result', dataset: { ok: String(!!res.ok) } },
      h(
        'div',
        { class: 'row' },
        h('strong', {}, res.ok ? 'Passed' : 'Failed'),
        step.kubectl !== undefined
          ? h('span', { class: 'status' }, res.ran ? `exit ${res.exit}` : 'did not run')
          : h('span', { class: 'status' }, res.status ? statusLine(res.status) : 'no response'),
        res.ms !== undefined ? h('span', { class: 'muted' }, `${Math.round(res.ms)} ms`) : null,
      ),
      rows.length ? h('ul', { class: 'expectations', testid: 'tutorial-expectations' }, rows) : h('p', { class: 'muted' }, 'This step has no expectations.'),
      res.warnings && res.warnings.length ? h('ul', { class: 'warnings', testid: 'tutorial-warnings' }, res.warnings.map((w) => h('li', {}, `Warning: ${w}`))) : null,
      other.length ? h('ul', { class: 'expectations' }, other.map((f) => h('li', { class: 'fail', dataset: { ok: 'false' } }, h('span', { class: 'mark' }, '✘'), ' ', f))) : null,
      res.events
        ? h(
            'table',
            { class: 'events small' },
            h('thead', {}, h('tr', {}, h('th', {}, '#'), h('th', {}, 'type'), h('th', {}, 'name'), h('th', {}, 'resourceVersion'))),
            h('tbody', {}, res.events.map((e, k) => h('tr', { class: `ev ev-${String(e.type || '').toLowerCase()}${e.object && e.object.code === 410 ? ' ev-gone' : ''}` }, h('td', {}, String(k)), h('td', {}, e.type), h('td', {}, (e.object && e.object.metadata && e.object.metadata.name) || (e.object && e.object.reason) || ''), h('td', { class: 'mono' }, (e.object && e.object.metadata && e.object.metadata.resourceVersion) || '')))),
          )
        : null,
      step.kubectl !== undefined && res.ran
        ? [
            h('pre', { class: 'code-view small', testid: 'tutorial-kubectl-output' }, res.bodyText || '(no output)'),
            h('details', { class: 'tut-body', open: true }, h('summary', {}, `HTTP exchanges (${res.exchanges.length})`),
              h('ul', { class: 'tut-exchanges mono', testid: 'tutorial-exchanges' }, res.exchanges.map((ex) => h('li', { class: ex.status >= 400 ? 'fail' : '' }, `${requestLine(ex)} → ${ex.status}`)))),
          ]
        : bodyPre ? h('details', { class: 'tut-body', open: !res.ok }, h('summary', {}, 'Response body'), bodyPre) : null,
    );
  }

  /** Reloads the current tutorial's view (after a reset or target change). */
  function refresh() {
    if (current) {
      current.lastResult = null;
      renderPlayer();
    }
  }

  load();
  return { el, refresh, open };
}
