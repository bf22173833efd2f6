// Unit tests of the kubectl terminal's model (terminalmodel.js, LEARN-1):
// words as a shell splits them, heredocs as stdin, lines still open, the
// words kubectl runs, history, the line editor's keys, completion and the
// exchanges kept per command.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { EXCHANGES_PER_COMMAND_MAX, ExchangeLog, History, LineEditor, completeWord, historyKey, kubectlArgs, parseLine, terminalText } from '../src/terminalmodel.js';

test('LEARN-1: words split as sh splits them: quotes, backslashes, tabs', () => {
  assert.deepEqual(parseLine('kubectl get pods -n  kube-system').words, ['kubectl', 'get', 'pods', '-n', 'kube-system']);
  assert.deepEqual(parseLine(`k label po web 'a=b c' "d=\\"e\\"" f\\ g`).words, ['k', 'label', 'po', 'web', 'a=b c', 'd="e"', 'f g']);
  assert.deepEqual(parseLine(`k get po -o jsonpath='{.items[*].metadata.name}'`).words, ['k', 'get', 'po', '-o', 'jsonpath={.items[*].metadata.name}']);
  assert.deepEqual(parseLine(`k annotate po x a=""`).words, ['k', 'annotate', 'po', 'x', 'a=']);
  assert.deepEqual(parseLine('').words, []);
});

test('LEARN-1: an open quote or a trailing backslash asks for another line', () => {
  assert.equal(parseLine(`k create cm x --from-literal='a=b`).incomplete, true);
  assert.deepEqual(parseLine(`k create cm x --from-literal='a=b\nc'`), { words: ['k', 'create', 'cm', 'x', '--from-literal=a=b\nc'], pipe: [], stdin: null, incomplete: false });
  assert.equal(parseLine('kubectl get \\').incomplete, true);
  assert.deepEqual(parseLine('kubectl get \\\npods').words, ['kubectl', 'get', 'pods']);
});

test('LEARN-1: a heredoc is the command\'s stdin, read to its end word', () => {
  const manifest = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n';
  const open = parseLine('kubectl apply -f - <<EOF\napiVersion: v1\nkind: ConfigMap');
  assert.equal(open.incomplete, true, 'no EOF line yet');
  assert.deepEqual(parseLine(`kubectl apply -f - <<EOF\n${manifest}EOF`), { words: ['kubectl', 'apply', '-f', '-'], pipe: [], stdin: manifest, incomplete: false });
  assert.deepEqual(parseLine(`kubectl apply -f - <<'END'\n${manifest}END\n`).stdin, manifest);
  assert.deepEqual(parseLine(`kubectl apply -f - << "EOF"\n${manifest}EOF`).stdin, manifest);
  assert.deepEqual(parseLine('k apply -f - <<-EOF\n\tkind: x\n\tEOF').stdin, 'kind: x\n', '<<- strips leading tabs');
  assert.deepEqual(parseLine('k apply -f - <<EOF\nEOF').stdin, '');
  assert.equal(parseLine('k apply -f - <<EOF\n  EOF').incomplete, true, 'the end word alone on its line, not indented');
});

test('LEARN-1: a pipe splits the line into commands, each the next one\'s stdin', () => {
  assert.deepEqual(parseLine(`k create cm x --from-literal=a=b --dry-run=client -o yaml | kubectl apply --server-side -f -`),
    { words: ['k', 'create', 'cm', 'x', '--from-literal=a=b', '--dry-run=client', '-o', 'yaml'], pipe: [['kubectl', 'apply', '--server-side', '-f', '-']], stdin: null, incomplete: false });
  assert.deepEqual(parseLine(`k get po -o name|k describe -f -`).pipe, [['k', 'describe', '-f', '-']], 'no spaces needed');
  assert.deepEqual(parseLine(`k get po -l 'a in (x|y)'`).pipe, [], 'a quoted | is a character');
  assert.equal(parseLine('k get cm -o yaml |').incomplete, true, 'a trailing pipe asks for the next command');
  assert.deepEqual(parseLine('k get cm -o yaml |\nk apply -f -').pipe, [['k', 'apply', '-f', '-']]);
  const heredoc = parseLine('k apply -f - --dry-run=client -o yaml <<EOF | k diff -f -\nkind: x\nEOF');
  assert.deepEqual([heredoc.words, heredoc.pipe, heredoc.stdin], [['k', 'apply', '-f', '-', '--dry-run=client', '-o', 'yaml'], [['k', 'diff', '-f', '-']], 'kind: x\n']);
});

test('LEARN-1: kubectl and k are stripped; anything else gets a hint', () => {
  assert.deepEqual(kubectlArgs(['kubectl', 'get', 'pods']), { args: ['get', 'pods'] });
  assert.deepEqual(kubectlArgs(['k', 'version']), { args: ['version'] });
  assert.deepEqual(kubectlArgs(['kubectl']), { args: [] });
  assert.deepEqual(kubectlArgs([]), { args: null });
  assert.match(kubectlArgs(['ls', '-l']).hint, /^ls: only kubectl runs here/);
});

test('LEARN-1: history goes back and forth and keeps the line being written', () => {
  const h = new History(['k get po', 'k get deploy']);
  assert.equal(h.prev('k ver'), 'k get deploy');
  assert.equal(h.prev('k get deploy'), 'k get po');
  assert.equal(h.prev('k get po'), 'k get po', 'the oldest stays');
  assert.equal(h.next(), 'k get deploy');
  assert.equal(h.next(), 'k ver', 'back to the draft');
  h.add('k get deploy');
  h.add('k get deploy');
  h.add('   ');
  assert.deepEqual(h.entries, ['k get po', 'k get deploy'], 'no blank line, no repeat of the last');
  h.add('k version');
  assert.deepEqual(h.entries, ['k get po', 'k get deploy', 'k version']);
  const small = new History([], 2);
  ['a', 'b', 'c'].forEach((l) => small.add(l));
  assert.deepEqual(small.entries, ['b', 'c']);
  assert.equal(historyKey({ kind: 'sandbox' }), 'kubeplay.terminal.history.sandbox');
  assert.equal(historyKey({ kind: 'remote', url: 'https://x' }), 'kubeplay.terminal.history.remote:https://x');
});

test('LEARN-1: the line editor\'s keys and what it writes to show the line', () => {
  const e = new LineEditor('$ ');
  assert.equal(e.insert('k get'), '\r$ k get\x1b[K');
  e.insert(' po');
  assert.equal(e.move(-3), '\r$ k get po\x1b[K\x1b[3D');
  e.insert('x');
  assert.equal(e.text, 'k getx po');
  e.backspace();
  e.end();
  e.killWord();
  assert.equal(e.text, 'k get ');
  e.home();
  e.del();
  assert.equal(e.text, ' get ');
  e.move(4);
  e.killBefore();
  assert.deepEqual([e.text, e.cursor], [' ', 0]);
  e.set('abc', 1);
  e.killAfter();
  assert.equal(e.text, 'a');
});

test('LEARN-1: a line longer than the terminal wraps, and its redraw starts from its first row', () => {
  const e = new LineEditor('$ ', 10);
  // 2 + 12 = 14 characters: rows 0 and 1, the cursor at row 1, column 4.
  assert.equal(e.insert('kubectl get '), '\r$ kubectl get \x1b[J\r\x1b[4C');
  assert.equal(e.row, 1);
  // Home: up one row to the start, the whole line again, then to column 2 of row 0.
  assert.equal(e.home(), '\x1b[1A\r$ kubectl get \x1b[J\x1b[1A\r\x1b[2C');
  assert.equal(e.row, 0);
  // 2 + 18 = 20: the text ends at a row's end, so a new row is begun.
  e.end();
  assert.equal(e.insert('pods--'), '\x1b[1A\r$ kubectl get pods--\x1b[J\r\n\r');
  assert.equal(e.row, 2);
  // After Enter, a new prompt is drawn on its own row.
  e.newLine();
  e.text = '';
  e.cursor = 0;
  assert.equal(e.redraw(), '\r$ \x1b[K');
});

test('LEARN-1: tab completes the word at the cursor to the candidates\' common prefix', () => {
  assert.deepEqual(completeWord('k get dep', 9, ['deployments', 'deployments.apps', 'daemonsets']), { text: 'k get deployments', cursor: 17, choices: ['deployments', 'deployments.apps'] });
  assert.deepEqual(completeWord('k ro', 4, ['rollout', 'run']), { text: 'k rollout ', cursor: 10, choices: [] });
  assert.deepEqual(completeWord('k x', 3, ['get']), { text: 'k x', cursor: 3, choices: [] });
  assert.deepEqual(completeWord('k get  -n x', 6, ['pods']), { text: 'k get pods -n x', cursor: 11, choices: [] });
});

test('LEARN-1: exchanges are kept per command, with their paths, the oldest commands dropped', () => {
  const log = new ExchangeLog(2);
  const a = log.begin('kubectl version');
  const row = log.add(a, { method: 'GET', url: 'http://127.0.0.1:8080/version?timeout=32s', status: 200, ms: 1.5 });
  assert.equal(row.path, '/version?timeout=32s');
  log.begin('k get po');
  log.begin('k get deploy');
  assert.deepEqual(log.commands.map((c) => c.line), ['k get po', 'k get deploy']);
  const many = log.commands[1];
  for (let i = 0; i < EXCHANGES_PER_COMMAND_MAX + 2; i++) log.add(many, { method: 'GET', url: `http://h/api?i=${i}`, status: 200, ms: 1 });
  assert.equal(many.exchanges.length, EXCHANGES_PER_COMMAND_MAX);
  assert.deepEqual([many.dropped, many.exchanges[0].path], [2, '/api?i=2'], 'the oldest go first');
  assert.equal(terminalText('a\nb\r\n'), 'a\r\nb\r\n');
});
