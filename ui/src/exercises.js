// exercises.js — the exercise view (LEARN-2): an exercise's goal as parts
// ticked live by the checker (exercise.js) as the learner reaches them, by
// any client (builder, YAML, terminal); what is missing under each open
// part; hints revealed one at a time; a revealable solution (kubectl lines,
// each of which the terminal beside can take at its prompt, and requests the
// builder opens). Ticks are kept per target (progress.js).

import { h, mount } from './dom.js';
import { apiFetch, currentTarget } from './api.js';
import { ExerciseChecker } from './exercise.js';
import { renderNarration, stepToSpec } from './tutorials.js';
import { saveExerciseTicks } from './progress.js';

export function createExerciseView({ onOpenInBuilder, onProgress, onTypeKubectl = null }) {
  const el = h('section', { class: 'exercise panel', testid: 'exercise-view' }, h('p', { class: 'muted' }, 'Choose an exercise on the start page.'));
  let current = null; // {ex, checker, shown (hints revealed), solutionOpen}

  async function open(id) {
    if (current && current.ex.id === id) return;
    close();
    mount(el, h('p', { class: 'muted' }, 'Loading the exercise…'));
    let ex;
    try {
      const res = await fetch(`/tutorials/exercises/${encodeURIComponent(id)}.json`, { cache: 'no-cache' });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      ex = await res.json();
    } catch (e) {
      mount(el, h('div', { class: 'status-error', testid: 'exercise-error' }, `No exercise ${id}: ${e.message}`));
      return;
    }
    const target = currentTarget();
    current = { ex, shown: 0, solutionOpen: false, checker: null };
    const mine = current;
    current.checker = new ExerciseChecker(ex, (path, init) => apiFetch(path, init, target), {
      onChange: (s) => {
        if (current !== mine) return;
        if (s.synced) {
          saveExerciseTicks(ex.id, Object.fromEntries(s.parts.filter((p) => p.ok).map((p) => [p.id, true])), s.parts.every((p) => p.ok));
          onProgress();
        }
        render();
      },
    }).start();
    render();
  }

  function close() {
    if (current) current.checker.stop();
    current = null;
  }

  function render() {
    const { ex, checker } = current;
    const s = checker.state();
    const hints = ex.hints || [];
    mount(
      el,
      h('header', { class: 'tut-head' }, h('h2', { testid: 'exercise-title' }, ex.title), h('p', { class: 'muted' }, ex.summary)),
      h('div', { class: 'narration exercise-goal' }, renderNarration(ex.goal)),
      ex.cluster === 'simulated' ? h('p', { class: 'muted small' }, 'This exercise needs the simulated cluster (the header\u2019s cluster mode) so that Pods run and become ready.') : null,
      h(
        'ul',
        { class: 'expectations exercise-parts', testid: 'exercise-parts' },
        s.parts.map((p) =>
          h(
            'li',
            { class: p.ok ? 'pass' : 'fail', testid: 'exercise-part', dataset: { id: p.id, ok: String(p.ok) } },
            h('span', { class: 'mark' }, p.ok ? '✔' : '○'),
            ' ',
            h('span', {}, Array.from(renderNarration(p.text)[0].childNodes)),
            !p.ok && s.synced ? h('div', { class: 'fail-detail', testid: 'exercise-missing' }, p.message) : null,
          ),
        ),
      ),
      s.done && s.synced ? h('div', { class: 'tut-done', testid: 'exercise-complete' }, 'Done: every part holds.') : null,
      !s.done && s.synced && s.hint ? h('div', { class: 'hint', testid: 'exercise-suggested-hint' }, h('strong', {}, 'Hint: '), s.hint) : null,
      h('p', { class: 'muted small' }, 'Work the way you like: the Request tab\u2019s builder, a YAML body, or any other client on this target. The parts tick as the API shows them.'),
      h(
        'div',
        { class: 'exercise-hints' },
        h('ol', { testid: 'exercise-hints' }, hints.slice(0, current.shown).map((x) => h('li', {}, x.text))),
        current.shown < hints.length
          ? h('button', { type: 'button', testid: 'exercise-more-hint', on: { click: () => { current.shown++; render(); } } }, current.shown ? 'Another hint' : 'Show a hint')
          : null,
      ),
      h(
        'details',
        // Open stays open across the re-renders of live ticks.
        { class: 'exercise-solution', testid: 'exercise-solution', open: current.solutionOpen, on: { toggle: (e) => { current.solutionOpen = e.target.open; } } },
        h('summary', {}, 'Show the solution'),
        h('p', {}, 'With kubectl:'),
        h('pre', { class: 'code-view small', testid: 'exercise-solution-kubectl' }, ex.solution.kubectl.join('\n')),
        onTypeKubectl
          ? h('div', { class: 'row exercise-type' }, ex.solution.kubectl.map((line, i) =>
              h('button', { type: 'button', testid: 'exercise-type', title: `Put this at the terminal's prompt:\n${line}`, on: { click: () => onTypeKubectl(line) } }, `Type line ${i + 1} in the terminal`)))
          : null,
        h('p', {}, 'As requests:'),
        h(
          'ol',
          {},
          ex.solution.steps.map((st) =>
            h(
              'li',
              {},
              h('strong', {}, st.title),
              ' ',
              h('code', {}, `${st.request.method} ${st.request.path}`),
              ' ',
              h('button', { type: 'button', class: 'small', on: { click: () => onOpenInBuilder(stepToSpec(st, {}, 'default')) } }, 'Open in builder'),
            ),
          ),
        ),
      ),
    );
  }

  /** After a reset or a change of target: follow the new state. */
  function refresh() {
    if (!current) return;
    const id = current.ex.id;
    close();
    open(id);
  }

  return { el, open, refresh, state: () => (current ? current.checker.state() : null) };
}
