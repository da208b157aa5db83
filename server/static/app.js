// The cuda2cpu page: send the source to /v1/transpile or /v1/check, show the result side by side.
"use strict";

const $ = (id) => document.getElementById(id);
let uploads = [];          // File objects dropped or chosen (headers go along with the .cu file)
let lastOutput = "";

function renderGutter() {
  const n = $("source").value.split("\n").length;
  const gutter = $("cuda-lines");
  gutter.textContent = "";
  for (let i = 1; i <= n; i++) {
    const span = document.createElement("span");
    span.id = "cuda-line-" + i;
    span.textContent = i + "\n";
    gutter.appendChild(span);
  }
  const ta = $("source");
  ta.style.height = "auto";
  ta.style.height = ta.scrollHeight + "px";
}

function showOutput(text) {
  const out = $("output");
  out.textContent = "";
  text.split("\n").forEach((line, i) => {
    const span = document.createElement("span");
    span.className = "line";
    span.id = "omp-line-" + (i + 1);
    span.textContent = line || " ";
    out.appendChild(span);
  });
  lastOutput = text;
  $("download").disabled = !text;
}

function jumpTo(d) {
  document.querySelectorAll(".hit").forEach((e) => e.classList.remove("hit"));
  const inOutput = /\.openmp\.cpp$/.test(d.file);
  const target = $((inOutput ? "omp-line-" : "cuda-line-") + d.line);
  if (!inOutput && d.file === $("filename").value) {
    const ta = $("source");
    const lines = ta.value.split("\n");
    let offset = 0;
    for (let i = 0; i < d.line - 1 && i < lines.length; i++) offset += lines[i].length + 1;
    ta.focus();
    ta.setSelectionRange(offset + Math.max(d.column - 1, 0), offset + (lines[d.line - 1] || "").length);
  }
  if (target) {
    target.classList.add("hit");
    target.scrollIntoView({ block: "center" });
  }
}

function showDiagnostics(list) {
  const ul = $("diagnostics");
  ul.textContent = "";
  for (const d of list) {
    const li = document.createElement("li");
    li.className = d.severity;
    const where = d.line ? `${d.file}:${d.line}:${d.column}` : d.file || "cuda2cpu";
    if (d.line) {
      const a = document.createElement("a");
      a.href = "#";
      a.textContent = where;
      a.addEventListener("click", (ev) => { ev.preventDefault(); jumpTo(d); });
      li.appendChild(a);
    } else {
      li.appendChild(document.createTextNode(where));
    }
    li.appendChild(document.createTextNode(`: ${d.severity}: ${d.message}`));
    ul.appendChild(li);
  }
}

async function send(path) {
  const form = new FormData();
  const name = $("filename").value.trim() || "app.cu";
  form.append("file", new Blob([$("source").value], { type: "text/plain" }), name);
  for (const f of uploads) if (f.name !== name) form.append("file", f, f.name);
  form.append("main", name);
  form.append("lowering", $("lowering").value);
  form.append("schedule", $("schedule").value);
  if ($("pipeline").value.trim()) form.append("pipeline", $("pipeline").value.trim());
  if ($("disable").value.trim()) form.append("disable", $("disable").value.trim());
  form.append("explain", $("explain").checked ? "true" : "false");
  const headers = {};
  if ($("token").value) headers["Authorization"] = "Bearer " + $("token").value;
  $("status").textContent = "Working...";
  let body;
  try {
    const r = await fetch(path, { method: "POST", body: form, headers });
    body = await r.json();
    $("status").textContent = r.ok ? `Done (HTTP ${r.status})` : `Failed (HTTP ${r.status})`;
  } catch (err) {
    $("status").textContent = "Request failed: " + err;
    return;
  }
  showOutput(body.openmp_source || "");
  showDiagnostics(body.diagnostics || []);
  $("explain-out").textContent = body.explain && Object.keys(body.explain).length
    ? JSON.stringify(body.explain, null, 2) : "";
}

async function takeFiles(fileList) {
  uploads = Array.from(fileList);
  const main = uploads.find((f) => f.name.endsWith(".cu")) || uploads[0];
  if (main) {
    $("source").value = await main.text();
    $("filename").value = main.name;
    renderGutter();
  }
  $("file-list").textContent = uploads.map((f) => f.name).join(", ");
}

$("form").addEventListener("submit", (ev) => { ev.preventDefault(); send("/v1/transpile"); });
$("check").addEventListener("click", () => send("/v1/check"));
$("files").addEventListener("change", (ev) => takeFiles(ev.target.files));
$("source").addEventListener("input", renderGutter);
$("download").addEventListener("click", () => {
  const blob = new Blob([lastOutput], { type: "text/x-c++src" });
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = ($("filename").value || "app.cu").replace(/\.[^.]*$/, "") + ".cpp";
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
renderGutter();
