// exercises.js — the exercise view (LEARN-2): an exercise's goal as parts
// ticked live by the checker (exercise.js) as the learner reaches them, by
// any client (builder, YAML, terminal); what is missing under each open
// part; hints revealed one at a time; a revealable solution (kubectl lines,
// each of which the terminal beside can take at its prompt, and requests the
// builder opens). Ticks are kept per target (progress.js). An exercise may
// start from a shared state (LEARN-6: a share document in tutorials/states/):
// "Start from it" starts the in-browser sandbox again and takes the state's
// objects in (on another target it writes them over what has their names).

import { h, mount } from './dom.js';
import { apiFetch, currentTarget } from './api.js';
import { ExerciseChecker } from './exercise.js';
import { renderNarration, stepToSpec } from './tutorials.js';
import { saveExerciseTicks } from './progress.js';
import { shareSummary, takeShare } from './share.js';

export function createExerciseView({ onOpenInBuilder, onProgress, onTypeKubectl = null, onResetSandbox = null, onStateTaken = null }) {
  const el = h('section', { class: 'exercise panel', testid: 'exercise-view' }, h('p', { class: 'muted' }, 'Choose an exercise on the start page.'));
  let current = null; // {ex, checker, shown (hints revealed), solutionOpen, state, stateSummary, stateNote, stateDone}
  let taken = null; // {id, message}: the state an exercise just started from, said once it opens again

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
    current = { ex, shown: 0, solutionOpen: false, checker: null, state: null, stateNote: '', stateDone: taken && taken.id === id ? taken.message : '' };
    taken = null;
    if (ex.state) {
      try {
        const res = await fetch(`/tutorials/states/${encodeURIComponent(ex.state)}`, { cache: 'no-cache' });
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
        current.state = new Uint8Array(await res.arrayBuffer());
        current.stateSummary = shareSummary(JSON.parse(new TextDecoder().decode(current.state)));
      } catch (e) {
        current.stateNote = `its state could not be read: ${e.message}`;
      }
    }
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
      ex.state ? renderState() : null,
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

  // renderState offers the exercise's starting state.
  function renderState() {
    const onSandbox = currentTarget().kind === 'sandbox';
    return h(
      'div',
      { class: 'banner info exercise-state', testid: 'exercise-state', dataset: { state: current.stateNote ? 'error' : current.stateDone ? 'taken' : 'offered' } },
      h('strong', {}, 'This exercise starts from a prepared state'),
      current.stateSummary ? ` (${current.stateSummary})` : '',
      '. ',
      current.stateNote || (current.stateDone
        ? h('span', { testid: 'exercise-state-done' }, current.stateDone)
        : h('button', { type: 'button', class: 'primary small', testid: 'exercise-state-start', disabled: !current.state, on: { click: startFromState } },
          onSandbox ? 'Start my sandbox from it' : 'Write its objects into this target')),
    );
  }

  async function startFromState() {
    const mine = current;
    const onSandbox = currentTarget().kind === 'sandbox';
    const what = onSandbox
      ? 'Start the in-browser sandbox again from the exercise\u2019s state? What it holds now is replaced.'
      : 'Write the exercise\u2019s objects into this target? Objects of the same names are replaced.';
    if (!confirm(what)) return;
    try {
      if (onSandbox && onResetSandbox) await onResetSandbox();
      const done = await takeShare(mine.state, currentTarget());
      mine.stateDone = `Started from it: ${done.objects} objects written, at revision ${done.revision}.`;
      taken = { id: mine.ex.id, message: mine.stateDone };
      if (onStateTaken) onStateTaken(); // the views follow the sandbox again, this one too
    } catch (e) {
      mine.stateNote = `it could not be taken in: ${e.message}`;
    }
    if (current === mine) render();
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
