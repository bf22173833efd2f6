// embedpage.js — the embed page (/embed/, LEARN-4): one tutorial, one
// exercise, or a sandbox with a terminal, in a frame on any site (embed.js
// writes the frame; headers.json lets any site frame this page and no other).
// Its sandbox is a worker of its own, sw.js registered for the scope
// /embed/ (its own IndexedDB too), never the playground's: a site that
// embeds kubeplay cannot see or preset the sandbox of the visitor's own
// playground tab; where the browser partitions storage by top-level site,
// each embedding site has its own besides. It cannot reach the page around
// it (a frame of another origin). Chosen by the query:
//   ?tutorial=ID     the tutorial player on that tutorial
//   ?exercise=ID     the exercise, checked live
//   ?terminal        kubectl in the page
//   &manifest=URL    (with any) objects to create first: the YAML or JSON at
//                    URL (which must allow this site to read it, CORS),
//                    applied with kubectl apply in the terminal, in view
//   &cluster=simulated  the simulated cluster (a tutorial or exercise that
//                    needs it asks for it itself)
// A tutorial's kubectl steps, an exercise's kubectl lines and the terminal
// share one terminal beside the content. The header links to the whole
// playground, in a new tab. An unknown tutorial or exercise, or a manifest
// that cannot be read, is said in the frame (testid embed-error).

import './styles.css';
import './embed.css';
import { h, mount } from './dom.js';
import { setTarget, currentTarget } from './api.js';
import { initSandbox, onSandboxStatus, sandboxStatus } from './sandbox.js';
import { createTutorialPlayer } from './tutorials.js';
import { createExerciseView } from './exercises.js';
import { createTerminalPanel } from './terminal.js';

const CLUSTER_MODE = '/debug/kubeplay/cluster';
const EMBED_SCOPE = '/embed/';

/** What the query asks for: {kind: tutorial|exercise|terminal, id, manifest, cluster} or {error}. */
function embedRequest(search) {
  const q = new URLSearchParams(search);
  const manifest = q.get('manifest') || '';
  const cluster = q.get('cluster') === 'simulated' ? 'simulated' : '';
  if (q.has('tutorial')) return { kind: 'tutorial', id: q.get('tutorial'), manifest, cluster };
  if (q.has('exercise')) return { kind: 'exercise', id: q.get('exercise'), manifest, cluster };
  if (q.has('terminal') || manifest) return { kind: 'terminal', id: '', manifest, cluster };
  return { error: 'This frame shows kubeplay: its address says what, with ?tutorial=ID, ?exercise=ID or ?terminal.' };
}

async function main() {
  const app = document.getElementById('app');
  const want = embedRequest(location.search);
  // The frame's sandbox is the target, whatever this site's own page chose.
  if (currentTarget().kind !== 'sandbox') setTarget({ kind: 'sandbox' });

  const badge = h('span', { class: 'badge', testid: 'sandbox-status', dataset: { state: 'starting' } }, 'starting sandbox…');
  const full = h('a', { class: 'embed-full', href: '/', target: '_blank', rel: 'noopener', title: 'The whole playground, in a new tab' }, 'Open kubeplay ↗');
  const error = h('div', { class: 'banner error', testid: 'embed-error', hidden: true });
  const header = h('header', { class: 'topbar embed-bar' }, h('span', { class: 'brand' }, h('span', { class: 'logo' }, '⎈'), ' kubeplay'), h('div', { class: 'grow' }), badge, full);
  const terminal = createTerminalPanel();
  const terminalBox = h('aside', { class: 'embed-terminal', hidden: true }, terminal.el);
  const showTerminal = () => {
    terminalBox.hidden = false;
    return terminal.open({ focus: false });
  };
  const kubectl = {
    run: (line) => showTerminal().then(() => terminal.runCommand(line)),
    type: (line) => showTerminal().then(() => terminal.typeLine(line)),
    onCommand: terminal.onCommand,
  };
  const content = h('main', { class: 'embed-main' });
  mount(app, header, error, h('div', { class: 'embed-body' }, content, terminalBox));
  document.getElementById('boot')?.remove();
  const fail = (...msg) => {
    mount(error, ...msg);
    error.hidden = false;
  };
  onSandboxStatus((s) => {
    badge.dataset.state = s.state;
    badge.textContent = s.state === 'ready' ? 'sandbox ready' : s.state === 'error' ? 'sandbox error' : 'starting sandbox…';
    if (s.state !== 'error') return;
    if (window.top === window) return fail(`The in-browser sandbox cannot run here: ${s.error} ${s.hint || ''}`);
    // A browser that blocks third-party storage (its cookie setting) lets no
    // site framed by another run a service worker: the same page in a tab
    // of its own can.
    fail(
      h('p', {}, 'The in-browser sandbox cannot start in this frame: this browser does not let a site embedded in another page keep storage or run a service worker here (its third-party cookie setting).'),
      h('p', {}, h('a', { href: location.href, target: '_blank', rel: 'noopener', testid: 'embed-open-tab', class: 'button primary' }, 'Open it in a tab of its own ↗')),
      h('p', { class: 'muted small' }, s.error),
    );
  });
  initSandbox({ scope: EMBED_SCOPE });
  window.kubeplayEmbed = { terminal, want };
  if (want.error) return fail(want.error);

  // What the content needs: its file (a clear error when it is not here),
  // and the simulated cluster when it says so.
  let cluster = want.cluster;
  let view = null;
  if (want.kind === 'tutorial') {
    const index = await fetchJSON('/tutorials/index.json').catch(() => []);
    const meta = index.find((t) => t.id === want.id);
    if (!meta) return fail(`There is no tutorial "${want.id}" here. The tutorials are: ${index.map((t) => t.id).join(', ')}.`);
    const tut = await fetchJSON(`/tutorials/${meta.file}`);
    if (tut.cluster === 'simulated') cluster = 'simulated';
    const player = createTutorialPlayer({ onOpenInBuilder: () => window.open('/#request', '_blank', 'noopener'), terminal: kubectl });
    mount(content, player.el);
    view = () => player.open(want.id);
  } else if (want.kind === 'exercise') {
    let ex;
    try {
      ex = await fetchJSON(`/tutorials/exercises/${encodeURIComponent(want.id)}.json`);
    } catch {
      return fail(`There is no exercise "${want.id}" here.`);
    }
    if (ex.cluster === 'simulated') cluster = 'simulated';
    const exercise = createExerciseView({ onOpenInBuilder: () => window.open('/#request', '_blank', 'noopener'), onProgress: () => {}, onTypeKubectl: kubectl.type });
    mount(content, exercise.el);
    view = () => exercise.open(want.id);
  } else {
    content.hidden = true;
  }
  // Nothing is sent before this page's own worker runs its sandbox (the
  // playground's may control the page until it takes over).
  await whenReady();
  if (want.kind === 'terminal') showTerminal();
  if (cluster) {
    const r = await fetch(CLUSTER_MODE, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ mode: cluster }) });
    if (!r.ok) fail(`The simulated cluster could not start: HTTP ${r.status}`);
  }
  if (want.manifest) {
    let text;
    try {
      const r = await fetch(want.manifest);
      if (!r.ok) throw new Error(`HTTP ${r.status}`);
      text = await r.text();
    } catch (e) {
      return fail(`The preset state ${want.manifest} could not be read: ${e.message}. The site that serves it must allow this one to read it (CORS).`);
    }
    // Applied where the learner sees it, as they would apply it.
    const end = uniqueMarker(text);
    await showTerminal();
    const res = await terminal.runCommand(`kubectl apply -f - <<${end}\n${text.replace(/\n?$/, '\n')}${end}`);
    if (!res || res.exit !== 0) fail(`kubectl apply of ${want.manifest} failed; its output is in the terminal.`);
  }
  if (view) view();
}

function whenReady() {
  return new Promise((resolve) => {
    const off = onSandboxStatus((s) => {
      if (s.state !== 'ready') return;
      resolve();
      queueMicrotask(() => off());
    });
  });
}

async function fetchJSON(url) {
  const r = await fetch(url, { cache: 'no-cache' });
  if (!r.ok) throw new Error(`HTTP ${r.status}`);
  return r.json();
}

// uniqueMarker is a heredoc's end word that is no line of text.
function uniqueMarker(text) {
  const lines = new Set(text.split('\n'));
  let m = 'EOF';
  for (let i = 0; lines.has(m); i++) m = `EOF${i}`;
  return m;
}

if (typeof document !== 'undefined' && document.getElementById('app')) main();
