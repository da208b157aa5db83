// The page's code panes: CodeMirror 6 with C++ highlighting, lint markers and line highlights.
// Bundled into server/static/editor.bundle.js by `python -m server.build_editor`; the page
// (server/static/app.js) uses window.Cuda2cpuEditor when the bundle is there, and plain text
// areas when it is not.
import { EditorView, basicSetup } from "codemirror";
import { cpp } from "@codemirror/lang-cpp";
import { lintGutter, setDiagnostics } from "@codemirror/lint";
import { EditorState, StateEffect, StateField, RangeSetBuilder } from "@codemirror/state";
import { Decoration } from "@codemirror/view";

// Whole-line highlights (the lines mapped to the hovered line), replaced as a set.
const setHighlights = StateEffect.define();
const highlightField = StateField.define({
  create: () => Decoration.none,
  update(value, tr) {
    value = value.map(tr.changes);
    for (const effect of tr.effects) if (effect.is(setHighlights)) value = effect.value;
    return value;
  },
  provide: (field) => EditorView.decorations.from(field),
});
const mappedLine = Decoration.line({ class: "cm-mapped" });

function lineDecorations(state, lines) {
  const builder = new RangeSetBuilder();
  for (const n of [...new Set(lines)].sort((a, b) => a - b)) {
    if (n >= 1 && n <= state.doc.lines) builder.add(state.doc.line(n).from, state.doc.line(n).from, mappedLine);
  }
  return builder.finish();
}

function create(parent, { readOnly = false, onHoverLine = null, onChange = null } = {}) {
  const extensions = [basicSetup, cpp(), lintGutter(), highlightField, EditorView.lineWrapping];
  if (readOnly) extensions.push(EditorState.readOnly.of(true), EditorView.editable.of(false));
  if (onChange) extensions.push(EditorView.updateListener.of((u) => { if (u.docChanged) onChange(); }));
  const view = new EditorView({ parent, extensions });
  if (onHoverLine) {
    let last = 0;
    view.contentDOM.addEventListener("mousemove", (ev) => {
      const pos = view.posAtCoords({ x: ev.clientX, y: ev.clientY });
      const line = pos == null ? 0 : view.state.doc.lineAt(pos).number;
      if (line !== last) { last = line; onHoverLine(line); }
    });
    view.contentDOM.addEventListener("mouseleave", () => { last = 0; onHoverLine(0); });
  }
  return {
    view,
    getText: () => view.state.doc.toString(),
    setText(text) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
    },
    // diagnostics: [{line, column, severity, message}] with 1-based lines and columns
    setDiagnostics(list) {
      const doc = view.state.doc;
      const marks = list.filter((d) => d.line >= 1 && d.line <= doc.lines).map((d) => {
        const line = doc.line(d.line);
        const from = Math.min(line.from + Math.max((d.column || 1) - 1, 0), line.to);
        return { from, to: Math.max(from, line.to), severity: d.severity === "warning" ? "warning" : "error",
                 message: d.message };
      });
      view.dispatch(setDiagnostics(view.state, marks));
    },
    highlightLines(lines) {
      view.dispatch({ effects: setHighlights.of(lineDecorations(view.state, lines)) });
      if (lines.length) {
        const first = Math.min(...lines);
        if (first >= 1 && first <= view.state.doc.lines) {
          view.dispatch({ effects: EditorView.scrollIntoView(view.state.doc.line(first).from, { y: "nearest" }) });
        }
      }
    },
    selectLine(n, column = 1) {
      const doc = view.state.doc;
      if (n < 1 || n > doc.lines) return;
      const line = doc.line(n);
      const from = Math.min(line.from + Math.max(column - 1, 0), line.to);
      view.dispatch({ selection: { anchor: from, head: line.to }, scrollIntoView: true });
      view.focus();
    },
  };
}

window.Cuda2cpuEditor = { create };
