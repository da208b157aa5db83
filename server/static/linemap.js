// Which lines of the translation came from which lines of the CUDA source, from the #line
// directives the translation carries.  Between two directives the source and the translation run
// side by side; where an edit made them differ (a kernel, rewritten), lines with the same text are
// matched (longest common subsequence) and the rest map block to block, between the matches.
"use strict";

const LINE_DIRECTIVE = /^\s*#\s*line\s+(\d+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*$/;

function basename(path) { return path.replace(/\\/g, "/").split("/").pop(); }

// The translation without its #line directives, and the regions they start:
// [{outStart, outEnd, file, srcStart}] with 1-based lines of the shown text.
function splitDirectives(text) {
  const shown = [];
  const regions = [];
  let file = null;
  for (const line of text.split("\n")) {
    const m = LINE_DIRECTIVE.exec(line);
    if (m) {
      if (m[2] !== undefined) file = m[2];
      regions.push({ outStart: shown.length + 1, file, srcStart: parseInt(m[1], 10) });
      continue;
    }
    shown.push(line);
  }
  regions.forEach((r, i) => { r.outEnd = i + 1 < regions.length ? regions[i + 1].outStart : shown.length + 1; });
  return { text: shown.join("\n"), regions };
}

// Pairs [a, b] of matching indices of two line lists (longest common subsequence on trimmed text;
// blank lines never anchor).  Quadratic, so large regions fall back to no anchors.
function commonLines(a, b) {
  if (a.length * b.length > 4e6) return [];
  const key = (s) => s.trim();
  const n = a.length, m = b.length;
  const table = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i][j] = key(a[i]) && key(a[i]) === key(b[j]) ? table[i + 1][j + 1] + 1
        : Math.max(table[i + 1][j], table[i][j + 1]);
    }
  }
  const pairs = [];
  for (let i = 0, j = 0; i < n && j < m;) {
    if (key(a[i]) && key(a[i]) === key(b[j])) { pairs.push([i, j]); i++; j++; }
    else if (table[i + 1][j] >= table[i][j + 1]) i++;
    else j++;
  }
  return pairs;
}

// {text, toOutput: Map(srcLine -> [outLines]), toSource: Map(outLine -> [srcLines])} for the
// translation of `mainFile`, whose source text is `source`.
function buildLineMap(translation, source, mainFile) {
  const { text, regions } = splitDirectives(translation);
  const srcLines = source.split("\n");
  const outLines = text.split("\n");
  const toOutput = new Map(), toSource = new Map();
  const link = (s, o) => {
    if (!toOutput.has(s)) toOutput.set(s, []);
    if (!toSource.has(o)) toSource.set(o, []);
    toOutput.get(s).push(o);
    toSource.get(o).push(s);
  };
  regions.forEach((r, i) => {
    if (!r.file || basename(r.file) !== basename(mainFile)) return;
    const next = regions.slice(i + 1).find((x) => x.file === r.file && x.srcStart > r.srcStart);
    const srcEnd = next ? next.srcStart : srcLines.length + 1;
    const src = srcLines.slice(r.srcStart - 1, srcEnd - 1);
    const out = outLines.slice(r.outStart - 1, r.outEnd - 1);
    const anchors = [...commonLines(src, out), [src.length, out.length]];
    let s0 = 0, o0 = 0;
    for (const [s1, o1] of anchors) {
      // The unmatched lines between two anchors made each other.
      for (let s = s0; s < s1; s++) for (let o = o0; o < o1; o++) link(r.srcStart + s, r.outStart + o);
      if (s1 < src.length) link(r.srcStart + s1, r.outStart + o1);
      s0 = s1 + 1; o0 = o1 + 1;
    }
  });
  return { text, toOutput, toSource };
}

window.Cuda2cpuLineMap = { buildLineMap, splitDirectives };
