// progress.js — what the learner has done, for the start page (LEARN-3):
// tutorials finished and exercise parts ticked, kept in localStorage per
// target (the in-browser sandbox, the native server, a remote URL), since
// each holds its own objects. Also the last view opened.
//
// On a workshop's sandbox (a remote target at a host's /s/{id}) the page
// also tells the host how far the learner got, for the instructor's view
// (WORK-2): PUT /s/{id}/kubeplay/progress with the tutorial open, the step
// on of how many, and the exercises begun (true: every part ticked), once
// it changes (internal/control's Progress).

import { apiFetch, currentTarget } from './api.js';

const EXERCISE = 'kubeplay.exercise.';
const EXERCISE_DONE = 'kubeplay.exerciseDone.';
const FINISHED = 'kubeplay.finished.';
const TUTORIAL_AT = 'kubeplay.tutorialAt.';
const VIEW = 'kubeplay.view';
const PROGRESS_PATH = '/kubeplay/progress';
// A workshop sandbox's API: its host's /s/{id} (internal/control's SandboxServer).
const WORKSHOP_SANDBOX = /\/s\/[A-Za-z0-9]+\/?$/;

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

/**
 * Records the parts of exercise id ticked now on the current target, and
 * whether that is every part (done).
 */
export function saveExerciseTicks(id, ticks, done) {
  const all = read(EXERCISE + targetKey()) || {};
  all[id] = ticks;
  write(EXERCISE + targetKey(), all);
  const finished = read(EXERCISE_DONE + targetKey()) || {};
  finished[id] = !!done;
  write(EXERCISE_DONE + targetKey(), finished);
  reportProgress();
}

/** Records that the learner is on step (from 1) of steps of tutorial id. */
export function saveTutorialStep(id, step, steps) {
  write(TUTORIAL_AT + targetKey(), { id, step, steps });
  reportProgress();
}

/**
 * The progress record on the current target, as the instructor's view
 * reads it: {tutorial, step, steps, exercises}.
 */
export function progressRecord() {
  const at = read(TUTORIAL_AT + targetKey());
  const ok = at && typeof at.id === 'string' && Number.isInteger(at.steps) && Number.isInteger(at.step) && at.step >= 0 && at.step <= at.steps;
  const exercises = {};
  for (const [id, done] of Object.entries(read(EXERCISE_DONE + targetKey()) || {})) exercises[id] = done === true;
  return { tutorial: ok ? at.id : '', step: ok ? at.step : 0, steps: ok ? at.steps : 0, exercises };
}

/** Whether target is a workshop host's sandbox, to which progress is reported. */
export function reportsProgress(t = currentTarget()) {
  return t.kind === 'remote' && !t.readOnly && WORKSHOP_SANDBOX.test(t.url || '');
}

// The last record each target's host accepted (JSON text), and the timer
// that sends the next.
const sent = new Map();
let pending = null;

/**
 * Tells a workshop's host the current target's progress soon (changes in
 * quick succession go as one), unless it already has it. A host that
 * refuses it (an older kubeplay) is not asked again with the same record.
 */
export function reportProgress() {
  const target = currentTarget();
  if (!reportsProgress(target)) return;
  clearTimeout(pending);
  pending = setTimeout(async () => {
    const body = JSON.stringify(progressRecord());
    const key = targetKey(target);
    if (sent.get(key) === body) return;
    sent.set(key, body);
    try {
      const res = await apiFetch(PROGRESS_PATH, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body }, target);
      if (!res.ok) console.warn(`kubeplay: the workshop host did not take the progress: HTTP ${res.status}`);
    } catch (err) {
      sent.delete(key);
      console.warn('kubeplay: the progress could not be sent:', err.message || err);
    }
  }, 300);
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
    localStorage.removeItem(EXERCISE_DONE + targetKey());
    localStorage.removeItem(FINISHED + targetKey());
    localStorage.removeItem(TUTORIAL_AT + targetKey());
  } catch {
    // a convenience
  }
  reportProgress();
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
