"""Run the translation on a thread whose stack is deep enough for every stage.

libclang's parser, the bindings' cursor visits, the converter, the passes and the printer all
recurse once (or a few times) per level of the program's nesting.  The main thread's 8 MiB stack
and Python's default limit of 1000 frames give out at a few hundred levels (a 340-term sum was a
``RecursionError``, 10,000 nested ``if``s killed the process with SIGSEGV inside clang).
:func:`call` runs a function on a thread with :data:`STACK_BYTES` of stack and raises Python's
recursion limit to match; the front end keeps nesting below what that stack holds
(``cuda_front.nesting`` before libclang parses, the converter's limit after).

libclang parses on a helper thread of its own with an 8 MiB stack unless ``LIBCLANG_NOTHREADS`` is
set; ``cuda_front.parse`` sets it, so the parse runs here, on this stack.
"""

from __future__ import annotations

import sys
import threading

#: Virtual size of the translation thread's stack: only the pages a deep input touches are used.
STACK_BYTES = 512 << 20
#: Python frames allowed; a frame of the translation uses well under STACK_BYTES / RECURSION_LIMIT.
RECURSION_LIMIT = 200_000
_THREAD_NAME = "cuda2cpu-deep-stack"


def call(fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` on a thread with a deep stack; its result or its exception."""
    if threading.current_thread().name == _THREAD_NAME:
        return fn(*args, **kwargs)
    if sys.getrecursionlimit() < RECURSION_LIMIT:
        sys.setrecursionlimit(RECURSION_LIMIT)
    outcome: dict = {}

    def target() -> None:
        try:
            outcome["value"] = fn(*args, **kwargs)
        except BaseException as exc:  # handed to the caller's thread as it is
            outcome["error"] = exc

    previous = threading.stack_size(STACK_BYTES)
    try:
        thread = threading.Thread(target=target, name=_THREAD_NAME, daemon=True)
        try:
            thread.start()
        except RuntimeError as exc:  # the stack's address space could not be reserved (ulimit -v)
            raise MemoryError(f"no room for the translation's {STACK_BYTES >> 20} MiB stack") from exc
    finally:
        threading.stack_size(previous)
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
