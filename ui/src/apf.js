// apf.js — the APF panel: every priority level with its nominal, lower, upper
// and current seats, what executes and waits per queue and per flow, live
// charts (uPlot) of seat utilization, queue lengths, wait times and
// rejections, a load generator that plays elephants against a mouse, and a
// shuffle-sharding view of a flow's hand of queues. It reads
// /debug/kubeplay/apf (kubeplay's JSON view of the server's APF state) every
// half second, as system:masters (PANEL_IDENTITY), from whatever target is
// chosen.

import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { h, mount } from './dom.js';
import { apiFetch, onTargetChange } from './api.js';
import { ApfHistory, PANEL_IDENTITY, ensureDemoLevel, ensureLoadAccess, runLoad } from './apfmodel.js';

const POLL_MS = 500;
const COLORS = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2', '#ca8a04', '#db2777', '#4b5563', '#65a30d'];

const CHARTS = [
  { id: 'seats', title: 'Seat utilization (% of current seats)', measure: 'seats' },
  { id: 'queues', title: 'Requests waiting in queues', measure: 'waiting' },
  { id: 'waits', title: 'Longest wait in a queue (s)', measure: 'wait' },
  { id: 'rejections', title: 'Rejections (429) per second', measure: 'rejections' },
];

export function createApfPanel() {
  const history = new ApfHistory();
  let state = null;
  let timer = null;
  let load = null;
  const shown = new Set(['global-default', 'workload-low', 'playground-demo']);

  const status = h('span', { class: 'muted', testid: 'apf-status' }, 'not started');
  const levelsBody = h('tbody');
  const levelsTable = h(
    'table',
    { class: 'apf-levels', testid: 'apf-levels' },
    h('thead', {}, h('tr', {}, ['', 'Priority level', 'Type', 'Nominal', 'Lower', 'Upper', 'Current', 'In use', 'Executing', 'Waiting', 'Dispatched', 'Rejected'].map((c) => h('th', {}, c)))),
    levelsBody,
  );
  const levelSelect = h('select', { testid: 'apf-level-select', on: { change: () => render() } });
  const flowsBox = h('div', { class: 'apf-flows', testid: 'apf-flows' });
  const charts = CHARTS.map((c) => ({ ...c, box: h('div', { class: 'apf-chart', testid: `apf-chart-${c.id}`, dataset: { points: '0', max: '0' } }), plot: null, names: '' }));

  // ---- load generator ----------------------------------------------------------
  const elephants = h('input', { type: 'number', min: 1, max: 20, value: 2, size: 3, testid: 'apf-load-elephants' });
  const concurrency = h('input', { type: 'number', min: 1, max: 100, value: 10, size: 3, testid: 'apf-load-concurrency' });
  const mice = h('input', { type: 'number', min: 0, max: 5, value: 1, size: 3, testid: 'apf-load-mice' });
  const work = h('input', { type: 'number', min: 0, max: 30000, value: 300, size: 5, testid: 'apf-load-work' });
  const duration = h('input', { type: 'number', min: 1, max: 300, value: 20, size: 4, testid: 'apf-load-duration' });
  const verb = h(
    'select',
    { testid: 'apf-load-verb' },
    h('option', { value: 'list' }, 'list configmaps'),
    h('option', { value: 'get' }, 'get namespace default'),
    h('option', { value: 'create' }, 'create configmaps'),
  );
  const targetLevel = h(
    'select',
    { testid: 'apf-load-level' },
    h('option', { value: 'demo' }, 'playground-demo (1 seat, 8 queues of 5, hand 2)'),
    h('option', { value: 'as-is' }, 'as classified (global-default for these users)'),
  );
  const startBtn = h('button', { type: 'submit', class: 'primary', testid: 'apf-load-start', dataset: { write: '' } }, 'Start load');
  const stopBtn = h('button', { type: 'button', testid: 'apf-load-stop', disabled: true, on: { click: () => load && load.stop() } }, 'Stop');
  const results = h('tbody');
  const resultsTable = h(
    'table',
    { class: 'apf-results', testid: 'apf-load-results' },
    h('thead', {}, h('tr', {}, ['Flow (user)', 'Sent', 'OK', '429', 'Other', 'p50 ms', 'p99 ms'].map((c) => h('th', {}, c)))),
    results,
  );
  const loadForm = h(
    'form',
    { class: 'panel apf-load', on: { submit: (e) => { e.preventDefault(); startLoad(); } } },
    h('h3', {}, 'Load generator: elephants against mice'),
    h(
      'div',
      { class: 'row wrap' },
      h('label', {}, 'Elephant flows ', elephants),
      h('label', {}, 'requests each at once ', concurrency),
      h('label', {}, 'Mouse flows (1 at once) ', mice),
      h('label', { title: 'X-Kubeplay-Simulated-Work: how long each request holds its seat' }, 'simulated work ms ', work),
      h('label', {}, 'seconds ', duration),
      h('label', {}, 'Verb ', verb),
      h('label', {}, 'Level ', targetLevel),
      startBtn,
      stopBtn,
    ),
    resultsTable,
  );

  // ---- shuffle sharding ----------------------------------------------------------
  const handFs = h('input', { type: 'text', value: 'playground-demo', size: 18, testid: 'apf-hand-fs' });
  const handUser = h('input', { type: 'text', value: 'elephant-1', size: 14, testid: 'apf-hand-distinguisher' });
  const handGrid = h('div', { class: 'apf-hand-grid', testid: 'apf-hand-grid' });
  const handNote = h('span', { class: 'muted', testid: 'apf-hand-note' });
  const handForm = h(
    'form',
    { class: 'panel apf-hand', on: { submit: (e) => { e.preventDefault(); poll(); } } },
    h('h3', {}, 'Shuffle sharding: a flow’s hand of queues'),
    h('div', { class: 'row wrap' }, h('label', {}, 'FlowSchema ', handFs), h('label', {}, 'distinguisher (user or namespace) ', handUser),
      h('button', { type: 'submit', testid: 'apf-hand-show' }, 'Show hand'), handNote),
    handGrid,
  );

  const root = h(
    'section',
    { class: 'apf-panel' },
    h('div', { class: 'panel' }, h('div', { class: 'row' }, h('h3', { class: 'grow' }, 'API Priority and Fairness'), status), levelsTable),
    h('div', { class: 'apf-charts' }, charts.map((c) => h('div', { class: 'panel' }, h('h4', {}, c.title), c.box))),
    loadForm,
    h('div', { class: 'panel' }, h('div', { class: 'row' }, h('h3', { class: 'grow' }, 'Queues and flows of '), levelSelect), flowsBox),
    handForm,
  );

  async function poll() {
    const q = new URLSearchParams({ flowSchema: handFs.value.trim(), distinguisher: handUser.value.trim() });
    try {
      const res = await apiFetch(`/debug/kubeplay/apf?${q}`, { headers: { ...PANEL_IDENTITY, Accept: 'application/json' } });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      state = await res.json();
      history.add(state);
      status.textContent = `${state.serverConcurrencyLimit} seats in all · fair fraction ${state.fairFraction.toFixed(2)} · ${new Date(state.time).toLocaleTimeString()}`;
      render();
    } catch (e) {
      status.textContent = `cannot read APF state: ${e.message}`;
    }
  }

  function render() {
    if (!state) return;
    mount(
      levelsBody,
      state.levels.map((l) =>
        h(
          'tr',
          { testid: 'apf-level-row', dataset: { level: l.name, current: l.currentSeats, waiting: l.waiting, rejected: l.rejected } },
          h('td', {}, h('input', { type: 'checkbox', title: 'chart it', checked: shown.has(l.name), on: { change: (e) => { e.target.checked ? shown.add(l.name) : shown.delete(l.name); render(); } } })),
          h('td', { class: 'mono' }, l.name, l.quiescing ? ' (draining)' : ''),
          h('td', {}, l.type),
          [l.nominalSeats, l.lowerSeats, l.upperSeats].map((v) => h('td', { class: 'num' }, v)),
          h('td', { class: `num ${l.currentSeats > l.nominalSeats ? 'borrowing' : l.currentSeats < l.nominalSeats ? 'lending' : ''}`, title: l.currentSeats > l.nominalSeats ? 'borrowing' : l.currentSeats < l.nominalSeats ? 'lending' : '' }, l.currentSeats),
          [l.seatsInUse, l.executing, l.waiting, l.dispatched, l.rejected].map((v) => h('td', { class: 'num' }, v)),
        ),
      ),
    );
    const names = state.levels.map((l) => l.name);
    if (levelSelect.options.length !== names.length) {
      const cur = levelSelect.value || 'playground-demo';
      mount(levelSelect, names.map((n) => h('option', { value: n, selected: n === cur }, n)));
    }
    renderFlows(state.levels.find((l) => l.name === levelSelect.value) || state.levels[0]);
    renderHand();
    renderCharts(names.filter((n) => shown.has(n)));
  }

  function renderFlows(l) {
    if (!l) return;
    mount(
      flowsBox,
      h('p', { class: 'muted' }, `${l.type} · ${l.queues} queues${l.handSize ? ` · hand ${l.handSize} · ${l.queueLengthLimit} per queue` : ''} · R = ${l.virtualTime.toFixed(6)} seat-seconds`),
      h(
        'table',
        { class: 'apf-queues', testid: 'apf-queues' },
        h('thead', {}, h('tr', {}, ['Queue', 'Waiting', 'Executing', 'Seats', 'Next dispatch R'].map((c) => h('th', {}, c)))),
        h('tbody', {}, l.activeQueues.map((q) => h('tr', { testid: 'apf-queue-row', dataset: { index: q.index } },
          h('td', { class: 'num' }, q.index), h('td', { class: 'num' }, q.waiting), h('td', { class: 'num' }, q.executing),
          h('td', { class: 'num' }, q.seatsInUse), h('td', { class: 'num' }, q.nextDispatchR.toFixed(6))))),
      ),
      h(
        'table',
        { class: 'apf-flow-table', testid: 'apf-flow-table' },
        h('thead', {}, h('tr', {}, ['FlowSchema', 'Distinguisher', 'Waiting', 'Executing', 'Seats', 'Oldest wait s', 'Hand'].map((c) => h('th', {}, c)))),
        h('tbody', {}, l.flows.map((f) => h('tr', { testid: 'apf-flow-row', dataset: { flow: f.distinguisher } },
          h('td', { class: 'mono' }, f.flowSchema), h('td', { class: 'mono' }, f.distinguisher || '(none)'),
          h('td', { class: 'num' }, f.waiting), h('td', { class: 'num' }, f.executing), h('td', { class: 'num' }, f.seats),
          h('td', { class: 'num' }, f.oldestWaitSeconds.toFixed(2)), h('td', { class: 'mono' }, (f.hand || []).join(' '))))),
      ),
    );
  }

  function renderHand() {
    const hand = state.hand;
    if (!hand) {
      handNote.textContent = 'no such FlowSchema, or its level does not queue';
      mount(handGrid);
      return;
    }
    const l = state.levels.find((x) => x.name === hand.priorityLevel);
    const waiting = new Map((l ? l.activeQueues : []).map((q) => [q.index, q.waiting + q.executing]));
    handNote.textContent = `level ${hand.priorityLevel}, hash ${hand.hash}: queues ${hand.queues.join(', ')}; a request goes to the shortest of them`;
    const inHand = new Set(hand.queues);
    mount(
      handGrid,
      Array.from({ length: l ? l.queues : 0 }, (_, i) => {
        const n = waiting.get(i) || 0;
        return h('span', { class: `q${inHand.has(i) ? ' in-hand' : ''}${n ? ' busy' : ''}`, testid: 'apf-hand-queue', dataset: { index: i, inHand: inHand.has(i), load: n }, title: `queue ${i}: ${n} waiting or executing` }, n || '');
      }),
    );
  }

  function renderCharts(names) {
    for (const c of charts) {
      const data = history.data(c.measure, names);
      const max = Math.max(0, ...data.slice(1).flat().filter((v) => v !== null));
      c.box.dataset.points = String(history.times.length);
      c.box.dataset.max = String(max);
      const key = names.join(',');
      if (!c.plot || c.names !== key) {
        if (c.plot) c.plot.destroy();
        c.names = key;
        c.plot = new uPlot(
          {
            width: Math.max(280, (c.box.clientWidth || 420) - 8),
            height: 180,
            legend: { show: true },
            scales: { x: { time: true }, y: { range: (u, lo, hi) => [0, Math.max(1, hi)] } },
            series: [{}, ...names.map((n, i) => ({ label: n, stroke: COLORS[i % COLORS.length], width: 2, spanGaps: true }))],
          },
          data,
          c.box,
        );
      } else {
        c.plot.setData(data);
      }
    }
  }

  async function startLoad() {
    if (load) return;
    startBtn.disabled = true;
    stopBtn.disabled = false;
    const demo = targetLevel.value === 'demo';
    try {
      if (demo) {
        await ensureDemoLevel(apiFetch);
        levelSelect.value = 'playground-demo';
        handFs.value = 'playground-demo';
      } else {
        handFs.value = 'global-default';
      }
    } catch (e) {
      status.textContent = e.message;
    }
    const flows = [];
    for (let i = 1; i <= Number(elephants.value); i++) flows.push({ name: `elephant-${i}`, concurrency: Number(concurrency.value) });
    for (let i = 1; i <= Number(mice.value); i++) flows.push({ name: `mouse-${i}`, concurrency: 1 });
    try {
      await ensureLoadAccess(apiFetch, flows.map((f) => f.name));
    } catch (e) {
      status.textContent = e.message;
    }
    const requests = {
      list: { method: 'GET', path: '/api/v1/namespaces/default/configmaps' },
      get: { method: 'GET', path: '/api/v1/namespaces/default' },
      create: { method: 'POST', path: '/api/v1/namespaces/default/configmaps', body: (user, i, n) => JSON.stringify({ metadata: { generateName: `${user}-` }, data: { n: String(n) } }) },
    };
    load = runLoad({ fetch: apiFetch, flows, request: requests[verb.value], workMs: Number(work.value), durationMs: Number(duration.value) * 1000, demo });
    const show = () => mount(results, load.summary().map((s) => h('tr', { testid: 'apf-load-row', dataset: { flow: s.flow, ok: s.ok, rejected: s.rejected } },
      h('td', { class: 'mono' }, s.flow), [s.sent, s.ok, s.rejected, s.other].map((v) => h('td', { class: 'num' }, v)),
      h('td', { class: 'num' }, Math.round(s.p50)), h('td', { class: 'num' }, Math.round(s.p99)))));
    const tick = setInterval(show, POLL_MS);
    await load.done;
    clearInterval(tick);
    show();
    load = null;
    startBtn.disabled = false;
    stopBtn.disabled = true;
  }

  function start() {
    if (!timer) {
      poll();
      timer = setInterval(poll, POLL_MS);
    }
  }
  function stop() {
    clearInterval(timer);
    timer = null;
  }
  onTargetChange(() => {
    history.times.length = 0;
    history.levels.clear();
  });
  return { el: root, start, stop, history, get load() { return load; } };
}
