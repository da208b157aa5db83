"""The pipeline: every pass module loaded, the default order, and pipelines built from names.

A pipeline is a comma-separated string of pass names, so the CLI, the server and the tests all
build pipelines the same way, and ``--no-NAME`` drops an optional pass (for ablation).  Required
passes (the ones that give the program its meaning on a CPU) cannot be dropped.  The passes
register themselves (:func:`foundation.passes.register`) when their modules are imported.
"""

from __future__ import annotations

import importlib
import pkgutil

import barrier
import openmp_emit
from foundation.diagnostics import CompileError, Diagnostic, SourceLoc
from foundation.passes import PASS_REGISTRY, Pass


#: The order passes take in the default pipeline.  Analyses and optimizations of the barrier
#: semantics come after ``parallel-loops`` and before the lowering passes that remove barriers.
PIPELINE_ORDER = (
    "parallel-loops",
    "inline-device",
    "fiber-lowering",
    "warp-collectives",
    "warp-exchange-merge",
    "scoped-loop-counters",
    "barrier-elim",
    "barrier-motion",
    "store-forward",
    "parallel-licm",
    "grid-sync",
    "inline-for-interchange",
    "loop-interchange",
    "single-assignment",
    "barrier-interchange",
    "min-cut",
    "barrier-split",
    "race-check",
    "reassociate-reductions",
    "guard-folding",
    "uniform-kept",
    "thread-simd",
    "thread-order",
    "texture-span",
    "constant-block",
    "schedule",
    "block-prefetch",
    "launch-regions",
    "device-math",
    "wide-subscripts",
    "row-licm",
)


def _load_passes() -> None:
    """Import every pass module of the pass packages; importing registers the passes."""
    for package in (barrier, openmp_emit):
        for info in pkgutil.iter_modules(package.__path__):
            importlib.import_module(f"{package.__name__}.{info.name}")


#: Passes that change what a program computes within limits the user accepts: the default
#: pipeline has them only when asked (``opted_in``), each by its own flag named as the pass, or
#: named in ``--pipeline``.  None today: ``reassociate-reductions`` runs by default on integer
#: sums, which are exact in any order, and its flag extends it to floating point (the rounding
#: changes); the flag still adds the pass to a ``--pipeline`` that leaves it out.
OPT_IN: frozenset[str] = frozenset()


def default_pipeline(opted_in: tuple[str, ...] = ()) -> str:
    _load_passes()
    return ",".join(n for n in PIPELINE_ORDER if n in PASS_REGISTRY and (n not in OPT_IN or n in opted_in))


def build_pipeline(spec: str | None, disabled: tuple[str, ...] = (), opted_in: tuple[str, ...] = ()) -> list[Pass]:
    """The passes of ``spec`` (the default pipeline, with the ``opted_in`` passes, when None),
    less the ``disabled`` ones.  An opted-in pass that ``spec`` leaves out is added at its place
    in :data:`PIPELINE_ORDER`: the flag asks for it whatever the pipeline."""
    _load_passes()
    names = [n.strip() for n in (spec or default_pipeline(opted_in)).split(",") if n.strip()]
    for extra in opted_in:
        if extra in names or extra not in PIPELINE_ORDER:
            continue
        after = PIPELINE_ORDER[:PIPELINE_ORDER.index(extra)]
        at = max((i + 1 for i, n in enumerate(names) if n in after), default=0)
        names.insert(at, extra)
    unknown = [n for n in list(names) + list(disabled) if n not in PASS_REGISTRY]
    if unknown:
        known = ", ".join(sorted(PASS_REGISTRY))
        raise CompileError([Diagnostic("error", SourceLoc("<command line>", 0, 0),
                                       f"unknown pass '{unknown[0]}' (known passes: {known})")])
    passes = []
    for n in names:
        p = PASS_REGISTRY[n]()
        if n in disabled:
            if p.required:
                raise CompileError([Diagnostic("error", SourceLoc("<command line>", 0, 0),
                                               f"pass '{n}' is required and cannot be disabled")])
            continue
        passes.append(p)
    return passes
