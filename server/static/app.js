// The cuda2cpu page: send the source to /v1/transpile or /v1/check and show the result side by
// side, with the lines of each mapped to the other, diagnostics marked in the source, and a
// per-kernel view of --explain.  The panes are CodeMirror editors when the bundle is built
// (server/editor), plain text areas otherwise.
"use strict";

const $ = (id) => document.getElementById(id);
let uploads = [];          // File objects dropped or chosen (headers go along with the .cu file)
let lastOutput = "";       // the translation as the service sent it (#line directives included)
let lineMap = { toOutput: new Map(), toSource: new Map() };

// ------------------------------------------------------------------ the two panes

function plainPane(parent, { readOnly = false, onHoverLine = null, onChange = null } = {}) {
  // Text areas with numbered lines: what the page offers without the editor bundle.
  const wrap = document.createElement("div");
  wrap.className = "plain";
  const gutter = document.createElement("pre");
  gutter.className = "gutter";
  const body = document.createElement(readOnly ? "pre" : "textarea");
  body.className = "plain-body";
  if (!readOnly) body.spellcheck = false;
  wrap.append(gutter, body);
  parent.appendChild(wrap);
  let text = "";
  let marks = [];
  const render = () => {
    const n = text.split("\n").length;
    gutter.textContent = "";
    for (let i = 1; i <= n; i++) {
      const span = document.createElement("span");
      span.className = "ln" + (marks.some((d) => d.line === i) ? " marked" : "");
      span.dataset.line = i;
      span.textContent = i + "\n";
      gutter.appendChild(span);
    }
    if (readOnly) {
      body.textContent = "";
      text.split("\n").forEach((line, i) => {
        const span = document.createElement("span");
        span.className = "line";
        span.dataset.line = i + 1;
        span.textContent = line || " ";
        body.appendChild(span);
      });
    }
  };
  if (!readOnly) body.addEventListener("input", () => { text = body.value; render(); if (onChange) onChange(); });
  if (onHoverLine) {
    body.addEventListener("mousemove", (ev) => {
      const lineHeight = parseFloat(getComputedStyle(body).lineHeight) || 18;
      const y = ev.clientY - body.getBoundingClientRect().top + body.scrollTop - 6;
      onHoverLine(Math.floor(y / lineHeight) + 1);
    });
    body.addEventListener("mouseleave", () => onHoverLine(0));
  }
  return {
    getText: () => (readOnly ? text : body.value),
    setText(t) { text = t; if (!readOnly) body.value = t; render(); },
    setDiagnostics(list) { marks = list; render(); },
    highlightLines(lines) {
      const set = new Set(lines);
      wrap.querySelectorAll("[data-line]").forEach((e) => e.classList.toggle("mapped", set.has(+e.dataset.line)));
    },
    selectLine(n, column = 1) {
      if (readOnly) return;
      const lines = body.value.split("\n");
      let offset = 0;
      for (let i = 0; i < n - 1 && i < lines.length; i++) offset += lines[i].length + 1;
      body.focus();
      body.setSelectionRange(offset + Math.max(column - 1, 0), offset + (lines[n - 1] || "").length);
    },
  };
}

const editors = window.Cuda2cpuEditor;
const makePane = editors ? editors.create : plainPane;
if (!editors) $("editor-note").hidden = false;
document.body.classList.add(editors ? "with-editor" : "without-editor");

const source = makePane($("source-pane"), {
  onHoverLine: (n) => output.highlightLines(n ? lineMap.toOutput.get(n) || [] : []),
  onChange: () => { $("download").disabled = true; },
});
const output = makePane($("output-pane"), {
  readOnly: true,
  onHoverLine: (n) => source.highlightLines(n ? lineMap.toSource.get(n) || [] : []),
});
window.cuda2cpuPage = { source, output, lineMap: () => lineMap };  // for tests and the console

// ------------------------------------------------------------------ results

function mainName() { return $("filename").value.trim() || "app.cu"; }

function showOutput(text) {
  lastOutput = text;
  lineMap = window.Cuda2cpuLineMap.buildLineMap(text, source.getText(), mainName());
  output.setText(lineMap.text);
  $("download").disabled = !text;
}

function inSource(d) { return d.line && (d.file === mainName() || d.file.endsWith("/" + mainName())); }

function showDiagnostics(list) {
  source.setDiagnostics(list.filter(inSource));
  const ul = $("diagnostics");
  ul.textContent = "";
  for (const d of list) {
    const li = document.createElement("li");
    li.className = d.severity;
    const where = d.line ? `${d.file}:${d.line}:${d.column}` : d.file || "cuda2cpu";
    if (inSource(d)) {
      const a = document.createElement("a");
      a.href = "#";
      a.textContent = where;
      a.addEventListener("click", (ev) => { ev.preventDefault(); source.selectLine(d.line, d.column); });
      li.appendChild(a);
    } else {
      li.appendChild(document.createTextNode(where));
    }
    li.appendChild(document.createTextNode(`: ${d.severity}: ${d.message}`));
    ul.appendChild(li);
  }
}

function lineLink(line, column) {
  const a = document.createElement("a");
  a.href = "#";
  a.className = "line-link";
  a.textContent = `line ${line}`;
  a.addEventListener("click", (ev) => { ev.preventDefault(); source.selectLine(line, column || 1); });
  return a;
}

function item(parent, cls, ...parts) {
  const li = document.createElement("li");
  li.className = cls;
  for (const p of parts) li.append(p);
  parent.appendChild(li);
  return li;
}

function showExplain(explain) {
  const box = $("explain-out");
  box.textContent = "";
  const kernels = (explain && explain.kernels) || [];
  if (!kernels.length) {
    box.innerHTML = '<p class="hint">No kernels were lowered.</p>';
    return;
  }
  for (const k of kernels) {
    const card = document.createElement("article");
    card.className = "kernel";
    const h = document.createElement("h3");
    h.append(`${k.name} `, lineLink(k.line), ` · lowering ${k.lowering}` + (k.schedule ? ` · schedule ${k.schedule}` : ""));
    card.appendChild(h);
    const ul = document.createElement("ul");
    for (const b of k.barriers || []) {
      const badge = document.createElement("span");
      badge.className = "badge " + b.action.split(" ")[0];
      badge.textContent = b.action;
      item(ul, "barrier", badge, " __syncthreads() at ", lineLink(b.line, b.column), `: ${b.reason}`);
    }
    for (const kv of k.kept_values || []) {
      const what = [kv.names && kv.names.length ? `kept per thread: ${kv.names.join(", ")}` : "",
                    kv.recomputed && kv.recomputed.length ? `recomputed: ${kv.recomputed.join(", ")}` : ""]
        .filter(Boolean).join("; ");
      if (what) item(ul, "kept", "values across the barrier at ", lineLink(kv.barrier_line), `: ${what}`);
    }
    for (const hst of k.hoisted || []) item(ul, "hoisted", `hoisted to ${hst.to} level from `, lineLink(hst.line), `: ${hst.text}`);
    for (const c of k.inlined || []) item(ul, "moved", `call of ${c.function} at `, lineLink(c.line), " inlined: its loop moves outside the thread loop");
    for (const m of k.interchanged || []) item(ul, "moved", "loop at ", lineLink(m.line), " moved outside the thread loop");
    for (const p of k.prefetched || []) item(ul, "prefetched", `next block's reads of ${p.pointer} at `, lineLink(p.line), " prefetched");
    for (const w of k.widened || []) item(ul, "widened", `subscript ${w.subscript} at `, lineLink(w.line), " computed in 64 bits where it does not wrap");
    if (!ul.children.length) item(ul, "none", "no barriers: one parallel loop over blocks and threads");
    card.appendChild(ul);
    box.appendChild(card);
  }
}

function showStatus(path, ok, httpStatus, hasOutput) {
  const s = $("status");
  s.className = ok ? "ok" : "failed";
  if (path === "/v1/check") {
    s.textContent = ok ? `Translated, and g++ accepted the translation (HTTP ${httpStatus})`
      : hasOutput ? `Translated, but g++ rejected the translation (HTTP ${httpStatus})`
        : `Translation failed (HTTP ${httpStatus})`;
  } else {
    s.textContent = ok ? `Translated; not compiled: use "Translate and check with g++" for that (HTTP ${httpStatus})`
      : `Translation failed (HTTP ${httpStatus})`;
  }
}

async function send(path) {
  const form = new FormData();
  const name = mainName();
  form.append("file", new Blob([source.getText()], { type: "text/plain" }), name);
  for (const f of uploads) if (f.name !== name) form.append("file", f, f.name);
  form.append("main", name);
  form.append("lowering", $("lowering").value);
  form.append("schedule", $("schedule").value);
  if ($("pipeline").value.trim()) form.append("pipeline", $("pipeline").value.trim());
  if ($("disable").value.trim()) form.append("disable", $("disable").value.trim());
  form.append("explain", "true");
  const headers = {};
  if ($("token").value) headers["Authorization"] = "Bearer " + $("token").value;
  $("status").className = "";
  $("status").textContent = "Working...";
  let body, r;
  try {
    r = await fetch(path, { method: "POST", body: form, headers });
    body = await r.json();
  } catch (err) {
    $("status").textContent = "Request failed: " + err;
    return;
  }
  showOutput(body.openmp_source || "");
  showDiagnostics(body.diagnostics || []);
  showExplain(body.explain);
  showStatus(path, r.ok, r.status, !!body.openmp_source);
}

// ------------------------------------------------------------------ inputs

async function takeFiles(fileList) {
  uploads = Array.from(fileList);
  const main = uploads.find((f) => f.name.endsWith(".cu")) || uploads[0];
  if (main) {
    source.setText(await main.text());
    $("filename").value = main.name;
  }
  $("file-list").textContent = uploads.map((f) => f.name).join(", ");
}

async function loadExamples() {
  let names = [];
  try {
    const r = await fetch("/v1/examples");
    if (r.ok) names = (await r.json()).examples || [];
  } catch (err) { /* no examples: the menu stays hidden */ }
  if (!names.length) return;
  const select = $("examples");
  for (const n of names) select.appendChild(new Option(n, n));
  $("examples-box").hidden = false;
  select.addEventListener("change", async () => {
    if (!select.value) return;
    const r = await fetch("/v1/examples/" + encodeURIComponent(select.value));
    if (!r.ok) return;
    uploads = [];
    $("file-list").textContent = "";
    source.setText(await r.text());
    $("filename").value = select.value;
  });
}

$("form").addEventListener("submit", (ev) => { ev.preventDefault(); send("/v1/transpile"); });
$("check").addEventListener("click", () => send("/v1/check"));
$("files").addEventListener("change", (ev) => takeFiles(ev.target.files));
$("download").addEventListener("click", () => {
  const blob = new Blob([lastOutput], { type: "text/x-c++src" });
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = mainName().replace(/\.[^.]*$/, "") + ".cpp";
  a.click();
  URL.revokeObjectURL(a.href);
});
const drop = $("drop");
drop.addEventListener("dragover", (ev) => { ev.preventDefault(); drop.classList.add("over"); });
drop.addEventListener("dragleave", () => drop.classList.remove("over"));
drop.addEventListener("drop", (ev) => {
  ev.preventDefault();
  drop.classList.remove("over");
  takeFiles(ev.dataTransfer.files);
});
source.setText("");
loadExamples();
