// terminal.js — the Terminal panel (LEARN-1): kubectl in the page. xterm.js
// (ui/xterm.js, a bundle of its own) and the kubectl module
// (kubeplay-kubectl.wasm, a Go instance in the page: core/kubectl) are
// fetched when the panel is first opened. Each request kubectl sends goes
// through the page's client path (api.js apiFetch: the in-browser sandbox,
// the native server or a remote one, whichever is the target), its answer
// streamed back (a watch, logs -f) until the command ends or Ctrl-C cancels
// it. Beside the terminal, each command's HTTP exchanges: method, path,
// status and time, opened to show headers and bodies. Like the Requests
// panel it can stay "beside other tabs" (the Cluster view, Watch, Requests).
// Its logic without the DOM is terminalmodel.js.

import { h, mount, copyText } from './dom.js';
import { concatBytes } from './bytes.js';
import { apiFetch, currentTarget, onTargetChange } from './api.js';
import { runGo } from '../../wasm/bridge/bridge.mjs';
import { CONTINUATION, ExchangeLog, History, LineEditor, PROMPT, completeWord, historyKey, kubectlArgs, parseLine, terminalText } from './terminalmodel.js';

const MODULE = '/kubeplay-kubectl.wasm';
// The requests whose answers stream (kubectl get -w, rollout status, wait, logs -f).
const STREAMED = /[?&](watch|follow)=(true|1)(&|$)/;
// The output of a command kept (the copy button, a tutorial step judged on it).
const OUTPUT_KEEP = 1 << 20;

export function createTerminalPanel({ onDock } = {}) {
  const log = new ExchangeLog();
  let term = null;
  let fit = null;
  let kubectl = null;
  let loading = null;
  let history = loadHistory();
  const editor = new LineEditor(PROMPT);
  let pending = ''; // the lines of a command not yet complete
  let running = null; // {cancel, cmd}
  let queued = ''; // input typed or pasted while a command runs or a completion is asked
  let completing = false;
  let lineStart = true; // the output so far ends a line
  let idle = []; // runLine's waiters for the running command's end

  const state = h('span', { class: 'muted', testid: 'terminal-state', dataset: { state: 'closed' } }, '');
  const copyBtn = h('button', { type: 'button', testid: 'terminal-copy', title: 'Copy the selection, or else the last command\'s output', on: { click: copyOutput } }, 'Copy');
  const clearBtn = h('button', { type: 'button', testid: 'terminal-clear', on: { click: () => { term?.clear(); log.clear(); renderExchanges(); } } }, 'Clear');
  const dock = h('input', { type: 'checkbox', testid: 'terminal-dock', on: { change: () => onDock && onDock(dock.checked) } });
  const screen = h('div', { class: 'terminal-screen', testid: 'terminal-screen' });
  const exchanges = h('div', { class: 'terminal-exchanges', testid: 'terminal-exchanges' });
  const editBox = h('div', { class: 'terminal-edit', hidden: true });

  const el = h(
    'section',
    { class: 'terminal-panel', testid: 'terminal-panel' },
    h(
      'div',
      { class: 'panel terminal-bar' },
      h('strong', {}, 'kubectl'),
      h('span', { class: 'muted' }, 'Tab completes, Up/Down recall, Ctrl-C stops a command; heredocs (<<EOF) are stdin'),
      h('div', { class: 'grow' }),
      copyBtn, clearBtn,
      h('label', { class: 'check', title: 'Keep the terminal open beside the Cluster, Watch and Requests views' }, dock, ' beside other tabs'),
      state,
    ),
    h('div', { class: 'terminal-body' }, h('div', { class: 'terminal-main' }, screen, editBox), h('aside', { class: 'panel terminal-side' }, h('h3', {}, 'HTTP exchanges'), exchanges)),
  );

  function setState(s, text = '') {
    state.dataset.state = s;
    state.textContent = text;
  }

  // open shows the terminal, loading xterm and the module the first time;
  // focus: the keys go to it (not when it is docked beside another tab).
  function open({ focus = true } = {}) {
    if (!loading) {
      setState('loading', 'loading kubectl…');
      loading = Promise.all([loadXterm(), loadKubectl()]).then(([x, k]) => {
        kubectl = k;
        start(x);
        setState('ready');
      }, (err) => {
        loading = null;
        setState('failed', `kubectl could not be loaded: ${err.message || err}`);
      });
    }
    loading.then(() => {
      requestAnimationFrame(() => {
        fit?.fit();
        if (focus) term?.focus();
      });
    });
    return loading;
  }

  function start({ Terminal, FitAddon }) {
    term = new Terminal({ convertEol: false, cursorBlink: true, fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace', fontSize: 13, scrollback: 5000, theme: { background: '#1d2430' } });
    fit = new FitAddon();
    term.loadAddon(fit);
    term.open(screen);
    skipIdleSelectionRedraws(term);
    new ResizeObserver(() => { if (!el.closest('[hidden]')) fit.fit(); }).observe(screen);
    term.onData(onData);
    // The line editor wraps a long line at the terminal's width.
    editor.cols = term.cols;
    term.onResize(({ cols }) => { editor.cols = cols; });
    term.write('kubectl in the page: its requests go to the current target.\r\n');
    term.write(editor.redraw());
  }

  // ---- input -----------------------------------------------------------------
  function onData(data) {
    if (completing) {
      queued += data;
      return;
    }
    if (running) {
      if (data.includes('\x03')) {
        term.write('^C\r\n');
        lineStart = true;
        running.cancel();
        queued = '';
      } else {
        queued += data;
      }
      return;
    }
    feed(data);
  }

  // feed handles input while no command runs; it stops at a command's start
  // and keeps the rest for after it.
  function feed(data) {
    for (let i = 0; i < data.length; i++) {
      if (running || completing) {
        queued += data.slice(i);
        return;
      }
      const c = data[i];
      if (c === '\x1b') {
        const m = /^\x1b(\[[0-9;]*[A-Za-z~]|O[A-Za-z])/.exec(data.slice(i));
        if (m) {
          escape(m[1]);
          i += m[0].length - 1;
        }
        continue;
      }
      switch (c) {
        case '\r': enter(); break;
        case '\n': break; // after \r in a paste
        case '\x7f': case '\b': term.write(editor.backspace()); break;
        case '\t': tab(); break;
        case '\x03': // Ctrl-C: drop the line
          term.write(editor.end() + '^C\r\n' + editor.newLine());
          pending = '';
          editor.prompt = PROMPT;
          term.write(editor.set(''));
          break;
        case '\x01': term.write(editor.home()); break;
        case '\x05': term.write(editor.end()); break;
        case '\x15': term.write(editor.killBefore()); break;
        case '\x0b': term.write(editor.killAfter()); break;
        case '\x17': term.write(editor.killWord()); break;
        case '\x0c': term.clear(); term.write('\x1b[H' + editor.newLine() + editor.redraw()); break;
        default: {
          // A run of printable text at once (a paste), up to the next control.
          let j = i;
          while (j < data.length && data[j] >= ' ' && data[j] !== '\x7f') j++;
          if (j > i) {
            term.write(editor.insert(data.slice(i, j)));
            i = j - 1;
          }
        }
      }
    }
  }

  function escape(seq) {
    switch (seq) {
      case '[A': term.write(editor.set(history.prev(editor.text))); break;
      case '[B': term.write(editor.set(history.next())); break;
      case '[C': term.write(editor.move(1)); break;
      case '[D': term.write(editor.move(-1)); break;
      case '[H': case 'OH': case '[1~': term.write(editor.home()); break;
      case '[F': case 'OF': case '[4~': term.write(editor.end()); break;
      case '[3~': term.write(editor.del()); break;
    }
  }

  function enter() {
    term.write(editor.end() + '\r\n' + editor.newLine());
    const text = pending + editor.text;
    const parsed = parseLine(text);
    if (parsed.incomplete) {
      pending = text + '\n';
      editor.prompt = CONTINUATION;
      term.write(editor.set(''));
      return;
    }
    pending = '';
    editor.prompt = PROMPT;
    editor.set('');
    if (text.trim()) {
      history.add(text);
      saveHistory();
    }
    const commands = [];
    for (const words of [parsed.words, ...parsed.pipe]) {
      const { args, hint } = kubectlArgs(words);
      if (!args) {
        term.write((hint || 'a pipe needs a command on each side') + '\r\n' + editor.newLine() + editor.redraw());
        return;
      }
      commands.push(args);
    }
    run(text, commands, parsed.stdin);
  }

  // tab completes the word at the cursor; what is typed meanwhile waits for
  // it, as in a shell.
  async function tab() {
    const before = editor.text.slice(0, editor.cursor);
    const { args } = kubectlArgs(parseLine(before + 'x').words);
    if (!args || !kubectl) return;
    completing = true;
    try {
      // The words after "kubectl" (or "k"), which the module completes.
      const candidates = await kubectl.complete(before.replace(/^\s*\S+\s+/, ''), io(currentTarget(), null));
      const r = completeWord(editor.text, editor.cursor, candidates);
      if (r.choices.length) term.write(editor.end() + '\r\n' + r.choices.join('  ') + '\r\n' + editor.newLine());
      term.write(editor.set(r.text, r.cursor));
    } catch {
      // no completions
    } finally {
      completing = false;
      const rest = queued;
      queued = '';
      if (rest) feed(rest);
    }
  }

  // ---- running a command -------------------------------------------------------
  // run runs a command line: one kubectl command, or a pipeline of them
  // (commands: each one's words after "kubectl"), each one's stdout the
  // next one's stdin as a shell pipes them (run one after the other: kubectl
  // reads its stdin whole before it sends anything). Its exit code is the
  // last command's; Ctrl-C stops the pipeline.
  function run(line, commands, stdin) {
    const cmd = log.begin(line);
    renderExchanges(cmd);
    lineStart = true;
    const target = currentTarget();
    let r = null;
    let cancelled = false;
    running = { cancel: () => { cancelled = true; r?.cancel(); }, cmd };
    setState('running', 'running');
    el.dataset.running = 'true';
    (async () => {
      let input = stdin === null ? null : new TextEncoder().encode(stdin);
      let code = 0;
      for (const [i, args] of commands.entries()) {
        if (cancelled) break;
        const piped = i < commands.length - 1 ? [] : null;
        r = kubectl.run(args, io(target, cmd, input, piped));
        code = await r.done;
        if (piped) input = concatBytes(piped);
      }
      return code;
    })().then((code) => { cmd.exitCode = code; }, (err) => {
      term.write(terminalText(`error: ${err.message || err}\n`));
      cmd.exitCode = -1;
    }).then(() => {
      running = null;
      delete el.dataset.running;
      setState('ready');
      renderExchanges(cmd);
      // As zsh does, a prompt after output that did not end its line starts its own.
      term.write((lineStart ? '' : '\r\n') + editor.newLine() + editor.redraw());
      lineStart = true;
      for (const resolve of idle.splice(0)) resolve(cmd);
      for (const fn of listeners) fn(commandResult(cmd));
      const rest = queued;
      queued = '';
      if (rest) feed(rest);
    });
  }

  // io is what the module's run and complete call: output to the terminal
  // (stdout to piped instead, when a pipe takes it), each request through
  // apiFetch at the target the command started with.
  function io(target, cmd, stdin = null, piped = null) {
    const decoders = { out: new TextDecoder(), err: new TextDecoder() };
    const write = (which) => (bytes) => {
      if (which === 'out' && piped) {
        piped.push(bytes.slice());
        return;
      }
      const text = decoders[which].decode(bytes, { stream: true });
      if (cmd && cmd.output.length < OUTPUT_KEEP) cmd.output += text;
      if (text) lineStart = text.endsWith('\n');
      term.write(terminalText(text));
    };
    return {
      terminal: historyKey(target),
      server: target.baseUrl,
      namespace: '',
      stdin,
      stdout: write('out'),
      stderr: write('err'),
      fetch: (method, url, headerLines, body, signal) => send(target, method, url, headerLines, body, signal),
      exchange: (text) => {
        if (!cmd) return;
        log.add(cmd, JSON.parse(text));
        renderExchanges(cmd);
      },
      edit: editText,
    };
  }

  async function send(target, method, url, headerLines, body, signal) {
    const path = url.startsWith(target.baseUrl) ? url.slice(target.baseUrl.length) : url;
    const headers = new Headers();
    for (const line of headerLines.split('\r\n')) {
      const i = line.indexOf(': ');
      if (i > 0) {
        try { headers.append(line.slice(0, i), line.slice(i + 2)); } catch { /* a name fetch refuses */ }
      }
    }
    const res = await apiFetch(path || '/', { method, headers, body: body || undefined, signal }, target);
    // A watch or a follow streams to the module as it comes; any other
    // answer is read here and handed over whole, one crossing instead of one
    // per chunk and one for its end.
    let answer = null;
    if (method !== 'HEAD') answer = STREAMED.test(url) ? res.body : new Uint8Array(await res.arrayBuffer());
    return { status: res.status, headers: JSON.stringify([...res.headers]), body: answer };
  }

  // editText is kubectl edit's editor: the text in a box under the terminal,
  // saved or cancelled.
  function editText(filename, text) {
    return new Promise((resolve) => {
      const area = h('textarea', { class: 'mono', testid: 'terminal-edit-text', spellcheck: 'false', rows: 20 });
      area.value = text;
      const done = (v) => () => {
        editBox.hidden = true;
        mount(editBox);
        term.focus();
        resolve(v === null ? null : area.value);
      };
      mount(
        editBox,
        h('div', { class: 'row' }, h('strong', {}, `Editing ${filename}`), h('div', { class: 'grow' }),
          h('button', { type: 'button', testid: 'terminal-edit-save', on: { click: done('save') } }, 'Save and close'),
          h('button', { type: 'button', testid: 'terminal-edit-cancel', on: { click: done(null) } }, 'Cancel')),
        area,
      );
      editBox.hidden = false;
      area.focus();
    });
  }

  // ---- the exchanges beside -----------------------------------------------------
  // Each command's group is drawn when it begins and again only while it
  // changes (an exchange, its exit), not the whole list for every command;
  // an exchange's headers and bodies are drawn when it is first opened.
  const drawn = new Map(); // command id → its <details>
  const dirty = new Set(); // ids of the commands to draw again
  let scheduled = false;
  function renderExchanges(cmd = null) {
    if (cmd) {
      dirty.add(cmd.id);
    } else {
      drawn.clear();
      mount(exchanges);
      for (const c of log.commands) dirty.add(c.id);
    }
    if (scheduled) return;
    scheduled = true;
    requestAnimationFrame(() => {
      scheduled = false;
      const live = new Set(log.commands.map((c) => c.id));
      for (const [id, el] of drawn) {
        if (!live.has(id)) {
          el.remove();
          drawn.delete(id);
        }
      }
      const newest = log.commands[log.commands.length - 1];
      for (const c of log.commands) {
        if (!dirty.has(c.id)) continue;
        const old = drawn.get(c.id);
        const el = command(c, c === newest || (old && old.open), old);
        if (old) old.replaceWith(el);
        else exchanges.prepend(el);
        drawn.set(c.id, el);
      }
      dirty.clear();
    });
  }

  // command draws a command's group (open: shown opened), keeping the
  // exchanges already drawn in old as they are (opened or not).
  function command(c, open, old) {
    const key = `c${c.id}`;
    const kept = new Map(old ? [...old.querySelectorAll(':scope > [data-testid="terminal-exchange"]')].map((e) => [e.dataset.key, e]) : []);
    return h(
      'details',
      { class: 'terminal-command', testid: 'terminal-command', open: open ? true : undefined, dataset: { key, exit: c.exitCode === null ? '' : String(c.exitCode) } },
      h('summary', { class: 'mono' }, `$ ${c.line.split('\n')[0]}`, h('span', { class: 'muted' }, ` · ${c.exchanges.length + c.dropped} request${c.exchanges.length + c.dropped === 1 ? '' : 's'}${c.dropped ? ` (the first ${c.dropped} not kept)` : ''}${c.exitCode === null ? '' : ` · exit ${c.exitCode}`}`)),
      c.exchanges.map((ex) => kept.get(exchangeKey(c, ex)) || exchange(ex, exchangeKey(c, ex))),
    );
  }

  const exchangeKeys = new WeakMap();
  let exchangeSeq = 0;
  function exchangeKey(c, ex) {
    if (!exchangeKeys.has(ex)) exchangeKeys.set(ex, `c${c.id}e${++exchangeSeq}`);
    return exchangeKeys.get(ex);
  }

  function exchange(ex, key) {
    const headerTable = (pairs) => h('table', { class: 'terminal-headers mono' }, (pairs || []).map(([k, v]) => h('tr', {}, h('td', {}, k), h('td', {}, v))));
    const bodyView = (text) => (text ? h('pre', { class: 'mono' }, pretty(text)) : h('p', { class: 'muted' }, '(no body)'));
    const el = h(
      'details',
      { class: `terminal-exchange${ex.status >= 400 ? ' error' : ''}`, testid: 'terminal-exchange', dataset: { key, method: ex.method, status: String(ex.status), path: ex.path } },
      h('summary', {
        class: 'mono',
        on: {
          // Its headers and bodies, drawn before it first opens.
          click: () => {
            if (el.dataset.filled) return;
            el.dataset.filled = 'true';
            el.append(
              h('h4', {}, 'Request headers'), headerTable(ex.requestHeaders),
              h('h4', {}, 'Request body'), bodyView(ex.requestBody),
              h('h4', {}, 'Response headers'), headerTable(ex.responseHeaders),
              h('h4', {}, 'Response body'), bodyView(ex.responseBody),
            );
          },
        },
      }, h('span', { class: 'method' }, ex.method), ' ', h('span', { class: 'path', title: ex.url }, ex.path), ' ', h('span', { class: 'status' }, String(ex.status)), ' ', h('span', { class: 'muted' }, `${ex.ms.toFixed(1)} ms`)),
    );
    return el;
  }

  // ---- copy, history -------------------------------------------------------------
  function copyOutput() {
    copyText(term && term.hasSelection() ? term.getSelection() : log.commands.at(-1)?.output ?? '');
  }

  function loadHistory() {
    try {
      const v = JSON.parse(localStorage.getItem(historyKey(currentTarget())) || '[]');
      return new History(Array.isArray(v) ? v : []);
    } catch {
      return new History();
    }
  }

  function saveHistory() {
    try {
      localStorage.setItem(historyKey(currentTarget()), JSON.stringify(history.entries));
    } catch {
      // no storage: the history lasts for this page
    }
  }

  onTargetChange(() => {
    history = loadHistory();
  });

  function setDocked(on) {
    dock.checked = on;
    if (onDock) onDock(on);
  }

  // runLine enters line as if typed, opening the terminal first, and
  // resolves with the command's exit code once it ends (null: nothing ran),
  // for tests and benchmarks.
  async function runLine(line) {
    const r = await runCommand(line);
    return r ? r.exit : null;
  }

  // runCommand enters line as if typed (a tutorial's kubectl step, run from
  // its player) and resolves with what it did once it ends: {line, exit,
  // output (stdout and stderr as shown), exchanges}, or null when nothing
  // ran (a blank line, not kubectl).
  async function runCommand(line) {
    // Opened once (open fits the terminal to its box, which takes a layout).
    await (loading && kubectl ? loading : open());
    if (running || pending || editor.text) throw new Error('the terminal is busy: finish or clear the command being typed');
    const done = new Promise((resolve) => idle.push(resolve));
    feed(line.replace(/\n/g, '\r') + '\r');
    if (!running) {
      idle = [];
      return null;
    }
    return commandResult(await done);
  }

  // typeLine puts line at the prompt for the learner to read and run with
  // Enter (a tutorial's "type this"); a heredoc's lines are entered up to
  // the last, which waits at the continuation prompt.
  async function typeLine(line) {
    await open();
    if (running) throw new Error('a command is running');
    term.write(editor.set(''));
    pending = '';
    editor.prompt = PROMPT;
    const lines = line.split('\n');
    feed(lines.slice(0, -1).map((l) => l + '\r').join('') + lines[lines.length - 1]);
  }

  // Each command's end is told to the listeners (the tutorial player checks
  // a step the learner typed).
  const listeners = new Set();
  function onCommand(fn) {
    listeners.add(fn);
    return () => listeners.delete(fn);
  }

  function commandResult(cmd) {
    return { line: cmd.line, exit: cmd.exitCode, output: cmd.output, exchanges: cmd.exchanges.map((ex) => ({ method: ex.method, path: ex.path, status: ex.status })) };
  }

  // transcript is the terminal's text, line by line (tests, the console).
  function transcript() {
    if (!term) return '';
    const b = term.buffer.active;
    const lines = [];
    for (let i = 0; i < b.length; i++) {
      const line = b.getLine(i);
      // A row that continues the one before (a long line wrapped) joins it.
      if (line.isWrapped && lines.length) lines[lines.length - 1] += line.translateToString(true);
      else lines.push(line.translateToString(true));
    }
    return lines.join('\n').replace(/\n+$/, '');
  }

  return { el, open, isDocked: () => dock.checked, setDocked, runLine, runCommand, typeLine, onCommand, transcript, log, memStats: () => kubectl?.memStats() };
}

// pretty indents a JSON body; anything else is shown as it came.
function pretty(text) {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

// loadXterm loads the terminal's bundle and style sheet (once).
async function loadXterm() {
  const v = document.querySelector('meta[name="kubeplay-xterm"]')?.content || '';
  const css = h('link', { rel: 'stylesheet', href: `/ui/xterm.css?v=${v}` });
  const cssLoaded = new Promise((resolve, reject) => {
    css.onload = resolve;
    css.onerror = () => reject(new Error('loading xterm.css failed'));
  });
  document.head.appendChild(css);
  const url = `/ui/xterm.js?v=${v}`;
  const [mod] = await Promise.all([import(url), cssLoaded]);
  return mod;
}

// skipIdleSelectionRedraws stops xterm's DOM renderer drawing every row again
// on each scroll when nothing is or was selected: xterm 6 refreshes the
// selection whenever the buffer scrolls, which redraws all rows a second time
// in the next frame (with a forced layout per row measured), the largest part
// of a command's drawing in the profiler. A selection made, changed or cleared
// still redraws. xterm's own object, pinned by the lock file; without it
// (another version) nothing changes.
function skipIdleSelectionRedraws(term) {
  const selection = term._core?._selectionService;
  if (!selection || typeof selection.refresh !== 'function') return;
  const refresh = selection.refresh.bind(selection);
  let had = false;
  selection.refresh = (...args) => {
    const has = selection.hasSelection;
    if (has || had) refresh(...args);
    had = has;
  };
}

// loadKubectl runs kubeplay-kubectl.wasm in a Go instance of the page and
// resolves to what it publishes (kubeplayKubectl).
async function loadKubectl() {
  if (!globalThis.Go) {
    await new Promise((resolve, reject) => {
      const s = h('script', { src: '/wasm_exec.js' });
      s.onload = resolve;
      s.onerror = () => reject(new Error('loading wasm_exec.js failed'));
      document.head.appendChild(s);
    });
  }
  const res = await fetch(MODULE);
  if (!res.ok) throw new Error(`${MODULE}: HTTP ${res.status}`);
  const { api } = await runGo(await WebAssembly.compileStreaming(res), 'kubeplayKubectl');
  return api;
}
