// terminalmodel.js — the kubectl terminal's logic without the DOM (LEARN-1):
// a command line split into words as a shell does (quotes, backslashes, a
// heredoc as stdin: `kubectl apply -f - <<EOF … EOF`), whether a pasted or
// typed line needs more lines, the words kubectl runs ("kubectl" or its
// alias "k" stripped), the line editor with its history (kept per target in
// localStorage by terminal.js), tab completion of the word at the cursor,
// and the HTTP exchanges of each command. Tested in test/terminal.test.mjs.

/** The prompts: a new command, and a command's further lines. */
export const PROMPT = '$ ';
export const CONTINUATION = '> ';

/** The most commands a history keeps. */
export const HISTORY_MAX = 500;

/** The commands whose exchanges the list keeps, and a command's exchanges kept. */
export const EXCHANGE_COMMANDS_MAX = 50;
export const EXCHANGES_PER_COMMAND_MAX = 100;

/**
 * parseLine splits text (one or more lines) into words as sh does, and reads
 * heredocs: `<<WORD` (or `<<'WORD'`, `<<"WORD"`, `<<-WORD`, which strips
 * leading tabs) takes the lines after the command up to a line that is WORD
 * as stdin. It returns {words, pipe, stdin (a string, or null), incomplete}:
 * words are the first command's; pipe the words of each command after a `|`
 * (the terminal runs kubectl | kubectl, each command's output the next one's
 * stdin; a heredoc is the first command's stdin). incomplete is true while a
 * quote, a trailing backslash or pipe, or a heredoc is still open, and the
 * terminal then asks for another line. Text after the heredoc's end is
 * ignored.
 */
export function parseLine(text) {
  const lines = text.split('\n');
  let i = 0;
  // The command: lines joined while a quote, a backslash or a pipe carries over.
  let cmd = lines[0];
  let state = splitWords(cmd);
  while (state.open && i + 1 < lines.length) {
    i++;
    cmd = state.open === '\\' ? cmd.slice(0, -1) + lines[i] : cmd + '\n' + lines[i];
    state = splitWords(cmd);
  }
  const commands = [...state.commands, state.words];
  const first = commands[0];
  const pipe = commands.slice(1);
  if (state.open) return { words: first, pipe, stdin: null, incomplete: true };
  const heredocs = state.heredocs;
  if (heredocs.length === 0) return { words: first, pipe, stdin: null, incomplete: false };
  // Every heredoc's body, in order; kubectl reads one stdin: the last's, as
  // a shell's later redirection wins.
  let stdin = null;
  for (const doc of heredocs) {
    const body = [];
    let closed = false;
    for (i++; i < lines.length; i++) {
      const line = doc.stripTabs ? lines[i].replace(/^\t+/, '') : lines[i];
      if (line === doc.word) {
        closed = true;
        break;
      }
      body.push(line);
    }
    if (!closed) return { words: first, pipe, stdin: null, incomplete: true };
    stdin = body.length ? body.join('\n') + '\n' : '';
  }
  return { words: first, pipe, stdin, incomplete: false };
}

// splitWords splits one command into words: {words, heredocs, open}, open
// being the quote (or '\\') still open at the end, '' when none.
function splitWords(s) {
  const commands = []; // the commands before a pipe
  const words = [];
  const heredocs = [];
  let word = null; // null: between words
  let quote = '';
  let heredocNext = null; // {stripTabs}: the next word is a heredoc's
  const end = () => {
    if (word === null) return;
    if (heredocNext) {
      heredocs.push({ word: word.text, stripTabs: heredocNext.stripTabs });
      heredocNext = null;
    } else {
      words.push(word.text);
    }
    word = null;
  };
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (quote === "'") {
      if (c === "'") quote = '';
      else word.text += c;
      continue;
    }
    if (quote === '"') {
      if (c === '"') quote = '';
      else if (c === '\\' && i + 1 < s.length && '"\\$`\n'.includes(s[i + 1])) word.text += s[++i];
      else word.text += c;
      continue;
    }
    if (c === '\\') {
      if (i + 1 === s.length) return { words, commands, heredocs, open: '\\' };
      word = word || { text: '' };
      word.text += s[++i];
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\n') {
      end();
      continue;
    }
    if (c === '|') {
      end();
      commands.push(words.splice(0));
      continue;
    }
    if (c === '<' && s[i + 1] === '<' && word === null && !heredocNext) {
      i++;
      const stripTabs = s[i + 1] === '-';
      if (stripTabs) i++;
      heredocNext = { stripTabs };
      continue;
    }
    word = word || { text: '' };
    if (c === "'" || c === '"') quote = c;
    else word.text += c;
  }
  if (quote) return { words, commands, heredocs, open: quote };
  end();
  if (commands.length && words.length === 0) return { words, commands, heredocs, open: '|' };
  return { words, commands, heredocs, open: '' };
}

/**
 * kubectlArgs is what kubectl runs for a command's words: the words after
 * "kubectl" (or "k"), or {hint} when the line is something else.
 */
export function kubectlArgs(words) {
  if (words.length === 0) return { args: null };
  if (words[0] === 'kubectl' || words[0] === 'k') return { args: words.slice(1) };
  return { hint: `${words[0]}: only kubectl runs here (try: kubectl get pods, or k get pods)` };
}

/**
 * History is the commands entered, oldest first, with a position for going
 * back and forth (Up and Down keys); the line being written is kept while
 * older ones are shown.
 */
export class History {
  constructor(entries = [], max = HISTORY_MAX) {
    this.max = max;
    this.entries = entries.filter((e) => typeof e === 'string').slice(-max);
    this.pos = this.entries.length;
    this.draft = '';
  }

  /** Adds a command (not a blank one, nor the one just before again). */
  add(line) {
    const text = line.trimEnd();
    if (text.trim() && this.entries[this.entries.length - 1] !== text) {
      this.entries.push(text);
      if (this.entries.length > this.max) this.entries.splice(0, this.entries.length - this.max);
    }
    this.pos = this.entries.length;
    this.draft = '';
  }

  /** The command before the one shown (current: the line being written). */
  prev(current) {
    if (this.pos === this.entries.length) this.draft = current;
    if (this.pos > 0) this.pos--;
    return this.entries[this.pos] ?? current;
  }

  /** The command after the one shown, or the line that was being written. */
  next() {
    if (this.pos < this.entries.length) this.pos++;
    return this.pos === this.entries.length ? this.draft : this.entries[this.pos];
  }
}

/** historyKey is the localStorage key of a target's history. */
export function historyKey(target) {
  const where = target.readOnly || target.kind === 'remote' ? `remote:${target.url}` : target.kind;
  return `kubeplay.terminal.history.${where}`;
}

/**
 * LineEditor is the line being typed: its text and the cursor, and the keys
 * that change them. Each change returns what to write to the terminal to
 * show it: the line again from the prompt's end, as xterm reads ANSI.
 */
export class LineEditor {
  constructor(prompt = PROMPT, cols = 0) {
    this.prompt = prompt;
    this.text = '';
    this.cursor = 0;
    this.cols = cols; // the terminal's width; 0: unknown (no wrapping)
    this.row = 0; // the cursor's row within the line, as last drawn
  }

  /** Replaces the text (a history entry, a completion); cursor at its end. */
  set(text, cursor = text.length) {
    this.text = text;
    this.cursor = cursor;
    return this.redraw();
  }

  insert(s) {
    this.text = this.text.slice(0, this.cursor) + s + this.text.slice(this.cursor);
    this.cursor += s.length;
    return this.redraw();
  }

  backspace() {
    if (this.cursor === 0) return '';
    this.text = this.text.slice(0, this.cursor - 1) + this.text.slice(this.cursor);
    this.cursor--;
    return this.redraw();
  }

  del() {
    if (this.cursor === this.text.length) return '';
    this.text = this.text.slice(0, this.cursor) + this.text.slice(this.cursor + 1);
    return this.redraw();
  }

  move(delta) {
    this.cursor = Math.max(0, Math.min(this.text.length, this.cursor + delta));
    return this.redraw();
  }

  home() { return this.move(-this.cursor); }

  end() { return this.move(this.text.length - this.cursor); }

  /** Ctrl-U: deletes before the cursor. */
  killBefore() {
    this.text = this.text.slice(this.cursor);
    this.cursor = 0;
    return this.redraw();
  }

  /** Ctrl-K: deletes from the cursor on. */
  killAfter() {
    this.text = this.text.slice(0, this.cursor);
    return this.redraw();
  }

  /** Ctrl-W: deletes the word before the cursor. */
  killWord() {
    const before = this.text.slice(0, this.cursor).replace(/\S*\s*$/, '');
    this.text = before + this.text.slice(this.cursor);
    this.cursor = before.length;
    return this.redraw();
  }

  /**
   * newLine says the terminal's cursor is at the start of a new row: the
   * next redraw draws the prompt there (after output, or Enter).
   */
  newLine() {
    this.row = 0;
    return '';
  }

  /**
   * redraw is the ANSI text that shows the prompt and the line with the
   * cursor in place: back to the line's start, prompt, text, erase what was
   * after, the cursor moved back from the end. A line longer than the
   * terminal's width (cols, which the terminal sets) wraps: the redraw goes
   * up to the line's first row first, and places the cursor by row and
   * column (a line that ends at a row's end begins the next row, where xterm
   * would otherwise wait to wrap).
   */
  redraw() {
    const cols = this.cols > 0 ? this.cols : Infinity;
    const total = this.prompt.length + this.text.length;
    if (!this.row && total < cols) {
      const back = this.text.length - this.cursor;
      return `\r${this.prompt}${this.text}\x1b[K${back > 0 ? `\x1b[${back}D` : ''}`;
    }
    let out = `${this.row ? `\x1b[${this.row}A` : ''}\r${this.prompt}${this.text}\x1b[J`;
    const endRow = Math.floor(total / cols);
    if (total % cols === 0) out += '\r\n';
    const at = this.prompt.length + this.cursor;
    const row = Math.floor(at / cols);
    const col = at % cols;
    if (endRow > row) out += `\x1b[${endRow - row}A`;
    out += `\r${col ? `\x1b[${col}C` : ''}`;
    this.row = row;
    return out;
  }
}

/**
 * completeWord applies a list of completions to the word before the cursor:
 * the candidates that start with it; their longest common prefix replaces
 * it (with a space after a single one). Returns {text, cursor, choices}:
 * choices are the candidates to show when more than one remain.
 */
export function completeWord(text, cursor, candidates) {
  const before = text.slice(0, cursor);
  const start = before.search(/\S*$/);
  const word = before.slice(start);
  const matching = [...new Set(candidates)].filter((c) => c.startsWith(word)).sort();
  if (matching.length === 0) return { text, cursor, choices: [] };
  let prefix = matching[0];
  for (const m of matching) while (!m.startsWith(prefix)) prefix = prefix.slice(0, -1);
  const insert = matching.length === 1 ? matching[0] + ' ' : prefix;
  const after = text.slice(cursor);
  const out = before.slice(0, start) + insert + (matching.length === 1 && after.startsWith(' ') ? after.slice(1) : after);
  return { text: out, cursor: start + insert.length, choices: matching.length > 1 ? matching : [] };
}

/**
 * ExchangeLog is each command with its HTTP exchanges (the module's exchange
 * callback: {method, url, requestHeaders, requestBody, status,
 * responseHeaders, responseBody, ms, error}), newest command last, at most
 * EXCHANGE_COMMANDS_MAX commands.
 */
export class ExchangeLog {
  constructor(max = EXCHANGE_COMMANDS_MAX) {
    this.max = max;
    this.commands = [];
    this.seq = 0;
  }

  /** Starts a command's group; returns it. */
  begin(line) {
    const cmd = { id: ++this.seq, line, exchanges: [], dropped: 0, exitCode: null, output: '' };
    this.commands.push(cmd);
    if (this.commands.length > this.max) this.commands.shift();
    return cmd;
  }

  /**
   * Adds an exchange to cmd, with its path (the URL without the server);
   * past EXCHANGES_PER_COMMAND_MAX the oldest go, counted in cmd.dropped.
   */
  add(cmd, ex) {
    const row = { ...ex, path: pathOf(ex.url) };
    cmd.exchanges.push(row);
    if (cmd.exchanges.length > EXCHANGES_PER_COMMAND_MAX) {
      cmd.exchanges.shift();
      cmd.dropped++;
    }
    return row;
  }

  clear() {
    this.commands = [];
  }
}

// pathOf is a URL's path and query.
function pathOf(url) {
  try {
    const u = new URL(url);
    return u.pathname + u.search;
  } catch {
    return url;
  }
}

/** The text of output bytes, with every "\n" as the terminal's "\r\n". */
export function terminalText(text) {
  return text.replace(/\r?\n/g, '\r\n');
}
