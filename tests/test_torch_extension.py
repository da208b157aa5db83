"""PyTorch CUDA extensions built for the CPU by moccuda.torch, run against PyTorch's own CPU ops.

Three extensions are built once per test module (a build is slow: libclang and g++ both read
PyTorch's headers, about a minute of CPU each; see docs/PERFORMANCE.md):
  - examples/torch_nll (moccuda.torch.load): nll_loss forward and backward against
    torch.nn.functional.nll_loss, and the small-CNN training loop;
  - examples/torch_fused (setup.py with CUDAExtension/BuildExtension, in a temporary directory):
    a fused bias+GELU op over float, double and half against PyTorch's gelu;
  - tests/programs/torch/compat_probe.cu: each ATen/c10/THC CUDA API of the compat headers.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import sysconfig

import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed (pip install torch --index-url "
                                            "https://download.pytorch.org/whl/cpu): the extension tests need it")
import torch.nn.functional as F  # noqa: E402

from support import EXAMPLES, PROGRAMS, ROOT  # noqa: E402

sys.path.insert(0, str(EXAMPLES / "torch_nll"))
from nll import load_extension, nll_loss  # noqa: E402
from train import train  # noqa: E402

import moccuda.torch  # noqa: E402


@pytest.fixture(scope="module")
def build_root(tmp_path_factory):
    return tmp_path_factory.mktemp("torch_extensions")


@pytest.fixture(scope="module")
def nll_ext(build_root):
    return load_extension(build_root / "nll")


@pytest.fixture(scope="module")
def probe(build_root):
    directory = build_root / "probe"
    directory.mkdir()
    return moccuda.torch.load("compat_probe", [str(PROGRAMS / "torch" / "compat_probe.cu")],
                              build_directory=str(directory))


@pytest.fixture(scope="module")
def fused(build_root):
    """The fused op built by its setup.py, as a user would, in a copy of the example directory."""
    work = build_root / "fused"
    shutil.copytree(EXAMPLES / "torch_fused", work)
    # setuptools compiles with Python's own CFLAGS (-DNDEBUG -g -O3 ...), whose -g makes g++ write
    # debug information for all of PyTorch's headers (34 s more CPU): the same flags and -g0 (an
    # environment CFLAGS takes the place of Python's, so they are all given).
    cflags = f"{sysconfig.get_config_var('CFLAGS') or ''} -g0"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]), CFLAGS=cflags)
    built = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"], cwd=work, capture_output=True,
                           text=True, env=env)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    assert "ignored: -O3 --use_fast_math" in built.stdout
    (library,) = work.glob("fused_bias_gelu*.so")
    spec = importlib.util.spec_from_file_location("fused_bias_gelu", library)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ------------------------------------------------------------------------------------ nll_loss


def _inputs(n, c, dtype, seed):
    gen = torch.Generator().manual_seed(seed)
    log_probs = torch.randn(n, c, generator=gen, dtype=dtype).log_softmax(1)
    target = torch.randint(0, c, (n,), generator=gen)
    return log_probs, target, gen


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("n,c", [(1, 3), (7, 5), (300, 10), (1000, 37)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_nll_matches_native_forward_and_backward(nll_ext, reduction, n, c, dtype):
    log_probs, target, gen = _inputs(n, c, dtype, seed=n * c)
    weight = torch.rand(c, generator=gen, dtype=dtype) + 0.5
    target[::3] = -1  # ignored samples, a non-default ignore_index
    for w in (None, weight):
        ours_in = log_probs.clone().requires_grad_()
        ref_in = log_probs.clone().requires_grad_()
        ours = nll_loss(nll_ext, ours_in, target, weight=w, ignore_index=-1, reduction=reduction)
        ref = F.nll_loss(ref_in, target, weight=w, ignore_index=-1, reduction=reduction)
        assert ours.shape == ref.shape and ours.dtype == ref.dtype
        torch.testing.assert_close(ours, ref, rtol=1e-5, atol=1e-5, equal_nan=True)
        grad = torch.rand(ref.shape, generator=gen, dtype=dtype)
        ours.backward(grad)
        ref.backward(grad)
        torch.testing.assert_close(ours_in.grad, ref_in.grad, rtol=1e-5, atol=1e-5, equal_nan=True)


def test_nll_every_sample_ignored_is_nan_like_native(nll_ext):
    log_probs, target, _ = _inputs(5, 4, torch.float32, seed=1)
    target[:] = -100
    assert torch.isnan(nll_loss(nll_ext, log_probs, target)) and torch.isnan(F.nll_loss(log_probs, target))
    assert nll_loss(nll_ext, log_probs, target, reduction="sum").item() == 0.0


def test_nll_checks_its_arguments(nll_ext):
    log_probs, target, _ = _inputs(4, 3, torch.float32, seed=2)
    with pytest.raises(RuntimeError, match="target must be int64"):
        nll_ext.forward(log_probs, target.int(), torch.ones(3), 1, -100)
    with pytest.raises(RuntimeError, match="input must be contiguous"):
        nll_ext.forward(log_probs.t(), target[:3], torch.ones(4), 1, -100)


def test_small_cnn_trains_like_native(nll_ext):
    steps = train(nll_ext, steps=3, batch=32, log=lambda line: None)
    assert len(steps) == 3 and all(abs(a - b) <= 1e-5 and d <= 1e-5 for a, b, d in steps)
    assert steps[0][0] != steps[-1][0]  # the model did train


# ---------------------------------------------------------------------------- setup.py path


@pytest.mark.parametrize("dtype,tol", [(torch.float32, 1e-6), (torch.float64, 1e-12), (torch.float16, 1e-3)])
def test_fused_bias_gelu_via_setup_py(fused, dtype, tol):
    gen = torch.Generator().manual_seed(3)
    x = torch.randn(33, 70, generator=gen).to(dtype)
    bias = torch.randn(70, generator=gen).to(dtype)
    # The reference in double from the same (rounded) inputs; half results are rounded once.
    exact = F.gelu(x.double() + bias.double(), approximate="tanh")
    y = fused.forward(x, bias)
    assert y.dtype == dtype and y.shape == x.shape
    torch.testing.assert_close(y.double(), exact.to(dtype).double(), rtol=tol, atol=tol)
    grad_y = torch.randn(33, 70, generator=gen).to(dtype)
    x_ref = (x.double()).requires_grad_()
    F.gelu(x_ref + bias.double(), approximate="tanh").backward(grad_y.double())
    grad_x = fused.backward(grad_y, x, bias)
    torch.testing.assert_close(grad_x.double(), x_ref.grad.to(dtype).double(), rtol=tol, atol=tol)


# ----------------------------------------------------------------------------- compat headers


def test_packed_accessor_and_dispatch_and_half(probe):
    x = torch.randn(6, 150, generator=torch.Generator().manual_seed(4))
    for dtype in (torch.float32, torch.float64, torch.float16):
        xs = x.to(dtype)
        torch.testing.assert_close(probe.accessor_row_sums(xs), xs.float().sum(1), rtol=1e-5, atol=1e-4)


def test_device_properties_are_mocudas(probe):
    info = subprocess.run([sys.executable, "-m", "moccuda", "info"], capture_output=True, text=True, cwd=ROOT)
    match = re.search(r"compute capability (\d+)\.(\d+), (\d+) multiprocessors", info.stdout)
    assert match, info.stdout + info.stderr
    major, minor, sms = map(int, match.groups())
    assert probe.device_properties() == [sms, 32, 1024, major, minor, 32, 1, 1]
    assert probe.device_name() in info.stdout


def test_streams_and_stream_guard(probe):
    assert probe.streams() == [1, 1, 1, 1, 12]


def test_device_guards(probe):
    assert probe.guards(torch.ones(2), 0) == [0, 0, 0, 0]
    with pytest.raises(RuntimeError, match="CUDA error: invalid device ordinal"):
        probe.guards(torch.ones(2), 1)


def test_error_checks(probe):
    probe.at_cuda_check(0)
    probe.thc_cuda_check(0)
    with pytest.raises(RuntimeError, match="CUDA error: invalid argument"):
        probe.at_cuda_check(1)  # cudaErrorInvalidValue
    with pytest.raises(RuntimeError, match="CUDA error: invalid argument"):
        probe.thc_cuda_check(1)
    assert probe.launch_checked(8).tolist() == [7] * 8
    with pytest.raises(RuntimeError, match="CUDA error: invalid configuration argument"):
        probe.launch_checked(2048)
    assert probe.launch_checked(8).tolist() == [7] * 8  # the error was read and cleared


def test_thc_ceil_div(probe):
    assert [probe.thc_ceil_div(a, 3) for a in (1, 3, 9, 10)] == [1, 1, 3, 4]


def test_host_device_checks_accept_cpu_tensors(probe):
    assert probe.device_checks(torch.ones(1)) == [True, True, True]


# ------------------------------------------------------------------- launches in a dispatch macro


@pytest.fixture(scope="module")
def row_softmax(build_root):
    directory = build_root / "row_softmax"
    directory.mkdir()
    return moccuda.torch.load("row_softmax", [str(PROGRAMS / "torch" / "row_softmax.cu")],
                              build_directory=str(directory))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_row_softmax_launched_in_dispatch_lambda(row_softmax, dtype):
    """The launch is written inside AT_DISPATCH_FLOATING_TYPES's lambda, a macro argument: its
    block size once read as 1 (so threadIdx.x as 0), barrier-elim called the reuse of the shared
    reduction buffer thread-private and removed the barrier after `rmax = red[0]`."""
    gen = torch.Generator().manual_seed(3)
    x = torch.randn(37, 300, generator=gen, dtype=dtype) * 4
    torch.testing.assert_close(row_softmax.softmax(x), torch.softmax(x, 1), rtol=1e-4, atol=1e-6)


# ------------------------------------------------------------------------------------ errors


def test_untranslatable_source_names_the_construct_and_location(tmp_path):
    cu = tmp_path / "inline_asm.cu"
    cu.write_text("__global__ void k(int *x)\n{\n    x[0] = 1;\n    asm volatile(\"exit;\" ::: \"memory\");\n}\n")
    with pytest.raises(moccuda.torch.TorchTranslationError) as failure:
        moccuda.torch.load("inline_asm_ext", [str(cu)], build_directory=str(tmp_path))
    assert re.search(rf"{re.escape(str(cu))}:4:\d+: error: the PTX instruction 'exit' in inline assembly is not supported", str(failure.value))


# ------------------------------------------------------ compat headers without a torch build


def test_gpu_atomic_add_races_exactly(tmp_path):
    """ATen/cuda/Atomic.cuh's gpuAtomicAdd/Max (float, double, int, at::Half) in a kernel whose
    blocks race on the same counters: a plain program (only c10's header-only types), translated
    with PyTorch's headers as system headers, built with g++ and MocCUDA, run on 2 threads."""
    from moccuda.torch.translate import COMPAT_INCLUDE_DIR, torch_include_dirs
    from support import compile_cpp
    from foundation.options import TranslateOptions
    from transpiler.translate import translate_file

    cu = PROGRAMS / "torch" / "gpu_atomic_add.cu"
    result = translate_file(cu, TranslateOptions(system_include_dirs=(str(COMPAT_INCLUDE_DIR), *torch_include_dirs()),
                                                 std="c++20"))
    cpp = tmp_path / "gpu_atomic_add.cpp"
    cpp.write_text(result.source)
    built = compile_cpp(cpp, tmp_path / "gpu_atomic_add",
                        ["-std=c++20", f"-I{COMPAT_INCLUDE_DIR}", *[f"-isystem{d}" for d in torch_include_dirs()]])
    assert built.returncode == 0, built.stderr[-4000:]
    run = subprocess.run([str(tmp_path / "gpu_atomic_add")], capture_output=True, text=True, timeout=60,
                         env=dict(os.environ, OMP_NUM_THREADS="2"))
    assert run.returncode == 0 and run.stdout.strip() == "PASS", run.stdout + run.stderr
