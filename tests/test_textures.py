"""Textures and surfaces on the CPU: tests/programs/device_lib/textures.cu (texture objects on
linear memory and CUDA arrays, every filter and address mode, normalized coordinates, 1-D/2-D/3-D,
normalized-float reads, surfaces, legacy texture references as Rodinia's kmeans uses them) runs
and checks itself against host references; the texture kinds cuda2cpu does not support are
located errors that name them."""

from __future__ import annotations

import pytest

from coverage_table import covers
from support import PROGRAMS, translate_build_run
from foundation.diagnostics import CompileError
from foundation.options import TranslateOptions
from transpiler.translate import translate_file


@covers("Textures and surfaces", "cudaCreateTextureObject", "cudaDestroyTextureObject", "cudaResourceDesc (linear)",
        "cudaResourceDesc (array)", "cudaTextureDesc", "cudaCreateChannelDesc<T>", "cudaMallocArray",
        "cudaMalloc3DArray", "cudaFreeArray", "cudaMemcpyToArray", "cudaMemcpy2DToArray", "cudaMemcpy2DFromArray",
        "cudaMemcpy3D (to array)", "tex1Dfetch (object)", "tex1D", "tex2D", "tex3D", "cudaFilterModePoint",
        "normalizedCoords", "cudaAddressModeClamp", "cudaAddressModeBorder", "cudaAddressModeWrap",
        "cudaAddressModeMirror", "cudaReadModeNormalizedFloat", "cudaCreateSurfaceObject", "cudaDestroySurfaceObject",
        "surf2Dread", "surf2Dwrite", "texture<T, dim, mode> (legacy reference)", "cudaBindTexture",
        "cudaBindTexture2D", "cudaBindTextureToArray", "cudaUnbindTexture", "tex1Dfetch (legacy reference)",
        "tex2D (legacy reference)", "cudaBindTexture(offset, &reference, ptr, &desc, size)",
        "cudaGetTextureReference", "cudaGetTextureReference(&ref, \"name\")", "cudaMemcpy2DArrayToArray",
        "cudaMemcpyArrayToArray")
@covers("Textures and surfaces", "cudaFilterModeLinear", status="partial",
        note="exact float weights; the GPU's 9-bit fixed-point weights differ in about the third digit")
def test_textures_and_surfaces(tmp_path):
    _, run, _ = translate_build_run(PROGRAMS / "device_lib" / "textures.cu", tmp_path)
    assert run.returncode == 0 and run.stdout.strip() == "PASS", run.stdout[-3000:] + run.stderr[-3000:]


UNSUPPORTED = {
    "tex2DLod": ("out[0] = tex2DLod<float>(t, 0.5f, 0.5f, 1.0f);", "mipmapped textures (tex2DLod)"),
    "surf2DLayeredread": ("out[0] = surf2DLayeredread<float>(t, 0, 0, 1);", "layered surfaces (surf2DLayeredread)"),
    "surfCubemapread": ("out[0] = surfCubemapread<float>(t, 0, 0, 1);", "cubemap surfaces (surfCubemapread)"),
    "tex2Dgather": ("out[0] = tex2Dgather<float>(t, 0.5f, 0.5f, 0);", "texture gathers (tex2Dgather)"),
}


@covers("Textures and surfaces", *UNSUPPORTED, status="not supported", note="located error naming the construct")
@pytest.mark.parametrize("name", sorted(UNSUPPORTED))
def test_unsupported_texture_kinds_are_located_errors(name, tmp_path):
    statement, message = UNSUPPORTED[name]
    cu = tmp_path / "bad.cu"
    cu.write_text("#include <cuda_runtime.h>\n"
                  "__global__ void k(cudaTextureObject_t t, float *out)\n"
                  "{\n"
                  f"    {statement}\n"
                  "}\n")
    with pytest.raises(CompileError) as caught:
        translate_file(cu, TranslateOptions())
    text = str(caught.value)
    assert text.startswith(f"{cu}:4:") and f"{message} are not supported by cuda2cpu" in text, text


@covers("Textures and surfaces", "surface<T, dim> (legacy surface reference)", status="not supported",
        note="located error; surface objects are supported")
def test_legacy_surface_reference_is_a_located_error(tmp_path):
    cu = tmp_path / "surf.cu"
    cu.write_text("#include <cuda_runtime.h>\nsurface<void, 2> image;\n__global__ void k(float *p) { p[0] = 1; }\n")
    with pytest.raises(CompileError) as caught:
        translate_file(cu, TranslateOptions())
    text = str(caught.value)
    assert text.startswith(f"{cu}:2:") and "legacy surface references" in text, text
