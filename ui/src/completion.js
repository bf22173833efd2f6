// completion.js — a small dropdown of suggestions under a text input.
// attachCompletion(input, provider): provider(text) → Promise<[{path, detail}]>.
// Arrow keys move, Enter or Tab accept, Escape closes; clicking accepts.

import { h } from './dom.js';

export function attachCompletion(input, provider, { onAccept } = {}) {
  const wrap = input.parentElement;
  wrap.classList.add('completion-wrap');
  const list = h('ul', { class: 'completion', role: 'listbox', hidden: true, testid: `${input.dataset.testid || 'input'}-completions` });
  wrap.appendChild(list);
  let items = [];
  let active = -1;
  let seq = 0;

  function close() {
    list.hidden = true;
    items = [];
    active = -1;
  }

  function render() {
    list.replaceChildren(
      ...items.map((it, i) =>
        h(
          'li',
          {
            class: i === active ? 'active' : '',
            role: 'option',
            on: {
              mousedown: (e) => {
                e.preventDefault();
                accept(i);
              },
            },
          },
          h('span', { class: 'c-path' }, it.path),
          it.detail ? h('span', { class: 'c-detail' }, it.detail) : null,
        ),
      ),
    );
    list.hidden = items.length === 0;
    const el = list.children[active];
    if (el) el.scrollIntoView({ block: 'nearest' });
  }

  function accept(i) {
    const it = items[i];
    if (!it) return;
    const q = input.value.indexOf('?');
    input.value = it.path + (q >= 0 ? input.value.slice(q) : '');
    input.dispatchEvent(new Event('input', { bubbles: true }));
    close();
    if (onAccept) onAccept(it);
    // Offer what comes next (names below a collection).
    if (document.activeElement === input) refresh();
  }

  async function refresh() {
    const my = ++seq;
    let got = [];
    try {
      got = await provider(input.value);
    } catch {
      got = [];
    }
    if (my !== seq || document.activeElement !== input) return;
    items = got.filter((c) => c.path !== input.value.split('?')[0]);
    active = -1;
    render();
  }

  input.setAttribute('autocomplete', 'off');
  input.addEventListener('input', (e) => {
    if (e.isTrusted || e.inputType) refresh();
  });
  input.addEventListener('focus', refresh);
  input.addEventListener('blur', () => setTimeout(close, 100));
  input.addEventListener('keydown', (e) => {
    if (list.hidden) {
      if (e.key === 'ArrowDown') refresh();
      return;
    }
    if (e.key === 'ArrowDown') {
      active = Math.min(items.length - 1, active + 1);
      render();
      e.preventDefault();
    } else if (e.key === 'ArrowUp') {
      active = Math.max(-1, active - 1);
      render();
      e.preventDefault();
    } else if ((e.key === 'Enter' || e.key === 'Tab') && active >= 0) {
      accept(active);
      e.preventDefault();
    } else if (e.key === 'Escape') {
      close();
    }
  });
  return { close, refresh };
}
