// editor.js — the request body editor: CodeMirror 6 with JSON or YAML
// highlighting, switchable; converts between the two on request (yamljson.js).
// Syntax errors are marked where they are (gutter, underline, the message on
// hover and below the editor); in YAML, keys their schema does not have
// are marked as warnings, field names are completed from the
// OpenAPI v3 document of the body's apiVersion (those of the mapping not
// offered again), and a docs line says the type
// and description of the field under the cursor (bodymodel.js).

import { EditorView, basicSetup } from 'codemirror';
import { EditorState, Compartment } from '@codemirror/state';
import { keymap } from '@codemirror/view';
import { json } from '@codemirror/lang-json';
import { yaml } from '@codemirror/lang-yaml';
import { linter, lintGutter, forceLinting } from '@codemirror/lint';
import { convertText } from './yamljson.js';
import { yamlDiagnostics, jsonDiagnostics, yamlContext, groupVersionPath, fieldsAt, fieldDoc, unknownFields } from './bodymodel.js';
import { h } from './dom.js';

/**
 * createBodyEditor(parent, {onChange, onSubmit, schema}) → {
 *   getText(), setText(text), getMode(), setMode('json'|'yaml', {convert}), focus(), view }
 * onSubmit runs on Ctrl/Cmd+Enter; schema('apis/apps/v1') → Promise of that
 * group-version's OpenAPI v3 document (or null) feeds completion and docs.
 */
export function createBodyEditor(parent, { onChange, onSubmit, schema = async () => null } = {}) {
  const lang = new Compartment();
  let mode = 'json';
  const problemLine = h('div', { class: 'editor-problem', testid: 'body-problem', hidden: true });
  const docsLine = h('div', { class: 'editor-docs', testid: 'body-docs', hidden: true });

  const problems = () => (mode === 'yaml' ? yamlDiagnostics : jsonDiagnostics)(view.state.doc.toString());
  const lint = linter(async (v) => {
    const errors = problems();
    if (errors.length || mode !== 'yaml') return errors.map((d) => mark(d, 'error'));
    // No syntax error: the keys the objects' schemas do not have.
    const text = v.state.doc.toString();
    const gvs = [...new Set([...text.matchAll(/^apiVersion:\s*["']?([^\s"'#]+)/gm)].map((m) => m[1]))];
    const docs = new Map(await Promise.all(gvs.map(async (gv) => [gv, await schema(groupVersionPath(gv))])));
    return unknownFields(text, (gv) => docs.get(gv) || null).map((d) => mark(d, 'warning'));
  }, { delay: 250 });
  function mark(d, severity) {
    return { from: d.from, to: d.to, severity, message: `line ${d.line}, column ${d.col}: ${d.message}` };
  }

  function showProblem() {
    const [d] = problems();
    problemLine.hidden = !d;
    problemLine.textContent = d ? `${mode.toUpperCase()} line ${d.line}, column ${d.col}: ${d.message}` : '';
    problemLine.dataset.line = d ? String(d.line) : '';
  }

  async function complete(ctx) {
    if (mode !== 'yaml') return null;
    const c = yamlContext(ctx.state.doc.toString(), ctx.pos);
    if (!c.inKey || !c.apiVersion || !c.kind || (!c.prefix && !ctx.explicit)) return null;
    const doc = await schema(groupVersionPath(c.apiVersion));
    const fields = doc ? fieldsAt(doc, c.apiVersion, c.kind, c.path).filter((f) => !c.siblings.includes(f.name)) : [];
    if (!fields.length) return null;
    return {
      from: c.from,
      validFor: /^[\w.-]*$/,
      options: fields.map((f) => ({ label: f.name, type: 'property', detail: `<${f.type}>${f.required ? ' required' : ''}`, info: f.description, apply: `${f.name}: ` })),
    };
  }

  let docsSeq = 0;
  async function showDocs() {
    const my = ++docsSeq;
    let d = null;
    if (mode === 'yaml') {
      const c = yamlContext(view.state.doc.toString(), view.state.selection.main.head);
      const doc = c.apiVersion && c.kind && c.key ? await schema(groupVersionPath(c.apiVersion)) : null;
      d = doc && fieldDoc(doc, c.apiVersion, c.kind, c.path, c.key);
    }
    if (my !== docsSeq) return;
    docsLine.hidden = !d;
    docsLine.replaceChildren(...(d ? [h('code', {}, `${d.name} <${d.type}>${d.required ? ' -required-' : ''}`), ' ', d.description] : []));
  }
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: '',
      extensions: [
        keymap.of([{ key: 'Mod-Enter', run: () => { if (onSubmit) onSubmit(); return true; } }]),
        basicSetup,
        lang.of(json()),
        lint,
        lintGutter(),
        EditorState.languageData.of(() => [{ autocomplete: complete }]),
        EditorView.lineWrapping,
        EditorView.updateListener.of((u) => {
          if (u.docChanged) showProblem();
          if (u.docChanged || u.selectionSet) showDocs();
          if (u.docChanged && onChange) onChange();
        }),
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
    showProblem();
    showDocs();
    forceLinting(view);
    return result;
  }

  parent.dataset.mode = mode;
  parent.append(problemLine, docsLine);
  return { getText, setText, getMode: () => mode, setMode, focus: () => view.focus(), view };
}
