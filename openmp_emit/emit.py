"""Emit lowered kernels and translated device functions as C++ with OpenMP.

Requires: every kernel is in parallel-loop form with no barrier left (``barrier-split`` and
friends ran).  A kernel ``k(args)`` becomes ``void k(moccuda::LaunchConfig launch, args)``: it
records itself instead of running while its stream is being captured into a graph, validates the
launch with MocCUDA, then runs an OpenMP parallel loop over the grid's blocks, each
holding its ``__shared__`` arrays, around serial loops over the block's threads.

Before::

    __global__ void add(float *a, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) a[i] += 1;
    }

After::

    void add(moccuda::LaunchConfig launch, float *a, int n)
    {
        if (moccuda::launch_captured(launch, [=] { add(moccuda::replayed(launch), a, n); })) return;
        if (!moccuda::launch_begin(launch)) return;
        const dim3 gridDim = launch.grid;
        const dim3 blockDim = launch.block;
    #pragma omp parallel for collapse(3) schedule(static)
        for (unsigned bz = 0; bz < gridDim.z; ++bz)
        for (unsigned by = 0; by < gridDim.y; ++by)
        for (unsigned bx = 0; bx < gridDim.x; ++bx) {
            const uint3 blockIdx = {bx, by, bz};
            for (unsigned tz = 0; tz < blockDim.z; ++tz)
            for (unsigned ty = 0; ty < blockDim.y; ++ty)
            for (unsigned tx = 0; tx < blockDim.x; ++tx) {
                const uint3 threadIdx = {tx, ty, tz};
                int i = blockIdx.x * blockDim.x + threadIdx.x;
                ...
            }
        }
        moccuda::launch_end(launch);
    }
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from foundation import ir
from openmp_emit.cooperative_emit import CooperativePrinting
from openmp_emit.device_traps import may_trap
from openmp_emit.fiber_emit import FiberPrinting
from foundation.expression_printer import declare, pointer_to_element, print_expr
from openmp_emit.printer import LoopNames, StmtPrinter
from openmp_emit.wide_subscripts import EXACT_INT, exact_value, widened


def _uses_builtin(node: ir.Node, var: str) -> bool:
    for n in node.walk():
        if isinstance(n, (ir.Builtin, ir.BuiltinVector)) and n.var == var:
            return True
    return False


def _identifiers(node: ir.Node) -> set[str]:
    names: set[str] = set()
    for n in node.walk():
        if isinstance(n, (ir.Name, ir.VarDecl, ir.Param, ir.KeptVar)):
            names.add(n.name)
        if isinstance(n, ir.KeptVar):
            names.add(n.storage)
    return names


#: Threads per SIMD chunk of the flat schedule: a multiple of every vector width.
FLAT_CHUNK = 64


@dataclass
class KernelPrinter(CooperativePrinting, FiberPrinting, StmtPrinter):
    """Adds the lowered loop nodes (and the fallback lowering's fiber nodes) to the statement printer."""

    exit_labels: int = 0  # labels ending a thread's part of a thread loop, numbered per kernel
    block_end: str = ""  # the label ending the current block's code, where threads can return
    schedule: str = "blocks"
    in_inner_region: bool = False  # nested schedule: inside a block's inner parallel region
    inner_nowait: bool = False  # nested schedule: the inner region's last loop (its end is a barrier)
    team: bool = False  # the grid loop is an orphaned work-sharing loop (see emit_kernel)
    trapping: frozenset[str] = frozenset()  # translated device functions that can assert (trapping_functions)
    ambient = False  # GridLoop.sets_ambient_index of the grid loop being printed

    def stmt_GridLoop(self, s: ir.GridLoop) -> None:
        bx, by, bz = self.names.block
        self.schedule = s.schedule
        self.ambient = s.sets_ambient_index
        if s.schedule == "cooperative":
            self.cooperative_grid(s)
            return
        loops = [
            f"for (unsigned {bz} = 0; {bz} < gridDim.z; ++{bz})",
            f"for (unsigned {by} = 0; {by} < gridDim.y; ++{by})",
            f"for (unsigned {bx} = 0; {bx} < gridDim.x; ++{bx}) {{",
        ]
        if s.schedule == "flat":
            self.flat_grid(s, loops)
            return
        teams = ""
        if s.schedule == "nested":
            # Outer team over blocks, inner teams over threads, together the OpenMP thread count.
            self.emit(f"const moccuda::NestedTeams {self.names.teams}(launch.grid);")
            teams = f" num_threads({self.names.teams}.outer)"
        # Private copies: a store through a kernel's int pointer could otherwise alias a shared
        # blockDim and force gcc to reload it in every iteration.
        sizes = " firstprivate(gridDim, blockDim)"
        dynamic = bool(s.dynamic_shared) or s.binds_dynamic_shared
        # Only member functions (moccuda::block_dynamic_shared()) read it: the kernel itself does not.
        unread = f"(void){self.names.dynamic_shared};" if not s.dynamic_shared else ""
        if self.team:
            # Every thread of the team runs this function: its locals are private already.
            if dynamic:
                self.emit(f"void *const {self.names.dynamic_shared} = moccuda::dynamic_shared_memory(launch.shared_bytes);")
                if unread:
                    self.emit(unread)
            self.emit("#pragma omp for collapse(3) schedule(static)")
        elif dynamic:
            # One dynamic shared buffer per OpenMP thread, reused by every block and launch.
            self.emit(f"#pragma omp parallel{teams}{sizes}")
            self.emit("{")
            self.indent += 1
            self.emit(f"void *const {self.names.dynamic_shared} = moccuda::dynamic_shared_memory(launch.shared_bytes);")
            if unread:
                self.emit(unread)
            self.emit("#pragma omp for collapse(3) schedule(static)")
        else:
            self.emit(f"#pragma omp parallel for collapse(3) schedule(static){sizes}{teams}")
        for line in loops:
            self.emit(line)
        self.indent += 1
        self.block_index(s)
        for d in s.dynamic_shared:
            self.emit(f"{declare(pointer_to_element(d.type), d.name)} = "
                      f"static_cast<{pointer_to_element(d.type)}>({self.names.dynamic_shared});")
        # Threads that return are marked exited; once all of a block's have, the block is over
        # (its remaining code could otherwise wait on shared state that no thread updates).
        self.block_end = self.names.block_end if any(
            isinstance(n, ir.ThreadLoop) and n.marks_exit for n in s.body.walk()) else ""
        if self.block_end:
            self.emit("{")
            self.indent += 1
        if s.schedule == "nested":
            self.nested_block_body(s.body.stmts)
        else:
            for child in s.body.stmts:
                self.stmt(child)
        if self.block_end:
            self.indent -= 1
            self.emit("}")
            self.emit(f"{self.block_end}:;")
        self.block_end = ""
        self.indent -= 1
        self.emit("}")
        if dynamic and not self.team:
            self.indent -= 1
            self.emit("}")

    def flat_grid(self, s: ir.GridLoop, block_loops: list[str]) -> None:
        """Blocks x y/z threads x chunks of x threads: one collapsed parallel loop."""
        (loop,) = s.body.stmts
        index = dict(zip("xyz", self.names.thread))
        *outer, inner = loop.nesting  # the chunked SIMD dimension is the innermost (thread-order)
        chunk, end_inner = self.names.chunk, self.names.thread_end["xyz".index(inner)]
        if self.team:
            self.emit("#pragma omp for collapse(6) schedule(static)")
        else:
            self.emit("#pragma omp parallel for collapse(6) schedule(static) firstprivate(gridDim, blockDim)")
        for line in block_loops[:2] + [block_loops[2][:-2]]:
            self.emit(line)
        for d in outer:
            self.emit(f"for (unsigned {index[d]} = 0; {index[d]} < blockDim.{d}; ++{index[d]})")
        self.emit(f"for (unsigned {chunk} = 0; {chunk} < blockDim.{inner}; {chunk} += {FLAT_CHUNK}) {{")
        self.indent += 1
        self.block_index(s)
        limits = self.bound_values(loop)
        begins = self.begin_values(loop)
        for d in reversed(outer):
            if d in limits:
                self.emit(f"if ({index[d]} >= {limits[d]}) continue;")
            if d in begins:
                self.emit(f"if ({index[d]} < {begins[d]}) continue;")
        limit = limits.get(inner, f"blockDim.{inner}")
        self.emit(f"const unsigned {end_inner} = moccuda::min_unsigned({chunk} + {FLAT_CHUNK}, {limit});")
        start = f"moccuda::max_unsigned({chunk}, {begins[inner]})" if inner in begins else chunk

        def simd_chunk(version: ir.ThreadLoop) -> None:
            if version.simd and not self.ambient:
                self.emit("#pragma omp simd")
            self.emit(f"for (unsigned {index[inner]} = {start}; {index[inner]} < {end_inner}; ++{index[inner]}) {{")
            self.thread_body(version)
            self.emit("}")

        def chunk_loop(version: ir.ThreadLoop) -> None:
            if not version.wide:
                simd_chunk(version)
                return
            # This chunk's threads: the row of each outer dimension, the chunk along the inner one.
            begins = {d: index[d] for d in outer} | {inner: start}
            ends = {d: f"{index[d]} + 1u" for d in outer} | {inner: end_inner}
            for d in "xyz":
                begins.setdefault(d, "0u")
                ends.setdefault(d, "1u")
            self.wide_versions(version, begins, ends, start, simd_chunk)

        self.full_block_versions(loop, chunk_loop)
        self.indent -= 1
        self.emit("}")

    def block_index(self, s: ir.GridLoop) -> None:
        """``blockIdx`` for the block's code, and the launch's checked facts for the vectorizer."""
        bx, by, bz = self.names.block
        vectorized = any(isinstance(n, ir.ThreadLoop) and n.simd for n in s.walk())
        if _uses_builtin(s, "blockIdx") or vectorized:
            self.emit(f"const uint3 blockIdx = {{{bx}, {by}, {bz}}};")
        if vectorized:
            self.emit("MOCCUDA_ASSUME_CHECKED_LAUNCH(blockIdx, blockDim);")
        if s.sets_ambient_index:
            # For code kept as written that the block's own code calls (moccuda::ambient()).
            self.emit(f"moccuda::set_ambient(uint3{{0, 0, 0}}, uint3{{{bx}, {by}, {bz}}}, blockDim, gridDim);")

    def nested_block_body(self, stmts: tuple[ir.Stmt, ...]) -> None:
        """Consecutive thread loops share one inner parallel region (paper Fig. 10)."""
        i = 0
        while i < len(stmts):
            j = i
            while j < len(stmts) and isinstance(stmts[j], ir.ThreadLoop):
                j += 1
            if j - i < 2:
                self.stmt(stmts[i])
                i += 1
                continue
            self.emit(f"#pragma omp parallel num_threads({self.names.teams}.inner)")
            self.emit("{")
            self.indent += 1
            self.in_inner_region = True
            for loop in stmts[i:j]:
                # The region's end waits for all threads: the last loop's own barrier is redundant.
                self.inner_nowait = loop is stmts[j - 1]
                self.stmt(loop)
            self.in_inner_region = self.inner_nowait = False
            self.indent -= 1
            self.emit("}")
            for loop in stmts[i:j]:
                if loop.marks_exit:
                    self.end_block_if_all_exited(loop.exit_flag)
                    break
            i = j

    @staticmethod
    def bound_values(s: ir.ThreadLoop) -> dict[str, str]:
        """Per dimension with folded guards: the end of the threads that pass them."""
        values: dict[str, str] = {}
        for b in s.bounds:
            if b.lower:
                continue
            count = values.get(b.dim, f"blockDim.{b.dim}")
            helper = "moccuda::threads_through" if b.inclusive else "moccuda::threads_below"
            values[b.dim] = f"{helper}({print_expr(b.first)}, {print_expr(b.limit)}, {count})"
        return values

    @staticmethod
    def begin_values(s: ir.ThreadLoop) -> dict[str, str]:
        """Per dimension with folded lower bounds (``first + t >= limit``): the first thread that
        passes them, which is the number of threads failing them (a prefix, as the index grows
        by one per thread without wrapping): those with ``first + t < limit`` (``<=`` for ``>``)."""
        values: dict[str, str] = {}
        for b in s.bounds:
            if not b.lower:
                continue
            helper = "moccuda::threads_below" if b.inclusive else "moccuda::threads_through"
            begin = f"{helper}({print_expr(b.first)}, {print_expr(b.limit)}, blockDim.{b.dim})"
            values[b.dim] = f"moccuda::max_unsigned({values[b.dim]}, {begin})" if b.dim in values else begin
        return values

    @staticmethod
    def every_thread_passes(b: ir.ThreadBound) -> str:
        """The block-level test that every thread passes the guard ``b`` (and that its index
        has room not to wrap, which lets gcc load ``first + tx`` as a vector)."""
        helper = "moccuda::every_thread_through" if b.inclusive else "moccuda::every_thread_below"
        return f"{helper}({print_expr(b.first)}, {print_expr(b.limit)}, blockDim.{b.dim})"

    def stmt_ThreadLoop(self, s: ir.ThreadLoop) -> None:
        self.full_block_versions(s, self.thread_loop)
        if s.marks_exit and not self.in_inner_region:
            self.end_block_if_all_exited(s.exit_flag)

    def end_block_if_all_exited(self, exit_flag: str) -> None:
        """After a thread loop in which threads can return: when every thread of the block has,
        jump to the block's end, as CUDA ends a block whose threads have all exited."""
        if not self.block_end:
            return
        self.emit("{")
        self.indent += 1
        self.emit("bool block_running = false;")
        self.emit("for (unsigned exited_thread = 0; exited_thread < blockDim.x * blockDim.y * blockDim.z; "
                  "++exited_thread)")
        self.emit(f"    block_running |= !{exit_flag}[exited_thread];")
        self.emit(f"if (!block_running) goto {self.block_end};")
        self.indent -= 1
        self.emit("}")

    def full_block_versions(self, s: ir.ThreadLoop, print_loop) -> None:
        """``print_loop(s)``, or, for a loop with a guard-free version, both behind the test
        whether every thread of the block passes the guards."""
        if s.fast_body is None:
            print_loop(s)
            return
        every = " && ".join(self.every_thread_passes(b) for b in s.fast_bounds)
        self.emit(f"if ({every}) {{")
        self.indent += 1
        self.emit("// Every thread of this block passes the guards: the same loop without them.")
        print_loop(replace(s, body=s.fast_body, fast_body=None, fast_bounds=(), row=None))
        self.indent -= 1
        self.emit("} else {")
        self.indent += 1
        print_loop(replace(s, fast_body=None, fast_bounds=()))
        self.indent -= 1
        self.emit("}")

    def thread_loop(self, s: ir.ThreadLoop) -> None:
        ends = {d: f"blockDim.{d}" for d in "xyz"}
        begins = {d: "0" for d in "xyz"}
        steps: dict[str, str] = {}
        values = self.bound_values(s)
        begin_values = self.begin_values(s)
        if values or begin_values or s.stride:
            # The bounds are computed once, before any thread runs, as the guards were read.
            self.emit("{")
            self.indent += 1
            for d, begin_name in zip("xyz", self.names.thread_begin):
                if d in begin_values:
                    self.emit(f"const unsigned {begin_name} = {begin_values[d]};")
                    begins[d] = begin_name
            for d, end_name in zip("xyz", self.names.thread_end):
                if d in values:
                    self.emit(f"const unsigned {end_name} = {values[d]};")
                    ends[d] = end_name
        if s.stride:
            # The threads whose index is a multiple of the divisor: the first, then every divisor-th.
            d = s.stride.dim
            i = "xyz".index(d)
            first, divisor = print_expr(s.stride.first), print_expr(s.stride.divisor)
            self.emit(f"const unsigned {self.names.thread_first[i]} = "
                      f"moccuda::first_multiple({first}, {divisor}, {begins[d]}, {ends[d]});")
            self.emit(f"const unsigned {self.names.thread_step[i]} = moccuda::multiple_step({divisor});")
            begins[d], steps[d] = self.names.thread_first[i], self.names.thread_step[i]
        if s.wide and self.schedule != "nested":
            self.wide_versions(s, begins, ends, begins[s.nesting[-1]],
                               lambda loop: self.thread_nest(loop, begins, ends, steps, begin_values))
        else:
            self.thread_nest(s, begins, ends, steps, begin_values)
        if values or begin_values or s.stride:
            self.indent -= 1
            self.emit("}")

    def wide_versions(self, s: ir.ThreadLoop, begins: dict[str, str], ends: dict[str, str], first: str,
                      print_loop) -> None:
        """``print_loop`` of ``s`` with its ``wide`` subscripts in 64 bits, counted from the thread
        ``first`` along the innermost dimension, behind the block's test that they are exact, and
        of ``s`` as it is otherwise."""
        self.emit(f"if ({self.wide_test(s, begins, ends)}) {{")
        self.indent += 1
        self.emit("// Every subscript below computed in 64 bits has the value that 32-bit arithmetic gives it:")
        self.emit("// the same loop, whose subscripts gcc follows from thread to thread.")
        print_loop(replace(s, body=widened(s.body, s.wide, ir.Literal(_unsigned_text(first))), wide=(), row=None))
        self.indent -= 1
        self.emit("} else {")
        self.indent += 1
        print_loop(replace(s, wide=()))
        self.indent -= 1
        self.emit("}")

    def wide_test(self, s: ir.ThreadLoop, begins: dict[str, str], ends: dict[str, str]) -> str:
        """The block's test that every one of ``s.wide`` is exact at every thread the loop runs
        (at the corners of the box ``begins``..``ends``)."""
        names = dict(zip("xyz", self.names.thread))
        tests = []
        for w in s.wide:
            used = {n.dim for n in w.exact.walk() if isinstance(n, ir.Builtin) and n.var == "threadIdx"}
            params = ", ".join(f"{EXACT_INT} {names[d]}" if d in used else EXACT_INT for d in "xyz")
            value = print_expr(exact_value(w, {d: ir.Name(names[d]) for d in "xyz"}))
            box = ", ".join(f"{_unsigned_text(begins[d])}, {ends[d]}" for d in "xyz")
            kind = "int" if w.signed else "unsigned"
            tests.append(f"moccuda::subscript_exact<{kind}>([=]({params}) {{ return {value}; }}, {box})")
        return " && ".join(tests)

    def thread_nest(self, s: ir.ThreadLoop, begins: dict[str, str], ends: dict[str, str], steps: dict[str, str],
                    begin_values: dict[str, str]) -> None:
        """The loops over ``s``'s threads and its body, the bounds computed."""
        sums = f" reduction(+:{', '.join(n.name for n in s.sums)})" if s.sums else ""
        if self.schedule == "nested":
            if self.in_inner_region:
                self.emit(f"#pragma omp for collapse(3) schedule(static){sums}" + (" nowait" if self.inner_nowait else ""))
            else:
                self.emit(f"#pragma omp parallel for collapse(3) schedule(static) num_threads({self.names.teams}.inner){sums}")
        index = dict(zip("xyz", self.names.thread))
        outer = s.nesting[:-1]
        rows = s.row is not None and self.schedule == "blocks" and not self.ambient
        for k, d in enumerate(outer):
            advance = f"{index[d]} += {steps[d]}" if d in steps else f"++{index[d]}"
            opens = " {" if rows and k == len(outer) - 1 else ""
            self.emit(f"for (unsigned {index[d]} = {begins[d]}; {index[d]} < {ends[d]}; {advance}){opens}")
        if rows:
            self.row_of_threads(s, begins, ends, steps, begin_values)
        else:
            self.innermost_loop(s, begins, ends, steps, begin_values)

    def row_of_threads(self, s: ir.ThreadLoop, begins: dict[str, str], ends: dict[str, str],
                       steps: dict[str, str], begin_values: dict[str, str]) -> None:
        """One row of ``s``'s threads (the caller opened the outer loops' brace): its prelude,
        then the innermost loop over the part of the body its guard selects (``row-licm``)."""
        row = s.row
        index = dict(zip("xyz", self.names.thread))
        # The prelude reads the row's thread indices (never the innermost one) as the loops' counters.
        rows_index = {d: ir.Name(index[d]) for d in s.nesting[:-1]}

        def at_row(node):
            return ir.transform(node, lambda n: rows_index[n.dim] if isinstance(n, ir.Builtin)
                                and n.var == "threadIdx" and n.dim in rows_index else n)

        def loop_over(body: ir.Block) -> None:
            self.innermost_loop(replace(s, body=body, row=None), begins, ends, steps, begin_values)

        self.indent += 1
        for decl in row.prelude:
            self.stmt(at_row(decl))
        if row.guard is None:
            loop_over(row.then)
        else:
            self.emit(f"if ({print_expr(at_row(row.guard))}) {{")
            self.indent += 1
            loop_over(row.then)
            self.indent -= 1
            if row.otherwise is not None:
                self.emit("} else {")
                self.indent += 1
                loop_over(row.otherwise)
                self.indent -= 1
            self.emit("}")
        self.indent -= 1
        self.emit("}")

    def innermost_loop(self, s: ir.ThreadLoop, begins: dict[str, str], ends: dict[str, str],
                       steps: dict[str, str], begin_values: dict[str, str]) -> None:
        """The loop over ``s``'s innermost thread index, and the body."""
        sums = f" reduction(+:{', '.join(n.name for n in s.sums)})" if s.sums else ""
        index = dict(zip("xyz", self.names.thread))
        inner = s.nesting[-1]
        if s.simd and self.schedule != "nested" and not self.ambient:
            self.emit(f"#pragma omp simd{sums}")
        if inner in begin_values or inner in steps:
            # An int counter: gcc 12 cannot tell that (int)tx of an unsigned counter started at
            # tx_begin does not wrap, takes the body's int indices for non-affine and leaves the
            # loop scalar; a signed counter does not wrap (both ends are at most 1024, the first
            # multiple at most 1025 past the start, the step at most 1025).
            counter = self.names.thread_counter["xyz".index(inner)]
            advance = f"{counter} += (int){steps[inner]}" if inner in steps else f"++{counter}"
            self.emit(f"for (int {counter} = (int){begins[inner]}; {counter} < (int){ends[inner]}; {advance}) {{")
            if _uses_builtin(s, "threadIdx") or s.kept or s.marks_exit or s.skip_exited or self.ambient:
                self.emit(f"    const unsigned {index[inner]} = {counter};")
        else:
            self.emit(f"for (unsigned {index[inner]} = 0; {index[inner]} < {ends[inner]}; ++{index[inner]}) {{")
        self.thread_body(s)
        self.emit("}")

    def ambient_for_thread(self, thread: str) -> str:
        """The statement that gives code kept as written (``moccuda::ambient()``) the builtin
        vectors of the CUDA thread whose code follows; under the nested schedule it runs on
        another OpenMP thread than its block's code, so the block's are set again too."""
        bx, by, bz = self.names.block
        return f"moccuda::set_ambient({thread}, uint3{{{bx}, {by}, {bz}}}, blockDim, gridDim);"

    def thread_body(self, s: ir.ThreadLoop) -> None:
        """One thread's iteration (the caller opened the loop's brace and closes it)."""
        tx, ty, tz = self.names.thread
        flat = self.names.flat_thread
        self.indent += 1
        if _uses_builtin(s, "threadIdx"):
            self.emit(f"const uint3 threadIdx = {{{tx}, {ty}, {tz}}};")
        if self.ambient:
            self.emit(self.ambient_for_thread(f"uint3{{{tx}, {ty}, {tz}}}"))
        if s.kept or s.marks_exit or s.skip_exited:
            self.emit(f"const unsigned {flat} = ({tz} * blockDim.y + {ty}) * blockDim.x + {tx};")
        if s.skip_exited:
            self.emit(f"if ({s.exit_flag}[{flat}]) continue;")
        for kv in s.kept:
            self.emit(f"auto &{kv.name} = {kv.storage}[{flat}];")
        saved = (self.in_thread_loop, self.breakable_depth, self.exit_flag)
        self.in_thread_loop, self.breakable_depth = True, 0
        self.exit_flag = s.exit_flag if s.marks_exit else ""
        traps = may_trap(s.body, self.trapping)
        if traps:
            self.begin_trap_scope("continue;")
        if ir.exits_from_nested_loop(s.body):
            # A return inside a user loop jumps past the body's scope to the next thread.
            self.exit_labels += 1
            names = self.names
            label = names.exit_label if self.exit_labels == 1 else f"{names.exit_label}_{self.exit_labels}"
            self.names = replace(names, exit_label=label)
            self.emit("{")
            self.emit_block_contents(s.body)
            self.emit("}")
            self.emit(f"{label}:;")
            self.names = names
        else:
            for child in s.body.stmts:
                self.stmt(child)
        if traps:
            self.end_trap_scope()
        self.in_thread_loop, self.breakable_depth, self.exit_flag = saved
        self.indent -= 1

    def begin_trap_scope(self, skip: str) -> None:
        """Opens a thread's code in a kernel that can assert: skipped (``skip``) once a device
        assert failed, and in a ``try`` that ends the thread whose assert fails
        (``moccuda::KernelTrap``, caught by :meth:`end_trap_scope`)."""
        self.emit(f"if (moccuda::kernel_trapped()) {skip}")
        self.emit("try {")
        self.indent += 1

    def end_trap_scope(self) -> None:
        self.indent -= 1
        self.emit("} catch (const moccuda::KernelTrap &) {")
        self.emit("}")


def _unsigned_text(text: str) -> str:
    """A thread loop's first index along a dimension (an ``unsigned`` name, or ``0``) as an
    expression of type ``unsigned``."""
    return "0u" if text == "0" else text


#: MocCUDA's attributes for a function holding thread loops (cuda2cpu_device.h): g++ keeps a
#: copy over a row of threads a loop instead of calling memcpy for it.
KERNEL_ATTRIBUTES = "MOCCUDA_KERNEL"

#: The same for a function whose thread loops sum a block as they load it: g++ also unrolls them.
SUMMING_KERNEL_ATTRIBUTES = "MOCCUDA_SUMMING_KERNEL"


def sums_a_block(kernel: ir.Kernel) -> bool:
    """Whether ``kernel`` sums a block in a loop (``reassociate-reductions``: a thread loop with
    ``sums``, or a ``SimdReduction`` over a row of ``__shared__`` values)."""
    return any(isinstance(n, ir.ThreadLoop) and n.sums or isinstance(n, ir.SimdReduction)
               for n in kernel.body.walk())


def kernel_signature(kernel: ir.Kernel, name: str = "", head: str = "") -> str:
    params = ["moccuda::LaunchConfig launch"] + [_declare_param(p) for p in kernel.params]
    head = head or (f"{kernel.qualifiers} " if kernel.qualifiers else "")
    return f"{head}void {name or kernel.name + kernel.specialization}({', '.join(params)})"


def emit_kernel(kernel: ir.Kernel, team: bool = False, trapping: frozenset[str] = frozenset(),
                assumed_block: tuple[int | None, int | None, int | None] | None = None,
                assumed_distinct: tuple[tuple[str, str], ...] = ()) -> str:
    """The kernel as a C++ function taking the launch configuration first.

    ``team``: the kernel is also launched inside parallel regions the host code opens
    (``launch-regions``), so its grid loop is an orphaned work-sharing loop in a function
    ``NAME__team`` that every thread of a team calls, and ``NAME`` opens a region around it.
    ``trapping``: the translated device functions that can fail a device assert
    (:func:`openmp_emit.device_traps.trapping_functions`).  ``assumed_block``: the block size (x, y, z; None where unknown)
    the translation took from the launches of its file, for a kernel other files may launch too:
    ``NAME`` checks it first (``moccuda::check_assumed_block``); ``assumed_distinct``, likewise,
    the pointer parameters taken to be in distinct allocations (``check_distinct_allocations``)."""
    kernel, assumed_distinct = _parameters_not_hiding_the_kernel(kernel, assumed_distinct)
    checks = assumption_checks(kernel, assumed_block, assumed_distinct)
    used = _identifiers(kernel) | {"launch", "gridDim", "blockDim", "blockIdx", "threadIdx"}
    printer = KernelPrinter(names=LoopNames.avoiding(used), team=team, trapping=trapping)
    args = ", ".join(["launch"] + [p.name for p in kernel.params])
    if kernel.template:
        printer.emit(kernel.template)
    # The function that holds the thread loops: compiled without loop-to-library-call patterns,
    # and with its block sums unrolled.
    printer.emit(SUMMING_KERNEL_ATTRIBUTES if sums_a_block(kernel) else KERNEL_ATTRIBUTES)
    if team:
        printer.emit(f"{kernel_signature(kernel, team_function_name(kernel.name), 'static ')}")
        printer.emit("{")
        printer.indent += 1
        printer.emit("// Run by every thread of a team: the grid loop is shared among them.")
    else:
        printer.emit(kernel_signature(kernel))
        printer.emit("{")
        printer.indent += 1
        for check in checks:
            printer.emit(check)
        printer.emit(capture_check(kernel))
    for local_type in kernel.local_types:
        printer.emit(local_type.text)
    printer.emit("if (!moccuda::launch_begin(launch)) return;")
    printer.emit("const dim3 gridDim = launch.grid;")
    grid = ir.grid_loop(kernel)
    if grid is not None and grid.block_extent is not None:
        # Every launch gives this block size (constant-block): the launch's, as constants.
        # Copy-initialized: gcc 12 then uses the constants inside the outlined parallel region
        # too; a direct-initialized `blockDim(256u, 1u, 1u)` it captures as a runtime value there.
        printer.emit(f"const dim3 blockDim = dim3({', '.join(f'{d}u' for d in grid.block_extent)});")
    else:
        printer.emit("const dim3 blockDim = launch.block;")
    printer.stmt(kernel.body)
    printer.emit("moccuda::launch_end(launch);")
    printer.indent -= 1
    printer.emit("}")
    if team:
        printer.emit("")
        if kernel.template:
            printer.emit(kernel.template)
        printer.emit(kernel_signature(kernel))
        printer.emit("{")
        printer.indent += 1
        for check in checks:
            printer.emit(check)
        printer.emit(capture_check(kernel))
        printer.emit("#pragma omp parallel")
        printer.emit(f"{team_function_name(kernel.name)}{kernel.template_args}({args});")
        printer.indent -= 1
        printer.emit("}")
    return _fix_pragmas(printer.text())


def _parameters_not_hiding_the_kernel(kernel: ir.Kernel, assumed_distinct: tuple[tuple[str, str], ...]):
    """``kernel`` with a parameter named as the kernel itself (``lb_keogh(..., float *lb_keogh)``)
    renamed: in the body the parameter hides the function, which the capture check calls
    (:func:`capture_check`).  The name is the callee's own business: callers pass by position."""
    clashing = {p.sym for p in kernel.params if p.name == kernel.name}
    if not clashing:
        return kernel, assumed_distinct
    new_name = kernel.name + "_arg"
    used = _identifiers(kernel)
    while new_name in used:
        new_name += "_"

    def rename(node: ir.Node) -> ir.Node:
        if isinstance(node, (ir.Name, ir.Param)) and node.sym in clashing:
            return replace(node, name=new_name)
        return node

    distinct = tuple(tuple(new_name if n == kernel.name else n for n in pair) for pair in assumed_distinct)
    return ir.transform(kernel, rename), distinct


def capture_check(kernel: ir.Kernel) -> str:
    """The kernel's first statement after its launch checks: a launch into a stream under capture
    (``cudaStreamBeginCapture``) records a call of the kernel itself with the same arguments,
    which each launch of the captured graph runs (``moccuda::launch_captured``), and returns."""
    passed = [p.name + ("..." if p.type.rstrip().endswith("...") else "") for p in kernel.params]  # packs expanded
    args = ", ".join(["moccuda::replayed(launch)"] + passed)
    name = kernel.name + (kernel.specialization or kernel.template_args)
    return f"if (moccuda::launch_captured(launch, [=] {{ {name}({args}); }})) return;"


def assumption_checks(kernel: ir.Kernel, assumed_block, assumed_distinct) -> list[str]:
    """The statements that check a launch against what the translation assumed of it."""
    where = c_string(f"{kernel.loc.file}:{kernel.loc.line}:{kernel.loc.column}")
    name = c_string(kernel.name)
    checks = []
    if assumed_block is not None and any(d is not None for d in assumed_block):
        sizes = ", ".join(f"{d or 0}u" for d in assumed_block)
        checks.append(f"moccuda::check_assumed_block(launch, {sizes}, {where}, {name});")
    for a, b in assumed_distinct:
        checks.append(f"moccuda::check_distinct_allocations({a}, {b}, {where}, {name}, {c_string(a)}, {c_string(b)});")
    return checks


def c_string(text: str) -> str:
    """``text`` as a C string literal (octal escapes for what is not printable ASCII)."""
    out = []
    for byte in text.encode("utf-8", "surrogateescape"):
        ch = chr(byte)
        if ch in '"\\?':
            out.append("\\" + ch)
        elif 32 <= byte < 127:
            out.append(ch)
        else:
            out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


#: What ``emit_kernel(..., team=True)`` appends to a kernel's name for its work-sharing form.
TEAM_SUFFIX = "__team"


def team_function_name(kernel_name: str) -> str:
    return kernel_name + TEAM_SUFFIX


def can_run_in_team(kernel: ir.Kernel) -> bool:
    """The kernel can be a work-sharing loop inside a region opened elsewhere: a grid loop
    scheduled blocks or flat, and if a template, one whose parameters can be passed on by name.
    Launch-level code before the grid loop may only be declarations (what ``parallel-licm``
    hoists: side-effect-free reads of memory the kernel does not write), which every thread of
    the team then computes for itself, to the same values."""
    grid = ir.grid_loop(kernel)
    launch_level = kernel.body.stmts[:-1] if grid is not None and kernel.body is not grid else ()
    return (grid is not None and grid.schedule in ("blocks", "flat")
            and all(isinstance(s, ir.VarDecl) for s in launch_level)
            and (not kernel.template or bool(kernel.template_args)) and not kernel.specialization)


def _fix_pragmas(text: str) -> str:
    """Pragmas start at column 0, as is customary (and indentation-independent)."""
    return "\n".join(line.lstrip() if line.lstrip().startswith("#pragma") else line
                     for line in text.split("\n"))


def kernel_declaration(kernel_name: str, params_text: list[str], template: str, qualifiers: str) -> str:
    """``kernel_name`` carries an explicit specialization's arguments (``k<float>``), if any."""
    head = f"{template}\n" if template else ""
    q = f"{qualifiers} " if qualifiers else ""
    return f"{head}{q}void {kernel_name}({', '.join(['moccuda::LaunchConfig launch'] + params_text)})"


def _declare_param(p: ir.Param) -> str:
    """A parameter's declaration, with its default argument where the source wrote one."""
    return declare(p.type, p.name) + (f" = {p.default}" if p.default else "")


def emit_device_function(fn: ir.DeviceFunction) -> str:
    printer = StmtPrinter()
    if fn.template:
        printer.emit(fn.template)
    params = [f"const {ir.BUILTIN_TYPES[b]} {b}" for b in fn.builtins]
    params += [_declare_param(p) for p in fn.params]
    head = f"{fn.qualifiers} " if fn.qualifiers else ""
    name = fn.name if fn.specialization == "<>" else fn.name + fn.specialization  # <>: deduced
    printer.emit(f"{head}{declare(fn.return_type, name)}({', '.join(params)})")
    printer.stmt(ir.as_block(fn.body))
    return printer.text()


__all__ = ["emit_kernel", "emit_device_function", "kernel_signature", "kernel_declaration", "print_expr"]
