"""The suite's benchmarks: where each lives, its input sizes and how its outputs are compared.

Every benchmark is a directory ``rodinia_suite/<name>/`` holding ``<name>.cu`` (the CUDA version,
translated by cuda2cpu) and ``<name>_omp.cpp`` (the hand-written OpenMP version).  Both take the
same size arguments, then ``SEED OUTFILE``; both print ``RODINIA_TIME <seconds>`` for their main
part and write their result to OUTFILE as whitespace-separated numbers.  A variant (kmeans_texture)
lives in its original's directory and shares its OpenMP program.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

SUITE_DIR = Path(__file__).resolve().parent
COMMON_DIR = SUITE_DIR / "common"
SIZES = ("test", "quick", "full")
SEED = 12345


@dataclass(frozen=True)
class Benchmark:
    name: str
    #: Size name -> the program's size arguments (before SEED and OUTFILE).
    sizes: dict[str, tuple[str, ...]]
    #: Floating-point outputs agree when |a - b| <= atol + rtol * |b|; integers must be equal.
    rtol: float = 1e-5
    atol: float = 1e-6
    #: A variant of another benchmark lives in that one's folder and may share its OpenMP program.
    folder: str = ""
    omp_program: str = ""

    @property
    def directory(self) -> Path:
        return SUITE_DIR / (self.folder or self.name)

    @property
    def cuda_source(self) -> Path:
        return self.directory / f"{self.name}.cu"

    @property
    def omp_source(self) -> Path:
        return self.directory / (self.omp_program or f"{self.name}_omp.cpp")

    def barriers_in_source(self) -> int:
        return self.cuda_source.read_text().count("__syncthreads()")


def _b(name: str, test: str, quick: str, full: str, **fields) -> Benchmark:
    return Benchmark(name, {"test": tuple(test.split()), "quick": tuple(quick.split()),
                            "full": tuple(full.split())}, **fields)


#: In the order the suite runs them.
BENCHMARKS: tuple[Benchmark, ...] = (
    _b("nn", "5000 10", "2000000 10", "40000000 10"),
    _b("gaussian", "64", "512", "1024", rtol=1e-4),
    _b("bfs", "5000 4", "1000000 6", "8000000 6"),
    _b("srad_v2", "64 64 4", "1024 1024 20", "2048 2048 40", rtol=1e-4),
    _b("backprop", "1024", "1048576", "16777216", rtol=1e-4, atol=1e-6),
    _b("hotspot", "50 70 7 2", "1024 1024 40 2", "2048 2048 60 2", rtol=1e-5),
    _b("kmeans", "2000 8 5 3", "200000 16 8 10", "1000000 34 5 20", rtol=1e-5),
    # Rodinia's form of kmeans (texture fetches, centres in constant memory) against the same OpenMP.
    _b("kmeans_texture", "2000 8 5 3", "100000 16 8 10", "1000000 34 5 20", rtol=1e-5, folder="kmeans",
       omp_program="kmeans_omp.cpp"),
    # Blocked against unblocked elimination: the sums run in a different order.
    _b("lud", "64", "512", "2048", rtol=1e-4, atol=1e-6),
    _b("nw", "64 10", "2048 10", "4096 10"),
    _b("lavaMD", "3", "12", "24", rtol=1e-4, atol=1e-5),
    _b("pathfinder", "30 1000 10", "500 100000 20", "1000 1000000 20"),
    _b("b+tree", "5000 1000", "1000000 200000", "4000000 500000"),
    # Same arithmetic per cell in both versions, float and double outputs.
    _b("cfd", "16 16 3", "128 128 10", "256 256 20", rtol=1e-5, atol=1e-6),
    _b("hotspot3D", "32 16 4 3", "256 256 16 20", "512 512 32 20", rtol=1e-5),
    # Weights in double; the sums run in a different order (block trees against a reduction).
    _b("particlefilter", "64 64 4 1000", "128 128 10 5000", "256 256 10 20000", rtol=1e-9, atol=1e-9),
    # The image's sums: float trees of 512 against a double reduction.
    _b("srad_v1", "64 64 3", "512 512 20", "2048 2048 20", rtol=1e-5, atol=1e-4),
    # Integer coordinates and weights: every cost is an exact integer, the outputs equal.
    _b("streamcluster", "2000 8 40", "16384 16 100", "100000 32 200"),
)

BY_NAME = {b.name: b for b in BENCHMARKS}
