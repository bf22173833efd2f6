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
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';

import { runStep } from '../ui/src/tutorial-runner.js';

// A watch step that neither delivers its events nor ends fails after this
// long (every tutorial's watch sets a shorter timeoutSeconds).
const WATCH_TIMEOUT_MS = 20000;

async function replay({ base, file, runs }) {
  const tutorial = JSON.parse(await readFile(file, 'utf8'));
  const fetchFn = (path, init) => fetch(base + path, init);
  for (let run = 1; run <= runs; run++) {
    let vars = {};
    for (const [i, step] of tutorial.steps.entries()) {
      const res = await runStep(step, vars, fetchFn, { watchTimeoutMs: WATCH_TIMEOUT_MS });
      if (!res.ok) {
        return { ok: false, run, step: i + 1, title: step.title, failures: res.failures, status: res.status, body: res.bodyText.slice(0, 2000) };
      }
      vars = res.vars;
    }
  }
  return { ok: true };
}

const answered = [];
for await (const line of createInterface({ input: process.stdin })) {
  const request = JSON.parse(line);
  answered.push(replay(request)
    .catch((err) => ({ ok: false, failures: [`replay.mjs: ${err && err.stack || err}`] }))
    .then((res) => process.stdout.write(JSON.stringify({ id: request.id, ...res }) + '\n')));
}
await Promise.all(answered);
// Idle keep-alive connections would hold the process open a few seconds more.
process.exit(0);
