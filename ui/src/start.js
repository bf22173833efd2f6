// start.js — the start page (LEARN-3): a welcome, then the tracks
// (tutorials/tracks.json) with their level, time and progress, each listing
// its tutorials and exercises. It reads only static files, so it is
// interactive before the sandbox has started.

import { h, mount } from './dom.js';
import { exerciseTicks, tutorialFinished } from './progress.js';

export function createStartPage({ onOpenTutorial, onOpenExercise }) {
  const tracksEl = h('div', { class: 'tracks', testid: 'tracks' }, h('p', { class: 'muted' }, 'Loading the tracks…'));
  const el = h(
    'section',
    { class: 'start', testid: 'start-page' },
    h(
      'div',
      { class: 'welcome panel' },
      h('h1', {}, 'Welcome to kubeplay'),
      h('p', { testid: 'welcome' }, 'kubeplay is a Kubernetes API server, with API Priority and Fairness, xDS and a simulated cluster, running entirely in your browser: nothing to install, and your objects stay on your machine. Follow a track below to learn by doing: tutorials walk you through the API request by request, and exercises check what you build yourself, whichever way you build it.'),
    ),
    tracksEl,
  );
  let data = null; // {tracks, tutorials: {id: meta}, exercises: {id: exercise}}

  async function load() {
    try {
      const get = async (p) => {
        const r = await fetch(p, { cache: 'no-cache' });
        if (!r.ok) throw new Error(`${p}: HTTP ${r.status}`);
        return r.json();
      };
      const [tracks, index] = await Promise.all([get('/tutorials/tracks.json'), get('/tutorials/index.json')]);
      const ids = tracks.flatMap((t) => t.exercises);
      const exercises = await Promise.all(ids.map((id) => get(`/tutorials/exercises/${id}.json`)));
      data = { tracks, tutorials: Object.fromEntries(index.map((t) => [t.id, t])), exercises: Object.fromEntries(exercises.map((e) => [e.id, e])) };
    } catch (e) {
      mount(tracksEl, h('p', { class: 'status-error' }, `The tracks could not be loaded: ${e.message}`));
      return;
    }
    render();
    // The start page is usable from here (make bench-browser reads the mark).
    if (!performance.getEntriesByName('kubeplay:start-interactive').length) performance.mark('kubeplay:start-interactive');
  }

  function render() {
    if (!data) return;
    mount(
      tracksEl,
      data.tracks.map((tr) => {
        const tutDone = tr.tutorials.filter(tutorialFinished).length;
        let parts = 0;
        let ticked = 0;
        for (const id of tr.exercises) {
          const ticks = exerciseTicks(id);
          parts += data.exercises[id].parts.length;
          ticked += data.exercises[id].parts.filter((p) => ticks[p.id]).length;
        }
        const total = tr.tutorials.length + parts;
        return h(
          'article',
          { class: 'track panel', testid: 'track', dataset: { id: tr.id } },
          h('header', {}, h('h2', {}, tr.title), h('span', { class: `badge level-${tr.level}` }, tr.level), h('span', { class: 'muted' }, ` · about ${tr.minutes} min`)),
          h('p', { class: 'muted' }, tr.summary),
          h(
            'div',
            { class: 'track-progress', testid: 'track-progress' },
            h('progress', { max: total || 1, value: tutDone + ticked }),
            ` ${tutDone} of ${tr.tutorials.length} tutorials finished · ${ticked} of ${parts} exercise parts done`,
          ),
          tr.tutorials.length
            ? h('div', {}, h('strong', {}, 'Tutorials'), h('ol', {}, tr.tutorials.map((id) => h('li', {}, h('button', { type: 'button', class: 'link', testid: 'start-tutorial', dataset: { id }, on: { click: () => onOpenTutorial(id) } }, data.tutorials[id].title), tutorialFinished(id) ? ' ✔' : ''))))
            : null,
          tr.exercises.length
            ? h(
                'div',
                {},
                h('strong', {}, 'Exercises'),
                h(
                  'ol',
                  {},
                  tr.exercises.map((id) => {
                    const ex = data.exercises[id];
                    const ticks = exerciseTicks(id);
                    const n = ex.parts.filter((p) => ticks[p.id]).length;
                    return h('li', {}, h('button', { type: 'button', class: 'link', testid: 'start-exercise', dataset: { id }, on: { click: () => onOpenExercise(id) } }, ex.title), h('span', { class: 'muted', testid: 'start-exercise-progress', dataset: { id } }, ` ${n}/${ex.parts.length}${n === ex.parts.length ? ' ✔' : ''}`));
                  }),
                ),
              )
            : h('p', { class: 'muted small' }, 'Exercises for this track are coming.'),
        );
      }),
    );
  }

  load();
  return { el, refresh: render };
}
