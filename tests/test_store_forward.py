"""Pass store-forward: stored values forwarded across barriers, dead stores removed (paper Sec.
IV-B), where and only where no other thread can change or need the stored location.  Every
transformed program is run and checked, and gives the same output with ``--no-store-forward``."""

from __future__ import annotations

import pytest

from openmp_emit.printer import StmtPrinter
from support import PROGRAMS, translate_build_run
from test_barrier_effects import analysis_ir, thread_loop
from foundation import ir
from foundation.options import TranslateOptions

CASES = r"""
#include <cstdio>
#include <cuda_runtime.h>
#define B 64

// s[t] is read back by its own thread: forwarded; s[(t + 1) % B] still comes from memory
__global__ void forward_own(const int *in, int *out)
{
    __shared__ int s[B];
    int t = threadIdx.x;
    s[t] = in[t] * 3;
    __syncthreads();
    out[t] = s[t] + s[(t + 1) % B];
}

// thread 0 rewrites s[1] between the store and the read: no forwarding
__global__ void overwritten_by_other(const int *in, int *out)
{
    __shared__ int s[B];
    int t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    if (t == 0) s[1] = 100;
    __syncthreads();
    out[t] = s[t];
}

// s[t] *= 2 takes the first store's value from the register; the first store is then dead
__global__ void dead_store(const int *in, int *out)
{
    __shared__ int s[B];
    int t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    s[t] *= 2;
    __syncthreads();
    out[t] = s[B - 1 - t];
}

// nobody reads s again: its store is dead once its one read is forwarded
__global__ void never_read_again(const int *in, int *out)
{
    __shared__ int s[B];
    int t = threadIdx.x;
    s[t] = in[t] + 1;
    __syncthreads();
    out[t] = s[t] * 2;
}

// the forwarded value has the stored element's type (float), not the value's (int)
__global__ void converts(const int *in, float *out)
{
    __shared__ float f[B];
    int t = threadIdx.x;
    f[t] = in[t] / 2;
    __syncthreads();
    out[t] = f[t] / 4;
}

static int check(const char *name, const int *got, const int *want)
{
    for (int i = 0; i < B; ++i)
        if (got[i] != want[i]) {
            printf("FAIL: %s[%d] = %d, expected %d\n", name, i, got[i], want[i]);
            return 1;
        }
    printf("%s ok\n", name);
    return 0;
}

int main()
{
    int in[B], got[B], want[B];
    float fgot[B];
    for (int i = 0; i < B; ++i) in[i] = 5 * i - 77;
    int *din, *dout;
    float *dfout;
    cudaMalloc(&din, sizeof(in));
    cudaMalloc(&dout, sizeof(got));
    cudaMalloc(&dfout, sizeof(fgot));
    cudaMemcpy(din, in, sizeof(in), cudaMemcpyHostToDevice);
    int bad = 0;

    forward_own<<<1, B>>>(din, dout);
    cudaMemcpy(got, dout, sizeof(got), cudaMemcpyDeviceToHost);
    for (int i = 0; i < B; ++i) want[i] = 3 * in[i] + 3 * in[(i + 1) % B];
    bad |= check("forward_own", got, want);

    overwritten_by_other<<<1, B>>>(din, dout);
    cudaMemcpy(got, dout, sizeof(got), cudaMemcpyDeviceToHost);
    for (int i = 0; i < B; ++i) want[i] = i == 1 ? 100 : in[i];
    bad |= check("overwritten_by_other", got, want);

    dead_store<<<1, B>>>(din, dout);
    cudaMemcpy(got, dout, sizeof(got), cudaMemcpyDeviceToHost);
    for (int i = 0; i < B; ++i) want[i] = 2 * in[B - 1 - i];
    bad |= check("dead_store", got, want);

    never_read_again<<<1, B>>>(din, dout);
    cudaMemcpy(got, dout, sizeof(got), cudaMemcpyDeviceToHost);
    for (int i = 0; i < B; ++i) want[i] = 2 * (in[i] + 1);
    bad |= check("never_read_again", got, want);

    converts<<<1, B>>>(din, dfout);
    cudaMemcpy(fgot, dfout, sizeof(fgot), cudaMemcpyDeviceToHost);
    for (int i = 0; i < B; ++i) {
        got[i] = (int)(fgot[i] * 8);
        want[i] = (int)((float)(in[i] / 2) / 4 * 8);
    }
    bad |= check("converts", got, want);

    printf(bad ? "FAIL\n" : "PASS\n");
    return bad;
}
"""


class _Printer(StmtPrinter):
    def stmt_Barrier(self, s: ir.Barrier) -> None:
        self.emit("__syncthreads();")


def body_text(kernel: ir.Kernel) -> str:
    printer = _Printer()
    for s in thread_loop(kernel).body.stmts:
        printer.stmt(s)
    return printer.text()


@pytest.fixture(scope="module")
def forwarded(tmp_path_factory):
    work = tmp_path_factory.mktemp("forward")
    source = CASES.replace("#include <cuda_runtime.h>\n", "")
    program, _ = analysis_ir(source, work, "parallel-loops,store-forward")
    return {k.name: body_text(k) for k in program.kernels}


def test_value_is_forwarded_from_the_register(forwarded):
    text = forwarded["forward_own"]
    assert "int s_fwd = in[t] * 3;" in text
    assert "out[t] = s_fwd + s[(t + 1) % 64];" in text
    assert "s[t] = s_fwd;" in text  # other threads read it: the store stays


def test_no_forwarding_when_another_thread_may_write_the_location(forwarded):
    assert "_fwd" not in forwarded["overwritten_by_other"]
    assert "out[t] = s[t];" in forwarded["overwritten_by_other"]


def test_dead_stores_are_removed(forwarded):
    assert forwarded["dead_store"].splitlines()[1:4] == [
        "int s_fwd = in[t];", "__syncthreads();", "s[t] = s_fwd * 2;"]
    assert "s[" not in forwarded["never_read_again"]


def test_forwarded_value_keeps_the_element_type(forwarded):
    assert "float f_fwd = in[t] / 2;" in forwarded["converts"]


def test_forwarded_programs_compute_the_same(tmp_path):
    cu = tmp_path / "forward_cases.cu"
    cu.write_text(CASES)
    _, run, _ = translate_build_run(cu, tmp_path)
    assert run.returncode == 0 and run.stdout.strip().endswith("PASS"), run.stdout + run.stderr
    off = tmp_path / "off"
    off.mkdir()
    result, plain, _ = translate_build_run(cu, off, TranslateOptions(disabled_passes=("store-forward",)))
    assert "_fwd" not in result.source
    assert plain.returncode == 0 and plain.stdout == run.stdout


def test_fig9_weights_forwarded_from_the_register(tmp_path):
    """Paper Fig. 9: the value stored to weight_matrix[ty][tx] before the second barrier is
    forwarded to the multiply after it, and the store becomes dead."""
    fig9 = PROGRAMS / "barriers" / "backprop_layerforward.cu"
    source = fig9.read_text().replace("#include <cuda_runtime.h>\n", "")
    program, _ = analysis_ir(source, tmp_path, "parallel-loops,barrier-elim,store-forward", name=fig9.name)
    text = body_text(program.kernels[0])
    assert "float weight_matrix_fwd = weights[index];\n__syncthreads();\n" \
           "weight_matrix[ty][tx] = weight_matrix_fwd * input_node[ty];" in text
    assert "weight_matrix[ty][tx] = weights[index];" not in text
