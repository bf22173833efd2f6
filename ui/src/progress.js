// progress.js — what the learner has done, for the start page (LEARN-3):
// tutorials finished and exercise parts ticked, kept in localStorage per
// target (the in-browser sandbox, the native server, a remote URL), since
// each holds its own objects. Also the last view opened.

import { currentTarget } from './api.js';

const EXERCISE = 'kubeplay.exercise.';
const FINISHED = 'kubeplay.finished.';
const VIEW = 'kubeplay.view';

function targetKey(t = currentTarget()) {
  return t.kind === 'remote' ? `remote:${t.url}` : t.kind;
}

function read(key) {
  try {
    const v = JSON.parse(localStorage.getItem(key) || 'null');
    return v && typeof v === 'object' ? v : null;
  } catch {
    return null;
  }
}

function write(key, v) {
  try {
    localStorage.setItem(key, JSON.stringify(v));
  } catch {
    // progress is a convenience
  }
}

/** The parts of exercise id ticked on the current target: {partId: true}. */
export function exerciseTicks(id) {
  return (read(EXERCISE + targetKey()) || {})[id] || {};
}

/** Records the parts of exercise id ticked now on the current target. */
export function saveExerciseTicks(id, ticks) {
  const all = read(EXERCISE + targetKey()) || {};
  all[id] = ticks;
  write(EXERCISE + targetKey(), all);
}

/** Whether tutorial id was played through (every step passed) on the current target. */
export function tutorialFinished(id) {
  return !!(read(FINISHED + targetKey()) || {})[id];
}

/** Records that tutorial id was played through on the current target. */
export function markTutorialFinished(id) {
  const all = read(FINISHED + targetKey()) || {};
  all[id] = true;
  write(FINISHED + targetKey(), all);
}

/** Forgets the progress on the current target (its sandbox was reset). */
export function forgetProgress() {
  try {
    localStorage.removeItem(EXERCISE + targetKey());
    localStorage.removeItem(FINISHED + targetKey());
  } catch {
    // a convenience
  }
}

/** The last view shown ("request", "exercise/<id>", ...), or null on a first visit. */
export function lastView() {
  try {
    return localStorage.getItem(VIEW);
  } catch {
    return null;
  }
}

export function saveView(v) {
  try {
    localStorage.setItem(VIEW, v);
  } catch {
    // a convenience
  }
}
