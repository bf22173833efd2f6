// editor.js — the request body editor: CodeMirror 6 with JSON or YAML
// highlighting, switchable; converts between the two on request (yamljson.js).

import { EditorView, basicSetup } from 'codemirror';
import { EditorState, Compartment } from '@codemirror/state';
import { keymap } from '@codemirror/view';
import { json } from '@codemirror/lang-json';
import { yaml } from '@codemirror/lang-yaml';
import { convertText } from './yamljson.js';

/**
 * createBodyEditor(parent, {onChange, onSubmit}) → {
 *   getText(), setText(text), getMode(), setMode('json'|'yaml', {convert}), focus(), view }
 * onSubmit runs on Ctrl/Cmd+Enter.
 */
export function createBodyEditor(parent, { onChange, onSubmit } = {}) {
  const lang = new Compartment();
  let mode = 'json';
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: '',
      extensions: [
        keymap.of([{ key: 'Mod-Enter', run: () => { if (onSubmit) onSubmit(); return true; } }]),
        basicSetup,
        lang.of(json()),
        EditorView.lineWrapping,
        EditorView.updateListener.of((u) => { if (u.docChanged && onChange) onChange(); }),
        EditorView.contentAttributes.of({ 'aria-label': 'request body' }),
      ],
    }),
  });

  function getText() {
    return view.state.doc.toString();
  }

  function setText(text) {
    view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text || '' } });
  }

  /** Switches highlighting; with convert, rewrites the text into the new language when it parses. */
  function setMode(next, { convert = false } = {}) {
    if (next !== 'json' && next !== 'yaml') return { ok: false, error: `unknown mode ${next}` };
    let result = { ok: true };
    if (convert && next !== mode && getText().trim()) {
      const conv = convertText(getText(), mode, next);
      if (conv.ok) setText(conv.text);
      else result = conv;
    }
    mode = next;
    view.dispatch({ effects: lang.reconfigure(next === 'json' ? json() : yaml()) });
    parent.dataset.mode = next;
    return result;
  }

  parent.dataset.mode = mode;
  return { getText, setText, getMode: () => mode, setMode, focus: () => view.focus(), view };
}
