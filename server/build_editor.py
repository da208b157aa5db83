"""Build the page's code editor: ``python -m server.build_editor``.

Installs CodeMirror 6 and esbuild from the npm registry at the versions ``server/editor/
package-lock.json`` pins (``npm ci``) and bundles ``server/editor/main.js`` into
``server/static/editor.bundle.js``.  The bundle is not kept in the repository (it is other
projects' code); without it the page falls back to plain text areas.  Needs node and npm, and the
npm registry, at build time only: the service itself never reaches the network.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

EDITOR_DIR = Path(__file__).resolve().parent / "editor"
BUNDLE = Path(__file__).resolve().parent / "static" / "editor.bundle.js"


def build() -> Path:
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit("server.build_editor: error: npm is not installed (Debian: apt-get install npm)")
    subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=EDITOR_DIR, check=True)
    esbuild = EDITOR_DIR / "node_modules" / ".bin" / "esbuild"
    partial = BUNDLE.with_suffix(".partial.js")
    subprocess.run([str(esbuild), "main.js", "--bundle", "--minify", "--format=iife", "--target=es2020",
                    f"--outfile={partial}", "--log-level=warning"], cwd=EDITOR_DIR, check=True)
    os.replace(partial, BUNDLE)  # never a half-written bundle in place
    return BUNDLE


def main() -> int:
    try:
        print(f"wrote {build()}")
    except subprocess.CalledProcessError as exc:
        print(f"server.build_editor: error: {' '.join(map(str, exc.cmd))} failed with status {exc.returncode}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
