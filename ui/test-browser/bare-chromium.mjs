// Chromium driven over the DevTools protocol with nothing attached to its
// service workers. playwright-core attaches to every worker, and Chrome never
// stops a worker that DevTools is attached to for idleness, so a test of a
// worker's lifetime drives the browser itself: pages only, over
// --remote-debugging-pipe (JSON messages ending in NUL on fds 3 and 4).
import { spawn } from 'node:child_process';

/**
 * launchBare starts headless Chromium; returns {newContext(), close()}. A
 * context has its own storage and service workers (context.close() disposes
 * of it); context.newPage(url) opens a tab, whose evaluate(fn, arg) runs
 * fn(arg) in the page and resolves with its (JSON) result, send(method,
 * params) sends the tab a DevTools command, and close() closes it.
 */
export async function launchBare({ executablePath, userDataDir, args = [] }) {
  const proc = spawn(executablePath, ['--headless', '--remote-debugging-pipe', `--user-data-dir=${userDataDir}`,
    '--no-first-run', '--no-default-browser-check', ...args, 'about:blank'], { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (d) => { stderr += d; });
  const pending = new Map();
  let nextId = 0;
  let buf = '';
  proc.stdio[4].on('data', (d) => {
    buf += d;
    let end;
    while ((end = buf.indexOf('\0')) >= 0) {
      const msg = JSON.parse(buf.slice(0, end));
      buf = buf.slice(end + 1);
      const call = pending.get(msg.id);
      if (!call) continue;
      pending.delete(msg.id);
      if (msg.error) call.reject(new Error(`${call.method}: ${msg.error.message}`));
      else call.resolve(msg.result);
    }
  });
  proc.on('exit', () => {
    for (const call of pending.values()) call.reject(new Error(`Chromium exited during ${call.method}:\n${stderr}`));
    pending.clear();
  });
  const send = (method, params = {}, sessionId = undefined) => new Promise((resolve, reject) => {
    const id = ++nextId;
    pending.set(id, { method, resolve, reject });
    proc.stdio[3].write(JSON.stringify({ id, method, params, sessionId }) + '\0');
  });
  await send('Browser.getVersion');

  return {
    async newContext() {
      const { browserContextId } = await send('Target.createBrowserContext');
      return {
        close: () => send('Target.disposeBrowserContext', { browserContextId }),
        async newPage(url) {
          const { targetId } = await send('Target.createTarget', { url, browserContextId });
          const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true });
          return {
            async evaluate(fn, arg) {
              const { result, exceptionDetails } = await send('Runtime.evaluate', {
                expression: `(${fn})(${JSON.stringify(arg)})`, awaitPromise: true, returnByValue: true,
              }, sessionId);
              if (exceptionDetails) throw new Error(exceptionDetails.exception?.description || exceptionDetails.text);
              return result.value;
            },
            send: (method, params) => send(method, params, sessionId),
            close: () => send('Target.closeTarget', { targetId }),
          };
        },
      };
    },
    async close() {
      await send('Browser.close').catch(() => {});
      if (proc.exitCode === null) await new Promise((resolve) => proc.once('exit', resolve));
    },
  };
}
