// instructor.js — the instructor page (WORK-2), served at /instructor by
// every host (bundled by ui/build.mjs into /ui/instructor.js and .css; the
// page is /instructor.html). It asks for the instructor token once per tab
// (sessionStorage: never in a URL, never in localStorage, which the attendees'
// page reads), polls GET /sandboxes every 2 s and shows the sandboxes live;
// reset, new token, add, remove, open read-only (the playground page on that
// sandbox with the same tab storage), every kubeconfig as a zip, and a
// printable sheet of links for attendees. Its logic without the DOM is
// instructormodel.js.
//
// Stable data-testid attributes for browser tests:
//   instructor-login, instructor-token, instructor-login-submit, instructor-login-error
//   instructor-status (data-state = idle|live|error), instructor-signout
//   instructor-add-count, instructor-add-mode, instructor-add-labels, instructor-add,
//     instructor-add-state (a .kubeplay file every new sandbox starts from), instructor-add-state-name,
//     instructor-add-state-clear
//   instructor-download, instructor-sheet-show, instructor-print
//   instructor-table, instructor-row (data-id, data-label, data-objects),
//     instructor-objects, instructor-last-active, instructor-progress, instructor-errors,
//     instructor-open, instructor-token-new, instructor-reset, instructor-remove
//   instructor-notice (a new token's link and kubeconfig), instructor-error
//   instructor-sheet, sheet-attendee (data-label)

import './styles.css';
import { h, mount, copyText } from './dom.js';
import {
  POLL_MS, TOKEN_KEY, addRequest, failure, kubeconfigFiles, paths, readOnlyLink, sheetBlocks, tableRows, zip,
} from './instructormodel.js';

function main() {
  const app = document.getElementById('app');
  let token = readToken();
  let timer = null;
  let last = null; // the last GET /sandboxes answer
  let lastAt = 0;

  // ---- login ------------------------------------------------------------------------
  const tokenInput = h('input', { type: 'password', testid: 'instructor-token', placeholder: 'instructor token', autocomplete: 'off', size: 32 });
  const loginError = h('div', { class: 'prep-error', testid: 'instructor-login-error', hidden: true });
  const login = h(
    'form',
    { class: 'panel instructor-login', testid: 'instructor-login', on: { submit: onLogin } },
    h('h2', {}, 'Instructor'),
    h('p', { class: 'muted' }, 'The instructor token is kept in this tab only (it is never put in a link or shown to attendees). Natively it is KUBEPLAY_INSTRUCTOR_TOKEN; at the edge, the INSTRUCTOR_TOKEN secret.'),
    h('div', { class: 'row' }, tokenInput, h('button', { type: 'submit', class: 'primary', testid: 'instructor-login-submit' }, 'Open')),
    loginError,
  );

  // ---- toolbar ----------------------------------------------------------------------
  const status = h('span', { class: 'muted', testid: 'instructor-status', dataset: { state: 'idle' } }, '');
  const addCount = h('input', { type: 'number', testid: 'instructor-add-count', min: 1, max: 100, value: '1', class: 'count-input' });
  const addMode = h('select', { testid: 'instructor-add-mode' }, h('option', { value: 'simulated' }, 'Simulated cluster'), h('option', { value: 'api-only' }, 'API only'));
  const addLabels = h('input', { type: 'text', testid: 'instructor-add-labels', placeholder: 'labels (optional): ann, bob, …', size: 28 });
  // A starting state: an export (State → Export in the playground) every new sandbox starts from.
  let addState = null;
  const stateOption = h('option', { value: 'state', hidden: true }, 'The state\u2019s cluster');
  addMode.append(stateOption);
  const stateName = h('span', { class: 'muted', testid: 'instructor-add-state-name' }, 'new, empty sandboxes');
  const stateClear = h('button', { type: 'button', class: 'small', testid: 'instructor-add-state-clear', hidden: true, on: { click: () => setState(null, '') } }, '×');
  const stateInput = h('input', {
    type: 'file', accept: '.kubeplay,application/vnd.kubeplay.export', testid: 'instructor-add-state', hidden: true,
    on: { change: async () => { const f = stateInput.files[0]; if (f) setState(new Uint8Array(await f.arrayBuffer()), f.name); stateInput.value = ''; } },
  });
  const stateBtn = h('button', { type: 'button', title: 'Start every new sandbox from a kubeplay export (the playground\u2019s State → Export to a file)', on: { click: () => stateInput.click() } }, 'Starting state…');
  function setState(bytes, name) {
    addState = bytes;
    stateName.textContent = bytes ? `from ${name}` : 'new, empty sandboxes';
    stateClear.hidden = !bytes;
    stateOption.hidden = !bytes;
    addMode.value = bytes ? 'state' : 'simulated';
  }
  const addBtn = h('button', { type: 'submit', testid: 'instructor-add' }, 'Add sandboxes');
  const pageError = h('div', { class: 'banner error', testid: 'instructor-error', hidden: true });
  const notice = h('div', { class: 'banner info', testid: 'instructor-notice', hidden: true });
  const body = h('tbody');
  const table = h(
    'table',
    { class: 'instructor-table', testid: 'instructor-table' },
    h('thead', {}, h('tr', {}, ['Attendee', 'Created', 'Last active', 'Mode', 'Objects', 'Budget', 'Progress', 'Recent errors', ''].map((c) => h('th', {}, c)))),
    body,
  );
  const empty = h('p', { class: 'muted', hidden: true }, 'No sandboxes yet: add some above.');
  const sheet = h('section', { class: 'instructor-sheet', testid: 'instructor-sheet', hidden: true });

  const workspace = h(
    'div',
    { class: 'instructor-main' },
    h(
      'form',
      { class: 'panel row wrap instructor-bar', on: { submit: onAdd } },
      addCount, addMode, addLabels, stateBtn, stateInput, stateName, stateClear, addBtn,
      h('span', { class: 'grow' }),
      h('button', { type: 'button', testid: 'instructor-download', on: { click: onDownload } }, 'Download kubeconfigs (.zip)'),
      h('button', { type: 'button', testid: 'instructor-sheet-show', on: { click: onSheet } }, 'Attendee sheet'),
    ),
    notice,
    h('div', { class: 'panel instructor-scroll' }, table, empty),
    sheet,
  );

  const signout = h('button', { type: 'button', class: 'small', testid: 'instructor-signout', on: { click: onSignOut } }, 'Forget token');
  const header = h(
    'header',
    { class: 'topbar' },
    h('div', { class: 'brand' }, h('span', { class: 'logo' }, '⎈'), ' kubeplay ', h('span', { class: 'muted-inv' }, 'instructor')),
    h('div', { class: 'grow' }),
    status,
    signout,
  );
  mount(app, header, pageError, h('main', { class: 'view' }, login, workspace));
  const boot = document.getElementById('boot');
  if (boot) boot.remove();

  // ---- the control API ---------------------------------------------------------------
  async function call(method, path, json) {
    const init = { method, headers: { Authorization: `Bearer ${token}` }, cache: 'no-store', credentials: 'omit' };
    if (json !== undefined) {
      init.body = JSON.stringify(json);
      init.headers['Content-Type'] = 'application/json';
    }
    const r = await fetch(path, init);
    const text = await r.text();
    let out = null;
    try { out = JSON.parse(text); } catch { /* not JSON */ }
    if (!r.ok) {
      const f = failure(r.status, out);
      if (f.unauthorized) signOut('The instructor token was refused (401 Unauthorized).');
      const err = new Error(f.message);
      err.unauthorized = f.unauthorized;
      throw err;
    }
    return out;
  }

  // ---- polling ------------------------------------------------------------------------
  async function poll() {
    timer = null;
    if (!token) return;
    const asked = token;
    try {
      const list = await call('GET', paths.list);
      if (token !== asked) return; // signed out meanwhile
      last = list;
      lastAt = Date.now();
      status.dataset.state = 'live';
      status.textContent = `live · ${(last.sandboxes || []).length} sandboxes`;
      render();
    } catch (e) {
      if (e.unauthorized) return;
      status.dataset.state = 'error';
      status.textContent = `not updated: ${e.message}`;
    }
    if (token && !timer) timer = setTimeout(poll, POLL_MS);
  }

  function refreshNow() {
    clearTimeout(timer);
    timer = null;
    return poll();
  }

  // Rows are kept by sandbox id and updated in place, so a button is never
  // replaced under the pointer between polls.
  const rowsById = new Map();
  function render() {
    const rows = tableRows(last, Date.now());
    empty.hidden = rows.length > 0;
    const seen = new Set();
    for (const r of rows) {
      seen.add(r.id);
      let row = rowsById.get(r.id);
      if (!row) {
        row = newRow(r);
        rowsById.set(r.id, row);
      }
      row.update(r);
    }
    for (const [id, row] of rowsById) {
      if (!seen.has(id)) {
        row.tr.remove();
        rowsById.delete(id);
      }
    }
    // In the model's order.
    rows.forEach((r, i) => {
      const tr = rowsById.get(r.id).tr;
      if (body.children[i] !== tr) body.insertBefore(tr, body.children[i] || null);
    });
  }

  function newRow(first) {
    let r = first;
    const action = (label, testid, fn, cls = 'small') => h('button', { type: 'button', class: cls, testid, on: { click: () => fn(r) } }, label);
    const cells = {
      label: h('td', { class: 'label-cell' }),
      created: h('td'),
      lastActive: h('td', { testid: 'instructor-last-active' }),
      mode: h('td', { class: 'label-cell' }),
      objects: h('td', { class: 'num', testid: 'instructor-objects' }),
      budget: h('td', { class: 'budget' }),
      progress: h('td', { testid: 'instructor-progress' }),
      errors: h('td', { class: 'errors', testid: 'instructor-errors' }),
    };
    const tr = h(
      'tr',
      { testid: 'instructor-row', dataset: { id: r.id } },
      Object.values(cells),
      h(
        'td',
        { class: 'actions-cell' },
        action('Open read-only', 'instructor-open', onOpen),
        action('New token', 'instructor-token-new', onNewToken),
        action('Reset', 'instructor-reset', onReset, 'small danger'),
        action('Remove', 'instructor-remove', onRemove, 'small danger'),
      ),
    );
    let shown = '';
    return {
      tr,
      update(next) {
        r = next;
        const key = JSON.stringify(next);
        if (key === shown) return;
        shown = key;
        tr.dataset.label = r.label;
        tr.dataset.objects = r.objects ?? '';
        mount(cells.label, h('strong', {}, r.label), h('div', { class: 'muted mono' }, r.id.slice(0, 8)));
        mount(cells.created, r.created);
        cells.created.title = r.createdAt;
        mount(cells.lastActive, r.lastActive);
        cells.lastActive.title = r.lastActiveAt;
        mount(cells.mode, r.mode);
        mount(cells.objects, r.objects ?? '—');
        mount(cells.budget,
          h('div', { class: `meter meter-${r.budget.level}` }, h('span', { style: { width: `${Math.min(100, Math.round(r.budget.fraction * 100))}%` } })),
          h('div', { class: 'muted' }, r.budget.text));
        mount(cells.progress, r.progress);
        mount(cells.errors, r.errors.length ? r.errors.map((e) => h('div', { class: 'mono err-line', title: e }, e)) : h('span', { class: 'muted' }, '—'));
      },
    };
  }

  // ---- actions ---------------------------------------------------------------------------
  async function act(what, fn) {
    pageError.hidden = true;
    try {
      return await fn();
    } catch (e) {
      if (!e.unauthorized) showError(`${what}: ${e.message}`);
      return undefined;
    }
  }

  async function onAdd(e) {
    e.preventDefault();
    let req;
    try {
      req = addRequest(addCount.value, addMode.value, addLabels.value, addState);
    } catch (err) {
      showError(err.message);
      return;
    }
    addBtn.disabled = true;
    await act('adding sandboxes', async () => {
      const created = await call('POST', paths.workshops, req);
      addLabels.value = '';
      showNotice(h('span', {}, `Added ${(created.sandboxes || []).length} sandboxes. Give each attendee their link or kubeconfig: `, h('em', {}, 'Attendee sheet'), ' or ', h('em', {}, 'Download kubeconfigs'), '.'));
    });
    addBtn.disabled = false;
    refreshNow();
  }

  function onOpen(r) {
    // The playground page on this sandbox, read-only: the new tab starts
    // with a copy of this tab's sessionStorage, the token included; the link
    // carries the sandbox's id only.
    window.open(readOnlyLink(location.origin, r.id), `kubeplay-${r.id}`);
  }

  async function onNewToken(r) {
    if (!confirm(`Issue a new token for ${r.label}? Their current token, kubeconfig and link stop working at once.`)) return;
    await act('new token', async () => {
      const t = await call('POST', paths.token(r.id));
      showNotice(
        h('strong', {}, `New token for ${r.label}. `), 'Their old token is refused from now on. Give them:',
        h('div', { class: 'row wrap' },
          h('a', { href: t.playground, target: '_blank', rel: 'noopener noreferrer', class: 'mono' }, 'the playground link'),
          h('button', { type: 'button', class: 'small', on: { click: () => copyText(t.playground) } }, 'Copy link'),
          h('button', { type: 'button', class: 'small', on: { click: () => copyText(t.kubeconfig) } }, 'Copy kubeconfig'),
          h('button', { type: 'button', class: 'small', on: { click: () => download(`kubeconfig-${r.label}.yaml`, new Blob([t.kubeconfig], { type: 'application/yaml' })) } }, 'Download kubeconfig'),
        ),
      );
    });
    refreshNow();
  }

  async function onReset(r) {
    if (!confirm(`Reset ${r.label}'s sandbox? Every object in it is deleted; its token stays.`)) return;
    await act('reset', () => call('POST', paths.reset(r.id)));
    refreshNow();
  }

  async function onRemove(r) {
    if (!confirm(`Remove ${r.label}'s sandbox? It is deleted with everything in it; its token stops working.`)) return;
    await act('remove', () => call('DELETE', paths.sandbox(r.id)));
    refreshNow();
  }

  async function onDownload() {
    await act('download', async () => {
      const files = kubeconfigFiles(await call('GET', paths.credentials));
      if (!files.length) throw new Error('there are no sandboxes');
      download('kubeplay-kubeconfigs.zip', new Blob([zip(files)], { type: 'application/zip' }));
    });
  }

  async function onSheet() {
    await act('attendee sheet', async () => {
      const blocks = sheetBlocks(await call('GET', paths.credentials));
      mount(
        sheet,
        h('div', { class: 'row no-print' },
          h('h2', { class: 'grow' }, `Attendee sheet (${blocks.length})`),
          h('button', { type: 'button', class: 'primary', testid: 'instructor-print', on: { click: () => window.print() } }, 'Print'),
          h('button', { type: 'button', on: { click: () => { sheet.hidden = true; sheet.replaceChildren(); } } }, 'Close'),
        ),
        h('p', { class: 'muted no-print' }, 'One block per attendee, cut apart after printing: each block holds that attendee\'s token only.'),
        blocks.map((b) => h(
          'article',
          { class: 'sheet-attendee', testid: 'sheet-attendee', dataset: { label: b.label } },
          h('h3', {}, b.label),
          h('div', {}, 'Playground: ', h('span', { class: 'mono sheet-link' }, b.playground)),
          h('div', { class: 'muted' }, 'kubectl:'),
          h('pre', { class: 'sheet-lines' }, b.lines.join('\n')),
        )),
      );
      sheet.hidden = false;
      sheet.scrollIntoView({ block: 'start' });
    });
  }

  function download(name, blob) {
    const url = URL.createObjectURL(blob);
    const a = h('a', { href: url, download: name, hidden: true });
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }

  function showError(msg) {
    mount(pageError, h('strong', {}, 'Error: '), msg, h('button', { type: 'button', class: 'icon', on: { click: () => { pageError.hidden = true; } } }, '×'));
    pageError.hidden = false;
  }

  function showNotice(...children) {
    mount(notice, ...children, h('button', { type: 'button', class: 'icon', on: { click: () => { notice.hidden = true; } } }, '×'));
    notice.hidden = false;
  }

  // ---- the token -----------------------------------------------------------------------
  function onLogin(e) {
    e.preventDefault();
    const t = tokenInput.value.trim();
    if (!t) return;
    tokenInput.value = '';
    token = t;
    try { sessionStorage.setItem(TOKEN_KEY, t); } catch { /* the token lasts for this page only */ }
    loginError.hidden = true;
    show();
  }

  function onSignOut() {
    signOut('');
  }

  function signOut(reason) {
    token = '';
    try { sessionStorage.removeItem(TOKEN_KEY); } catch { /* nothing kept */ }
    clearTimeout(timer);
    timer = null;
    last = null;
    rowsById.clear();
    body.replaceChildren();
    sheet.hidden = true;
    sheet.replaceChildren();
    loginError.textContent = reason;
    loginError.hidden = !reason;
    show();
  }

  function show() {
    login.hidden = !!token;
    workspace.hidden = !token;
    signout.hidden = !token;
    status.hidden = !token;
    if (token) refreshNow();
    else tokenInput.focus();
  }

  // Relative times move on between polls too.
  setInterval(() => { if (last && Date.now() - lastAt > 900) render(); }, 1000);
  show();
  window.kubeplayInstructor = { refresh: refreshNow };
}

function readToken() {
  try {
    return sessionStorage.getItem(TOKEN_KEY) || '';
  } catch {
    return '';
  }
}

try {
  main();
} catch (err) {
  console.error(err);
  const box = document.getElementById('boot') || document.body.appendChild(document.createElement('div'));
  box.className = 'banner error';
  box.textContent = `The instructor page failed to start: ${err && err.message ? err.message : err}`;
}
