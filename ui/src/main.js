// kubeplay playground — entry point (bundled by ui/build.mjs into /ui/app.js and
// /ui/app.css; the page is /index.html).
//
// Views (tabs, also chosen by the URL hash): #request (builder, response,
// history), #watch (watch panel), #cluster (Nodes, workloads, Pods and events,
// live), #apf (API Priority and Fairness panel), #xds (a simulated Envoy
// node), #requests (the sandbox's request log, which may also stay docked
// beside the other tabs), #terminal (kubectl in the page, which may also stay
// docked beside the other tabs), #timeline (every change history keeps: who
// made it, the state at any revision, diffs, replay), #tutorials (tutorial
// player), #start (the
// start page: welcome and tracks; a first visit opens on it, later visits on
// the last view), #exercise/<id> (an exercise, checked live).
//
// Stable data-testid attributes for browser tests:
//   header:
//     home                   the brand: back to the start page
//   start page (#start):     start-page, welcome, tracks, track (data-id), track-progress,
//                            start-tutorial / start-exercise (data-id),
//                            start-exercise-progress (data-id: "ticked/parts")
//   exercise (#exercise/<id>): exercise-view, exercise-title, exercise-parts,
//                            exercise-part (data-id, data-ok), exercise-missing,
//                            exercise-suggested-hint, exercise-hints, exercise-more-hint,
//                            exercise-complete, exercise-solution, exercise-solution-kubectl,
//                            exercise-state (data-state = offered|taken|error), exercise-state-start,
//                            exercise-state-done (an exercise that starts from a shared state)
//     target-select          the target <select>: sandbox | native | remote
//     remote-url             remote kubeplay base URL (shown for "remote")
//     remote-token           optional bearer token for the remote target
//     remote-apply           applies URL and token
//     sandbox-status         sandbox state; attribute data-state = starting|ready|error,
//                            data-build = the service worker's build id
//     sandbox-error          the error panel when the sandbox cannot start
//     restore-errors         journal entries skipped on restore (hidden when none)
//     reset-sandbox          wipes the sandbox (asks to confirm first)
//     cluster-mode           the sandbox's cluster <select>: api-only | simulated (the
//                            service worker's /debug/kubeplay/cluster; shown for the sandbox)
//     readonly-badge         shown instead of the target switch in a read-only view of a
//                            sandbox (WORK-2: /?readonly=<id>, opened by the instructor page;
//                            write controls, marked data-write, are disabled there)
//     target-offer           a link's offer of a remote target (#target=remote&url=…),
//                            with target-offer-url, target-offer-accept, target-offer-dismiss
//     tab-request, tab-watch, tab-cluster, tab-apf, tab-xds, tab-requests, tab-terminal,
//     tab-tutorials          the tabs
//   request builder:
//     template-select        example requests
//     identity-select        who the request is from (sets Impersonate-User/-Group headers)
//     method                 method <select>
//     path                   path input (completion list: path-completions)
//     namespace              namespace used by completion and examples
//     params, param-row, add-param        query parameter rows
//     headers, header-row, add-header     header rows
//     body-editor            CodeMirror body editor container (data-mode = json|yaml)
//     body-mode-json, body-mode-yaml      body language toggle (converts the text)
//     body-hint              e.g. "YAML is converted to JSON before sending"
//     send, stop             send the request / abort a streaming one
//     prepare-error          why a request could not be built (bad YAML)
//     copy-curl, copy-kubectl, copy-output   copy as curl / kubectl, and the text
//     open-watch             follow a watch request in the watch panel
//   response:
//     response-status        "201 Created"; attribute data-status = the code (0: network error)
//     response-time          timing in ms
//     response-headers       headers table
//     response-warnings      the Warning headers' texts, one "Warning: …" line each (as kubectl prints them)
//     response-status-error  Status failure: code, reason, message, causes
//     response-body          the body (pretty and highlighted, or raw)
//     response-raw           raw toggle (checkbox)
//   history:
//     history-list, history-item, history-clear
//   watch panel:
//     watch-path, watch-label-selector, watch-field-selector, watch-resource-version, watch-timeout,
//     watch-bookmarks, watch-initial-events, watch-start, watch-compact, watch-list
//     watch-events           one per watch (container; data-state = connecting|streaming|
//                            backoff|relisting|stopped|failed); rows are <tr> with
//                            data-type = ADDED|MODIFIED|DELETED|BOOKMARK|ERROR|RECONNECT|
//                            RELIST|INFO and data-code (410 on Gone rows)
//     watch-state, watch-last-rv, watch-objects, watch-count, watch-stop,
//     watch-reconnect (drop the connection on purpose), watch-remove
//   cluster view (cluster.js):
//     cluster-namespace, cluster-start, cluster-stop,
//     cluster-state (data-state = stopped|connecting|watching|backoff|failed),
//     cluster-api-only (the note shown when there are no Nodes),
//     cluster-nodes, cluster-node (data-name, data-status), cluster-unscheduled,
//     cluster-pod (in a node box; data-name, data-node, data-phase, data-state = kubectl's
//       STATUS, data-ready = "1/1", data-owner = the controller's name),
//     cluster-workloads, cluster-deployment (data-name, data-ready, data-replicas),
//     cluster-replicaset (data-name, data-owner, data-replicas, data-ready, data-revision),
//     cluster-workload-pod (data-name, data-owner, data-node, data-state),
//     cluster-owner (an owner known from references only; data-kind, data-name),
//     cluster-detail, cluster-open-builder,
//     cluster-events, cluster-event-row (data-reason, data-type)
//   APF panel (apf.js):
//     apf-status, apf-levels, apf-level-row (data-level, data-current, data-waiting, data-rejected),
//     apf-chart-seats, apf-chart-queues, apf-chart-waits, apf-chart-rejections (uPlot charts;
//     data-points = snapshots drawn, data-max = the largest value drawn),
//     apf-level-select, apf-flows, apf-queues, apf-queue-row, apf-flow-table, apf-flow-row (data-flow),
//     apf-load-elephants, apf-load-concurrency, apf-load-mice, apf-load-work, apf-load-duration,
//     apf-load-verb, apf-load-level, apf-load-start, apf-load-stop, apf-load-results,
//     apf-load-row (data-flow, data-ok, data-rejected),
//     apf-hand-fs, apf-hand-distinguisher, apf-hand-show, apf-hand-note, apf-hand-grid,
//     apf-hand-queue (data-index, data-in-hand, data-load)
//   xDS panel (xds.js):
//     xds-node-id, xds-node-cluster, xds-protocol, xds-connect, xds-disconnect,
//     xds-stream-state (data-state = closed|open|ended), xds-type, xds-names, xds-params,
//     xds-subscribe, xds-unsubscribe, xds-auto-ack, xds-nack-message,
//     xds-timeline, xds-entry (data-dir = in|out, data-nonce, data-state = pending|acked|nacked),
//     xds-ack, xds-nack, xds-resources, xds-resource-row (data-name, data-version), xds-ttl,
//     xds-detail, xds-server-status
//   Requests panel (requests.js):
//     requests-panel, requests-status (data-state = live while following),
//     requests-filter-client, requests-filter-user, requests-filter-verb, requests-filter-code,
//     requests-own (show the sandbox's own components), requests-pause, requests-clear,
//     requests-dock (keep it beside the other tabs), requests-table,
//     requests-row (data-seq, data-client, data-verb, data-code, data-method),
//     requests-detail, requests-curl, requests-copy-curl, requests-request-body, requests-response-body
//   Terminal panel (terminal.js; xterm.js and kubeplay-kubectl.wasm load on first open):
//     terminal-panel (data-running while a command runs), terminal-state (data-state =
//     closed|loading|ready|running|failed), terminal-screen (xterm's; type into it),
//     terminal-copy, terminal-clear, terminal-dock (keep it beside the other tabs),
//     terminal-exchanges, terminal-command (one per command, newest first; data-exit),
//     terminal-exchange (data-method, data-status, data-path), terminal-edit-text,
//     terminal-edit-save, terminal-edit-cancel (kubectl edit's editor)
//   Timeline panel (timeline.js):
//     timeline-kind, timeline-namespace, timeline-name, timeline-user, timeline-mine, timeline-refresh,
//     timeline-reach (data-revision, data-compacted), timeline-error, timeline-table,
//     timeline-row (data-revision, data-type, data-kind, data-name, data-namespace, data-user, data-manager),
//     timeline-more, timeline-scrub, timeline-rev, timeline-go, timeline-cluster,
//     timeline-gone (data-revision: the 410 explained), timeline-detail, timeline-detail-title,
//     timeline-who, timeline-cause (data-seq), timeline-prev, timeline-next,
//     timeline-event (data-type), timeline-diff-from, timeline-diff-to, timeline-diff-go,
//     timeline-show-managed, timeline-show-status, timeline-diff (data-state; spans data-op),
//     timeline-object (data-revision, data-state = exists|absent|gone|error),
//     timeline-collection, timeline-collection-item (data-name, data-rv);
//     the Cluster tab at a revision: cluster-at-revision (data-revision, data-state = ok|gone|error)
//   tutorials:
//     tutorial-list, tutorial-item (data-id), tutorial-progress, tutorial-steps,
//     tutorial-step-title, tutorial-narration, tutorial-request, tutorial-run-step,
//     tutorial-next, tutorial-prev, tutorial-restart, tutorial-open-builder,
//     tutorial-step-result (data-ok = true|false), tutorial-expectations,
//     tutorial-warnings (the step's answer's warnings), tutorial-complete
//
// window.kubeplayUI exposes {apiFetch, currentTarget, setTarget, builder, watch,
// cluster, apf, xds, requests, terminal, tutorials, sandboxStatus} for tests and the console.

import './styles.css';
import { copyText, h, mount } from './dom.js';
import { apiFetch, currentTarget, setTarget, onTargetChange, linkOffer, answerLinkOffer, readOnlySandbox, TARGET_KINDS } from './api.js';
import { initSandbox, onSandboxStatus, resetSandbox, sandboxStatus, dismissRestoreErrors } from './sandbox.js';
import { invalidateDiscovery, loadDiscovery } from './discovery.js';
import { createResponseView } from './response.js';
import { createBuilder } from './builder.js';
import { createHistoryView } from './historyview.js';
import { createWatchPanel } from './watch.js';
import { createTutorialPlayer } from './tutorials.js';
import { createApfPanel } from './apf.js';
import { createXdsPanel } from './xds.js';
import { createClusterView } from './cluster.js';
import { createRequestsPanel } from './requests.js';
import { createTimelinePanel } from './timeline.js';
import { createStartPage } from './start.js';
import { createExerciseView } from './exercises.js';
import { forgetProgress, lastView, reportProgress, saveView } from './progress.js';
import { exportState, importState, isShareLink, readHeader, readShareLink, shareDocument, shareLink, shareSummary, takeShare } from './share.js';
import { createTerminalPanel } from './terminal.js';

// CLUSTER_MODE is the service worker's own endpoint for the sandbox's cluster mode.
const CLUSTER_MODE = '/debug/kubeplay/cluster';

function main() {
  const app = document.getElementById('app') || document.body.appendChild(h('div', { id: 'app' }));

  // ---- header: target switch, sandbox status, reset ---------------------------
  const target = currentTarget();
  // A read-only view of one sandbox (WORK-2) keeps that target: no switch.
  const readOnly = readOnlySandbox();
  const targetSelect = h(
    'select',
    { testid: 'target-select', title: 'Where requests go', on: { change: onTargetSelect } },
    TARGET_KINDS.map((t) => h('option', { value: t.kind, selected: t.kind === target.kind }, t.label)),
  );
  const remoteUrl = h('input', { type: 'url', testid: 'remote-url', placeholder: 'https://kubeplay.example:8080', value: target.url, size: 22, spellcheck: 'false' });
  const remoteToken = h('input', { type: 'password', testid: 'remote-token', placeholder: 'bearer token (optional)', value: target.token, size: 16, autocomplete: 'off' });
  const remoteApply = h('button', { type: 'submit', testid: 'remote-apply' }, 'Use');
  const remoteBox = h(
    'form',
    { class: 'remote-box', hidden: target.kind !== 'remote', on: { submit: (e) => { e.preventDefault(); setTarget({ kind: 'remote', url: remoteUrl.value, token: remoteToken.value }); } } },
    remoteUrl,
    remoteToken,
    remoteApply,
  );
  const targetInfo = h('span', { class: 'target-info muted', testid: 'target-info' });
  const sandboxBadge = h('span', { class: 'badge', testid: 'sandbox-status', dataset: { state: 'starting' } }, 'starting sandbox…');
  const resetBtn = h('button', { type: 'button', class: 'danger small', testid: 'reset-sandbox', on: { click: onReset } }, 'Reset sandbox');
  const clusterSelect = h(
    'select',
    { testid: 'cluster-mode', disabled: true, title: 'The sandbox serves the API alone, or runs a simulated cluster too: nodes, a scheduler, kubelets and the controllers (a module of its own, loaded when chosen)', on: { change: onClusterMode } },
    h('option', { value: 'api-only' }, 'API only'),
    h('option', { value: 'simulated' }, 'Simulated cluster'),
  );
  // Its state kept, handed over and started from (share.js, LEARN-6).
  const importFile = h('input', { type: 'file', accept: '.kubeplay,application/vnd.kubeplay.export', hidden: true, testid: 'import-file', on: { change: onImportFile } });
  const stateMenu = h(
    'details',
    { class: 'state-menu', testid: 'state-menu' },
    h('summary', { title: 'Save this sandbox\'s state as a file, start it from one, or share it as a link' }, 'State'),
    h(
      'div',
      { class: 'state-menu-body' },
      h('button', { type: 'button', class: 'small', testid: 'export-sandbox', title: 'Download its objects, revisions and history as a .kubeplay file, which any kubeplay starts from (natively: --import FILE)', on: { click: onExport } }, 'Export to a file'),
      h('button', { type: 'button', class: 'small', testid: 'import-sandbox', title: 'Start the sandbox again from a .kubeplay file: what it holds now is replaced', on: { click: () => importFile.click() } }, 'Import a file…'),
      h('button', { type: 'button', class: 'small', testid: 'share-sandbox', title: 'A link that carries this state in its fragment (nothing is uploaded)', on: { click: onShare } }, 'Share as a link'),
      importFile,
    ),
  );
  const shareBox = h('div', { class: 'banner', testid: 'share-box', hidden: true });
  // What belongs to the in-browser sandbox, shown while it is the target.
  const sandboxBox = h('div', { class: 'sandbox', testid: 'sandbox-controls' }, sandboxBadge, clusterSelect, resetBtn, stateMenu);
  let clusterModeKnown = false; // the select shows a mode once the worker has said it

  const tabs = [
    { id: 'request', label: 'Request' },
    { id: 'watch', label: 'Watch' },
    { id: 'cluster', label: 'Cluster' },
    { id: 'apf', label: 'APF' },
    { id: 'xds', label: 'xDS' },
    { id: 'requests', label: 'Requests' },
    { id: 'terminal', label: 'Terminal' },
    { id: 'timeline', label: 'Timeline' },
    { id: 'tutorials', label: 'Tutorials' },
  ];
  const tabButtons = tabs.map((t) => h('button', { type: 'button', class: 'tab', testid: `tab-${t.id}`, on: { click: () => { location.hash = t.id; } } }, t.label));

  const header = h(
    'header',
    { class: 'topbar' },
    h('button', { type: 'button', class: 'brand', testid: 'home', title: 'The start page: tracks, tutorials and exercises', on: { click: () => { location.hash = 'start'; } } }, h('span', { class: 'logo' }, '⎈'), ' kubeplay'),
    h('nav', { class: 'tabs' }, tabButtons),
    h('div', { class: 'grow' }),
    readOnly
      ? h('span', { class: 'badge readonly-badge', testid: 'readonly-badge', title: 'Opened from the instructor page: reads only' }, `read-only · sandbox ${readOnly.slice(0, 8)}`)
      : h('div', { class: 'target' }, h('label', {}, 'Target ', targetSelect), remoteBox, targetInfo),
    sandboxBox,
  );

  // ---- banners ------------------------------------------------------------------
  const sandboxError = h('div', { class: 'banner error', testid: 'sandbox-error', hidden: true });
  const restoreErrors = h('div', { class: 'banner warn', testid: 'restore-errors', hidden: true });
  const startingPanel = h('div', { class: 'banner info', testid: 'sandbox-starting', hidden: true }, h('span', { class: 'spinner' }), ' Starting the in-browser sandbox… (downloading and starting the Kubernetes API core)');
  const pageError = h('div', { class: 'banner error', testid: 'page-error', hidden: true });
  const pageNotice = h('div', { class: 'banner info', testid: 'page-notice', hidden: true });
  const targetOffer = renderLinkOffer(linkOffer());
  // A share link's state, offered when the page opens with one, or when one
  // is opened in a tab already showing the playground (a hash change).
  const stateOffer = h('div', { testid: 'import-offer-slot' });
  const offerState = () => {
    if (isShareLink(location.hash)) mount(stateOffer, renderStateOffer(location.hash));
  };
  window.addEventListener('hashchange', offerState);
  offerState();

  // ---- views ----------------------------------------------------------------------
  const responseView = createResponseView();
  let watchPanel;
  let tutorials;
  const builder = createBuilder({
    responseView,
    onOpenWatch: (path) => {
      watchPanel.setPath(path);
      location.hash = 'watch';
    },
  });
  const historyView = createHistoryView({ onRestore: (spec) => builder.setSpec(spec) });
  watchPanel = createWatchPanel({ getNamespace: builder.getNamespace });
  const terminalPanel = createTerminalPanel({ onDock: () => showTab() });
  // A tutorial's kubectl step runs in the terminal, docked beside the player.
  const terminalBeside = () => {
    if (!terminalPanel.isDocked()) terminalPanel.setDocked(true);
  };
  tutorials = createTutorialPlayer({
    onOpenInBuilder: (spec) => {
      builder.setSpec(spec);
      location.hash = 'request';
    },
    terminal: {
      run: (line) => {
        terminalBeside();
        return terminalPanel.runCommand(line);
      },
      type: (line) => {
        terminalBeside();
        return terminalPanel.typeLine(line);
      },
      onCommand: terminalPanel.onCommand,
    },
  });

  const openInBuilder = (spec) => {
    builder.setSpec(spec);
    location.hash = 'request';
  };
  const exerciseView = createExerciseView({
    onOpenInBuilder: openInBuilder,
    onProgress: () => startPage.refresh(),
    // An exercise's starting state: the in-browser sandbox starts again, then takes it in.
    onResetSandbox: async () => {
      const s = await resetSandbox();
      if (s.state !== 'ready') throw new Error(s.error || 'the sandbox did not start again');
    },
    onStateTaken: () => sandboxReplaced(true),
    onTypeKubectl: (line) => {
      terminalBeside();
      return terminalPanel.typeLine(line);
    },
  });
  const startPage = createStartPage({
    onOpenTutorial: (id) => {
      tutorials.open(id);
      location.hash = 'tutorials';
    },
    onOpenExercise: (id) => {
      location.hash = `exercise/${id}`;
    },
  });

  const clusterView = createClusterView({
    onOpenInBuilder: (spec) => {
      builder.setSpec(spec);
      location.hash = 'request';
    },
  });
  const apfPanel = createApfPanel();
  const xdsPanel = createXdsPanel();
  const requestsPanel = createRequestsPanel({ onDock: () => showTab() });
  const timelinePanel = createTimelinePanel({
    onOpenRequest: (seq) => {
      location.hash = 'requests';
      requestsPanel.open(seq);
    },
    onShowCluster: (rev, namespace) => {
      clusterView.showAt(rev, namespace);
      location.hash = 'cluster';
    },
  });
  const views = {
    request: h('main', { class: 'view view-request' }, historyView.el, builder.el, responseView.el),
    watch: h('main', { class: 'view view-watch' }, watchPanel.el),
    cluster: h('main', { class: 'view view-cluster' }, clusterView.el),
    apf: h('main', { class: 'view view-apf' }, apfPanel.el),
    xds: h('main', { class: 'view view-xds' }, xdsPanel.el),
    requests: h('main', { class: 'view view-requests' }, requestsPanel.el),
    terminal: h('main', { class: 'view view-terminal' }, terminalPanel.el),
    timeline: h('main', { class: 'view view-timeline' }, timelinePanel.el),
    tutorials: h('main', { class: 'view view-tutorials' }, tutorials.el),
    start: h('main', { class: 'view view-start' }, startPage.el),
    exercise: h('main', { class: 'view view-exercise' }, exerciseView.el),
  };

  mount(app, header, targetOffer, stateOffer, shareBox, pageNotice, pageError, sandboxError, startingPanel, restoreErrors, Object.values(views));
  const boot = document.getElementById('boot');
  if (boot) boot.remove();

  // ---- tabs -----------------------------------------------------------------------
  function showTab() {
    // No hash: the last view, or the start page on a first visit.
    const hash = location.hash.replace('#', '') || (readOnly ? 'request' : lastView() || 'start');
    const [view, arg] = hash.split('/');
    const id = view in views ? view : 'request';
    if (id === 'exercise' && arg) exerciseView.open(arg);
    saveView(id === 'exercise' && arg ? `exercise/${arg}` : id);
    if (id === 'start') startPage.refresh();
    for (const [k, v] of Object.entries(views)) v.hidden = k !== id;
    // Docked, the Requests panel stays open to the right of the other tabs.
    const docked = requestsPanel.isDocked() && id !== 'requests';
    views.requests.hidden = !(id === 'requests' || docked);
    document.body.classList.toggle('requests-docked', docked);
    if (!views.requests.hidden) requestsPanel.start();
    else requestsPanel.stop();
    // So does the terminal, loaded when first shown.
    const terminalDocked = terminalPanel.isDocked() && id !== 'terminal';
    views.terminal.hidden = !(id === 'terminal' || terminalDocked);
    document.body.classList.toggle('terminal-docked', terminalDocked);
    if (!views.terminal.hidden) terminalPanel.open({ focus: id === 'terminal' });
    tabs.forEach((t, i) => tabButtons[i].classList.toggle('active', t.id === id));
    if (id === 'apf') apfPanel.start();
    else apfPanel.stop();
    if (id === 'timeline') timelinePanel.show();
    if (id === 'cluster') clusterView.show();
    else clusterView.hide();
  }
  window.addEventListener('hashchange', showTab);
  showTab();
  if (readOnly) {
    // The instructor sees the sandbox's Cluster view with its requests beside it.
    document.body.classList.add('readonly');
    document.title = `kubeplay — read-only ${readOnly.slice(0, 8)}`;
    disableWrites(app);
    requestsPanel.setDocked(true);
    clusterView.start();
  }

  // ---- target -----------------------------------------------------------------------
  function onTargetSelect() {
    const kind = targetSelect.value;
    remoteBox.hidden = kind !== 'remote';
    if (kind === 'remote') {
      remoteUrl.focus();
      if (!remoteUrl.value.trim()) return; // wait for a URL
    }
    setTarget({ kind, url: remoteUrl.value, token: remoteToken.value });
  }

  function renderTarget(t) {
    targetSelect.value = t.kind;
    remoteBox.hidden = t.kind !== 'remote';
    if (t.kind === 'remote') {
      // A target set elsewhere (a link's offer) shows in the fields too.
      remoteUrl.value = t.url || '';
      remoteToken.value = t.token || '';
    }
    targetInfo.textContent = t.kind === 'remote' ? '' : t.kind === 'native' ? location.host : '';
    document.body.dataset.target = t.kind;
    renderSandbox(sandboxStatus());
  }

  onTargetChange((t) => {
    renderTarget(t);
    if (t.kind === 'sandbox' && sandboxStatus().state === 'ready') loadClusterMode();
    invalidateDiscovery();
    loadDiscovery().catch(() => {});
    tutorials.refresh();
    exerciseView.refresh();
    startPage.refresh();
    // A workshop's host hears where this learner is on its sandbox.
    reportProgress();
  });
  renderTarget(target);
  reportProgress();

  // ---- sandbox ----------------------------------------------------------------------
  function renderSandbox(s) {
    const onSandbox = currentTarget().kind === 'sandbox';
    sandboxBadge.dataset.state = s.state;
    if (s.build) sandboxBadge.dataset.build = s.build;
    sandboxBadge.className = `badge sb-${s.state}`;
    sandboxBadge.textContent =
      s.state === 'ready' ? 'sandbox ready' : s.state === 'error' ? 'sandbox error' : 'starting sandbox…';
    sandboxBadge.title = s.error || (s.state === 'ready' && s.revision !== null && s.revision !== undefined ? `in-browser sandbox (build ${s.build}), started at revision ${s.revision}` : '');
    resetBtn.disabled = s.state === 'starting';
    sandboxBox.hidden = !onSandbox;
    clusterSelect.hidden = !clusterModeKnown;
    clusterSelect.disabled = s.state !== 'ready';
    startingPanel.hidden = !(onSandbox && s.state === 'starting');
    if (s.state === 'error') {
      mount(
        sandboxError,
        h('strong', {}, 'The in-browser sandbox is not available. '),
        s.error,
        s.hint ? h('div', { class: 'hint' }, s.hint) : null,
        h(
          'div',
          { class: 'row' },
          h('button', { type: 'button', on: { click: () => location.reload() } }, 'Reload'),
          onSandbox ? h('button', { type: 'button', on: { click: () => setTarget({ kind: 'native' }) } }, 'Use the native server instead') : null,
        ),
      );
      // On another target the badge is enough; the panel is for sandbox users.
      sandboxError.hidden = !onSandbox;
    } else {
      sandboxError.hidden = true;
    }
    if (s.restoreErrors.length) {
      mount(
        restoreErrors,
        h('strong', {}, `${s.restoreErrors.length} damaged part${s.restoreErrors.length === 1 ? ' was' : 's were'} skipped when the sandbox restored its stored state:`),
        h('ul', {}, s.restoreErrors.map((e) => h('li', { class: 'mono' }, e))),
        h('button', { type: 'button', class: 'small', on: { click: dismissRestoreErrors } }, 'Dismiss'),
      );
      restoreErrors.hidden = false;
    } else {
      restoreErrors.hidden = true;
    }
  }

  let wasReady = false;
  onSandboxStatus((s) => {
    renderSandbox(s);
    if (s.state === 'ready' && !wasReady && currentTarget().kind === 'sandbox') {
      invalidateDiscovery();
      loadDiscovery().catch(() => {});
      loadClusterMode();
      // An exercise opened while the sandbox started follows it now, not
      // after the checker's back-off.
      exerciseView.refresh();
    }
    wasReady = s.state === 'ready';
  });

  async function onReset() {
    if (!confirm('Reset the sandbox? Every object in the in-browser sandbox is deleted and it starts empty.')) return;
    try {
      const s = await resetSandbox();
      sandboxReplaced(s.state === 'ready');
    } catch (e) {
      showPageError(e.message);
    }
  }

  // sandboxReplaced refreshes what showed the sandbox's objects once it was
  // reset or imported (ready: its core answers again).
  function sandboxReplaced(ready) {
    invalidateDiscovery();
    // What was done in the sandbox is gone with it.
    forgetProgress();
    startPage.refresh();
    if (ready) {
      loadDiscovery().catch(() => {});
      watchPanel.restartAll();
      clusterView.restart();
      tutorials.refresh();
      exerciseView.refresh();
      builder.refreshNamespaces();
      loadClusterMode();
    }
  }

  // ---- the sandbox's state: export, import, share (LEARN-6) ------------------------
  async function onExport() {
    stateMenu.open = false;
    try {
      const { bytes, filename } = await exportState(currentTarget());
      const a = h('a', { href: URL.createObjectURL(new Blob([bytes], { type: 'application/vnd.kubeplay.export' })), download: filename, hidden: true });
      document.body.appendChild(a);
      a.click();
      setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
    } catch (e) {
      showPageError('the sandbox could not be exported: ' + e.message);
    }
  }

  async function onImportFile() {
    const file = importFile.files[0];
    importFile.value = '';
    stateMenu.open = false;
    if (!file) return;
    await importBytes(new Uint8Array(await file.arrayBuffer()), file.name);
  }

  // importBytes starts the in-browser sandbox from an export, after asking
  // (it replaces what the sandbox holds).
  async function importBytes(bytes, what) {
    const head = readHeader(bytes);
    if (!confirm(`Start the in-browser sandbox from ${what}${head ? ` (${stateSummary(head)})` : ''}? What it holds now is replaced.`)) return;
    await startFrom(bytes, what);
  }

  // startFrom starts the in-browser sandbox from an export (what names it),
  // says so, and whether it did.
  async function startFrom(bytes, what) {
    try {
      // The worker answers once the core runs from it.
      const done = await importState(bytes, { replace: true });
      sandboxReplaced(true);
      showNotice(`Imported ${what}: ${stateSummary(done)}.`);
      return true;
    } catch (e) {
      showPageError(`${what} could not be imported: ${e.message}`);
      return false;
    }
  }

  async function onShare() {
    stateMenu.open = false;
    try {
      const bytes = await shareDocument(currentTarget());
      const doc = JSON.parse(new TextDecoder().decode(bytes));
      const link = await shareLink(bytes, location.origin + location.pathname);
      if (!link) {
        showNotice('These objects are too many for a link: export the sandbox to a file (State → Export to a file) and send that instead.');
        return;
      }
      const field = h('input', { class: 'mono grow', readonly: true, value: link, testid: 'share-link', on: { focus: (e) => e.target.select() } });
      mount(shareBox, h('strong', {}, 'A link to what you made: '), field,
        h('button', { type: 'button', class: 'small', on: { click: () => copyText(link) } }, 'Copy'),
        h('button', { type: 'button', class: 'small', on: { click: () => { shareBox.hidden = true; } } }, 'Close'),
        h('div', { class: 'hint', testid: 'share-link-summary', dataset: { bytes: String(link.length - link.indexOf('#') - 1), objects: String(doc.objects.length) } },
          `${shareSummary(doc)}; ${(link.length / 1024).toFixed(1)} KiB of link. It carries the objects your clients made (not the cluster's own), in its fragment, which browsers never send: whoever opens it is asked before their sandbox starts again from them. For everything, with its history and resourceVersions, export to a file.`));
      shareBox.hidden = false;
      await copyText(link);
    } catch (e) {
      showPageError('the sandbox could not be shared: ' + e.message);
    }
  }

  // renderStateOffer asks whether to start the sandbox from the state a
  // share link carries: the objects someone made (a share document), or
  // (links made before those) a whole export.
  function renderStateOffer(hash) {
    const drop = () => {
      history.replaceState(null, '', location.pathname + location.search);
      box.remove();
    };
    const detail = h('span', { testid: 'import-offer-detail' }, '');
    const accept = h('button', { type: 'button', testid: 'import-offer-accept', disabled: true }, 'Start my sandbox from it');
    const box = h(
      'div',
      { class: 'banner warn', testid: 'import-offer' },
      h('strong', {}, 'This link carries a sandbox\'s state'), detail, '.',
      h('div', { class: 'hint' }, 'Starting from it replaces what your in-browser sandbox holds now.'),
      h('div', { class: 'row' }, accept, h('button', { type: 'button', testid: 'import-offer-dismiss', on: { click: drop } }, 'Keep my sandbox')),
    );
    readShareLink(hash).then(({ kind, bytes }) => {
      if (kind === 'export') {
        const head = readHeader(bytes);
        if (!head) throw new Error('it holds no kubeplay export');
        detail.textContent = `: ${stateSummary(head)}, exported ${head.exportedAt}`;
        accept.onclick = async () => {
          if (currentTarget().kind !== 'sandbox') setTarget({ kind: 'sandbox' });
          if (await startFrom(bytes, 'the link\'s state')) drop();
        };
      } else {
        let doc;
        try {
          doc = JSON.parse(new TextDecoder().decode(bytes));
        } catch {
          throw new Error('it holds no kubeplay share');
        }
        if (doc.kind !== 'KubeplayShare' || !Array.isArray(doc.objects)) throw new Error('it holds no kubeplay share');
        detail.textContent = `: ${shareSummary(doc)}, made with kubeplay ${doc.server || ''}`.trimEnd();
        accept.onclick = async () => {
          if (currentTarget().kind !== 'sandbox') setTarget({ kind: 'sandbox' });
          if (await takeFrom(bytes, doc)) drop();
        };
      }
      accept.disabled = false;
    }).catch((e) => {
      detail.textContent = `, but it cannot be read (${e.message})`;
    });
    return box;
  }

  // takeFrom starts the in-browser sandbox again (as Reset does), then takes
  // a share document's objects into it; says so, and whether it did.
  async function takeFrom(bytes, doc) {
    try {
      const s = await resetSandbox();
      if (s.state !== 'ready') throw new Error(s.error || 'the sandbox did not start again');
      const done = await takeShare(bytes, currentTarget());
      sandboxReplaced(true);
      showNotice(`Started from the link's state: ${shareSummary(doc)} (now at revision ${done.revision}).`);
      return true;
    } catch (e) {
      showPageError(`the link's state could not be taken in: ${e.message}`);
      return false;
    }
  }

  // The sandbox's cluster mode is the service worker's, not the core's: it is
  // asked for directly, whatever the target.
  async function loadClusterMode() {
    try {
      const r = await fetch(CLUSTER_MODE);
      if (r.ok) {
        clusterSelect.value = (await r.json()).mode;
        clusterModeKnown = true;
        clusterSelect.hidden = false;
      }
    } catch {}
  }

  async function onClusterMode() {
    clusterSelect.disabled = true;
    try {
      const r = await fetch(CLUSTER_MODE, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ mode: clusterSelect.value }) });
      if (!r.ok) throw new Error((await r.json().catch(() => ({}))).message || `HTTP ${r.status}`);
    } catch (e) {
      showPageError('the cluster mode could not be changed: ' + e.message);
      await loadClusterMode();
    } finally {
      clusterSelect.disabled = sandboxStatus().state !== 'ready';
    }
  }

  function showNotice(msg) {
    mount(pageNotice, msg, h('button', { type: 'button', class: 'icon', on: { click: () => { pageNotice.hidden = true; } } }, '×'));
    pageNotice.hidden = false;
  }

  function showPageError(msg) {
    mount(pageError, h('strong', {}, 'Error: '), msg, h('button', { type: 'button', class: 'icon', on: { click: () => { pageError.hidden = true; } } }, '×'));
    pageError.hidden = false;
  }

  window.addEventListener('unhandledrejection', (e) => {
    const r = e.reason;
    if (r && r.name === 'AbortError') return;
    console.error(r);
  });

  initSandbox();
  if (currentTarget().kind !== 'sandbox') loadDiscovery().catch(() => {});

  window.kubeplayUI = { apiFetch, currentTarget, setTarget, builder, watch: watchPanel, cluster: clusterView, apf: apfPanel, xds: xdsPanel, requests: requestsPanel, terminal: terminalPanel, tutorials, exercise: exerciseView, sandboxStatus };
}

// disableWrites keeps every control marked data-write in root disabled, those
// rendered later included (a read-only view).
function disableWrites(root) {
  const apply = () => {
    for (const el of root.querySelectorAll('[data-write]')) {
      if (!el.disabled) {
        el.disabled = true;
        el.title = 'A read-only view sends no writes';
      }
    }
  };
  new MutationObserver(apply).observe(root, { subtree: true, childList: true, attributes: true, attributeFilter: ['disabled'] });
  apply();
}

// renderLinkOffer asks whether to use the remote target a link offers (null
// when it offers none): until accepted, requests go where they went before.
function renderLinkOffer(offer) {
  if (!offer) return null;
  const answer = (accept) => () => {
    answerLinkOffer(accept);
    box.remove();
  };
  const box = h(
    'div',
    { class: 'banner warn', testid: 'target-offer' },
    h('strong', {}, 'This link asks to send your requests to another server: '),
    h('span', { class: 'mono', testid: 'target-offer-url' }, offer.url),
    offer.token ? ' (with the token the link carries)' : '',
    h('div', { class: 'hint' }, 'That server sees every request sent from this page, and its answers are shown here. Use it only if you trust where the link came from, such as your workshop or the sandbox you just created.'),
    h(
      'div',
      { class: 'row' },
      h('button', { type: 'button', testid: 'target-offer-accept', on: { click: answer(true) } }, 'Use this server'),
      h('button', { type: 'button', testid: 'target-offer-dismiss', on: { click: answer(false) } }, 'Keep the current target'),
    ),
  );
  return box;
}

// stateSummary is what an export holds, from its header or an import's answer.
function stateSummary(h) {
  return `revision ${h.revision}, ${h.objects} objects, ${h.cluster?.mode} cluster`;
}

function fatal(err) {
  console.error(err);
  const box = document.getElementById('boot') || document.body.appendChild(document.createElement('div'));
  box.className = 'banner error';
  box.textContent = `The playground failed to start: ${err && err.message ? err.message : err}`;
}

try {
  main();
} catch (err) {
  fatal(err);
}
