// Replays tutorials with the player's own runner (ui/src/tutorial-runner.js)
// for tutorials_test.go, which starts the servers and this one process:
//
//   node replay.mjs
//
// reads one request per line on stdin, {"id", "base", "file", "runs"}, plays
// the tutorial in file runs times in a row against the server at base, and
// answers each as it finishes with one line on stdout: {"id", "ok": true}, or
// the first step that failed: {"id", "ok": false, "run", "step" (from 1),
// "title", "failures", "status", "body"}. It exits when stdin ends.
//
// A request {"id", "base", "exercise", "attempt"} plays an exercise
// instead: its solution (attempt -1), the solution's kubectl lines (-2) or
// its wrong attempt number attempt (from 0), with the page's checker (ui/src/exercise.js) following the API,
// and answers {"id", "ok"} once the checker reports what the attempt
// expects (every part ticked for the solution; the attempt's ticked and
// unticked parts, messages and hint for a wrong one), or {"id", "ok":
// false, "failures", "state"} with the checker's last state when it does not
// within EXERCISE_TIMEOUT_MS.
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';

import { runStep } from '../ui/src/tutorial-runner.js';
import { ExerciseChecker } from '../ui/src/exercise.js';
import { kubectlArgs, parseLine } from '../ui/src/terminalmodel.js';

// kubectlFor is a kubectl step's kubectl for the sandbox at base: the line
// split into words as the page's terminal splits it, run by the page's
// kubectl (core/kubectl) in tutorials_test.go, at KUBEPLAY_KUBECTL.
function kubectlFor(base) {
  return async (line) => {
    const { words, pipe, stdin, incomplete } = parseLine(line);
    if (incomplete) throw new Error(`the command line is not complete (an open quote, pipe or heredoc): ${line}`);
    const commands = [words, ...pipe].map((w) => {
      const { args, hint } = kubectlArgs(w);
      if (!args) throw new Error(hint || 'an empty command');
      return args;
    });
    const res = await fetch(process.env.KUBEPLAY_KUBECTL, { method: 'POST', body: JSON.stringify({ base, commands, stdin }) });
    if (!res.ok) throw new Error(`kubectl service: HTTP ${res.status}: ${await res.text()}`);
    return res.json();
  };
}

// A watch step that neither delivers its events nor ends fails after this
// long (every tutorial's watch sets a shorter timeoutSeconds).
const WATCH_TIMEOUT_MS = 20000;

async function replay({ base, file, runs }) {
  const tutorial = JSON.parse(await readFile(file, 'utf8'));
  const fetchFn = (path, init) => fetch(base + path, init);
  const kubectl = kubectlFor(base);
  for (let run = 1; run <= runs; run++) {
    let vars = {};
    for (const [i, step] of tutorial.steps.entries()) {
      const res = await runStep(step, vars, fetchFn, { watchTimeoutMs: WATCH_TIMEOUT_MS, kubectl });
      if (!res.ok) {
        return { ok: false, run, step: i + 1, title: step.title, failures: res.failures, status: res.status, body: res.bodyText.slice(0, 2000) };
      }
      vars = res.vars;
    }
  }
  return { ok: true };
}

// How long an exercise's checker may take to see what an attempt expects
// (Pods becoming ready in the simulated cluster).
const EXERCISE_TIMEOUT_MS = 60000;

// attemptMet says whether the checker's state is what the attempt expects,
// and if not, why.
function attemptMet(state, attempt) {
  const why = [];
  const byId = Object.fromEntries(state.parts.map((p) => [p.id, p]));
  if (!attempt) {
    for (const p of state.parts) if (!p.ok) why.push(`part ${p.id} not ticked: ${p.message}`);
    return why;
  }
  for (const id of attempt.ticked || []) if (!byId[id].ok) why.push(`part ${id} not ticked: ${byId[id].message}`);
  for (const [id, msg] of Object.entries(attempt.unticked)) {
    if (byId[id].ok) why.push(`part ${id} ticked, want unticked`);
    else if (byId[id].message !== msg) why.push(`part ${id}: message ${JSON.stringify(byId[id].message)}, want ${JSON.stringify(msg)}`);
  }
  if (state.hint !== attempt.hint) why.push(`hint ${JSON.stringify(state.hint)}, want ${JSON.stringify(attempt.hint)}`);
  return why;
}

async function playExercise({ base, exercise: file, attempt: n }) {
  const exercise = JSON.parse(await readFile(file, 'utf8'));
  const attempt = n < 0 ? null : exercise.wrong[n];
  // Attempt -2 is the solution's kubectl lines, as typed in the terminal.
  const typed = exercise.solution.kubectl.map((line) => ({ title: line, kubectl: line, expect: { exit: 0 } }));
  const steps = attempt ? attempt.steps : n === -2 ? typed : exercise.solution.steps;
  const fetchFn = (path, init) => fetch(base + path, init);
  if (exercise.state) {
    // It starts from a shared state, as the page's "Start from it" does.
    const state = await readFile(join(dirname(file), '..', 'states', exercise.state), 'utf8');
    const res = await fetchFn('/debug/kubeplay/share', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: state });
    if (!res.ok) return { ok: false, failures: [`the exercise's state: ${res.status} ${await res.text()}`] };
  }
  const kubectl = kubectlFor(base);
  const checker = new ExerciseChecker(exercise, fetchFn).start();
  try {
    await checker.until((s) => s.synced);
    let vars = {};
    for (const [i, step] of steps.entries()) {
      const res = await runStep(step, vars, fetchFn, { kubectl });
      if (!res.ok) return { ok: false, step: i + 1, title: step.title, failures: res.failures, status: res.status, body: res.bodyText.slice(0, 2000) };
      vars = res.vars;
    }
    let timer;
    const timeout = new Promise((resolve) => { timer = setTimeout(resolve, EXERCISE_TIMEOUT_MS); });
    await Promise.race([checker.until((s) => s.synced && attemptMet(s, attempt).length === 0), timeout]);
    clearTimeout(timer);
    const state = checker.state();
    const why = attemptMet(state, attempt);
    return why.length ? { ok: false, failures: why, state } : { ok: true };
  } finally {
    checker.stop();
  }
}

const answered = [];
for await (const line of createInterface({ input: process.stdin })) {
  const request = JSON.parse(line);
  answered.push((request.exercise ? playExercise(request) : replay(request))
    .catch((err) => ({ ok: false, failures: [`replay.mjs: ${err && err.stack || err}`] }))
    .then((res) => process.stdout.write(JSON.stringify({ id: request.id, ...res }) + '\n')));
}
await Promise.all(answered);
// Idle keep-alive connections would hold the process open a few seconds more.
process.exit(0);
