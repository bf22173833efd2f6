// fold.js — folding a pretty JSON or YAML body by block and by level (issue
// 31, friction 1): which lines open a block and where it ends (pure, tested
// in Node), and the response view's lines with a toggle on each block and
// "fold to level N" for them all.

/**
 * The blocks of pretty-printed text's lines: for each line, end[i] is the
 * last line of the block it opens (-1: it opens none) and depth[i] how many
 * blocks enclose it. JSON (JSON.stringify(v, null, 2), or a stream of such
 * values): a line ending in `{` or `[` opens a block that its matching `}` or
 * `]` line closes (the closing line is the block's). YAML: a line opens the
 * lines after it that are indented deeper, and a `key:` line also the `- `
 * items at its own indentation (kubectl's style for a list under a key).
 */
export function foldRegions(lines, kind) {
  return kind === 'yaml' ? yamlRegions(lines) : jsonRegions(lines);
}

function jsonRegions(lines) {
  const end = new Array(lines.length).fill(-1);
  const depth = new Array(lines.length).fill(0);
  const open = [];
  lines.forEach((line, i) => {
    const t = line.trim();
    if (/^[}\]]/.test(t) && open.length) end[open.pop()] = i;
    depth[i] = open.length;
    if (/[{[]$/.test(t)) open.push(i);
  });
  return { end, depth };
}

function yamlRegions(lines) {
  const n = lines.length;
  const end = new Array(n).fill(-1);
  const depth = new Array(n).fill(0);
  const indent = (l) => l.length - l.trimStart().length;
  const blank = (l) => l.trim() === '' || /^\s*#/.test(l);
  // open: the blocks still open, each {line, indent, seq} (seq: a key whose
  // items sit at its own indentation).
  const open = [];
  const close = (i, at) => {
    const b = open.pop();
    end[b.line] = at;
    return b;
  };
  let lastContent = -1;
  for (let i = 0; i < n; i++) {
    const line = lines[i];
    if (blank(line)) continue;
    const ind = indent(line);
    const item = /^\s*- /.test(line) || /^\s*-$/.test(line);
    const doc = /^(---|\.\.\.)(\s|$)/.test(line);
    while (open.length) {
      const b = open[open.length - 1];
      const inside = !doc && (ind > b.indent || (b.seq && ind === b.indent && item));
      if (inside) break;
      close(i, lastContent);
    }
    depth[i] = open.length;
    // Does it open a block? The next content line decides.
    let j = i + 1;
    while (j < n && blank(lines[j])) j++;
    if (j < n && !doc) {
      const next = lines[j];
      const nind = indent(next);
      const nitem = /^\s*-( |$)/.test(next);
      const key = /:\s*(\|[-+]?|>[-+]?)?\s*$/.test(line);
      if (nind > ind) open.push({ line: i, indent: ind, seq: false });
      else if (key && nind === ind && nitem && !item) open.push({ line: i, indent: ind, seq: true });
    }
    lastContent = i;
  }
  while (open.length) close(n, lastContent);
  // A block that holds nothing but its own line opens none.
  for (let i = 0; i < n; i++) if (end[i] <= i) end[i] = -1;
  return { end, depth };
}

/**
 * Fills el (a <pre>) with the lines (their HTML, as a highlighter wrote
 * them, one per line of text) and a toggle at each block's start; returns
 * {foldTo(level)}: level 0 opens every block, N folds every block N or more
 * deep. The toggles and the folded marks are drawn by CSS, so the element's
 * text stays the body's.
 */
export function renderFoldable(el, htmlLines, textLines, kind) {
  const { end, depth } = foldRegions(textLines, kind);
  const rows = htmlLines.map((html, i) => {
    const row = document.createElement('span');
    row.className = 'ln';
    row.innerHTML = html;
    if (end[i] > i) {
      const toggle = document.createElement('span');
      toggle.className = 'fold';
      toggle.dataset.testid = 'fold-toggle';
      toggle.setAttribute('role', 'button');
      toggle.setAttribute('tabindex', '0');
      toggle.setAttribute('aria-expanded', 'true');
      const lines = end[i] - i;
      const closing = kind === 'json' ? ` ${textLines[end[i]].trim()}` : '';
      toggle.setAttribute('aria-label', `fold ${lines} lines`);
      const mark = document.createElement('span');
      mark.className = 'fold-mark';
      mark.dataset.fold = ` … ${lines} line${lines === 1 ? '' : 's'}${closing}`;
      row.prepend(toggle);
      row.append(mark);
    }
    if (i < htmlLines.length - 1) row.append('\n');
    return row;
  });
  const folded = new Set();
  const show = () => {
    let hiddenUntil = -1;
    rows.forEach((row, i) => {
      row.hidden = i <= hiddenUntil;
      const isFolded = folded.has(i);
      row.classList.toggle('folded', isFolded);
      const toggle = row.firstChild;
      if (end[i] > i) toggle.setAttribute('aria-expanded', String(!isFolded));
      if (isFolded && !row.hidden) hiddenUntil = Math.max(hiddenUntil, end[i]);
    });
  };
  const flip = (i) => {
    if (folded.has(i)) folded.delete(i);
    else folded.add(i);
    show();
  };
  el.replaceChildren(...rows);
  el.classList.add('foldable');
  el.onclick = (e) => {
    const t = e.target.closest?.('.fold');
    if (t) flip(rows.indexOf(t.parentElement));
  };
  el.onkeydown = (e) => {
    const t = e.target.closest?.('.fold');
    if (t && (e.key === 'Enter' || e.key === ' ')) {
      e.preventDefault();
      flip(rows.indexOf(t.parentElement));
    }
  };
  return {
    foldTo(level) {
      folded.clear();
      if (level > 0) end.forEach((e, i) => { if (e > i && depth[i] >= level) folded.add(i); });
      show();
    },
  };
}
