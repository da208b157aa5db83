// Layered and cubemap textures (cuda-samples' simpleLayeredTexture, simpleCubemapTexture): arrays
// made by cudaMalloc3DArray with cudaArrayLayered and cudaArrayCubemap, filled by cudaMemcpy3D,
// read through texture objects by tex2DLayered (point and linear sampling, each layer its own 2D
// texture) and texCubemap (the face of the direction's major axis, and the texel its other two
// components select there, by the table of CUDA's programming guide).
#include <cmath>
#include <cstdio>
#include <cuda_runtime.h>

__global__ void read_layers(cudaTextureObject_t tex, float *out, int width, int height, int layers)
{
    int x = threadIdx.x, y = threadIdx.y, layer = blockIdx.x;
    if (x < width && y < height && layer < layers)
        out[(layer * height + y) * width + x] = tex2DLayered<float>(tex, x + 0.5f, y + 0.5f, layer);
}

__global__ void read_layers_normalized(cudaTextureObject_t tex, float *out, int width, int height)
{
    int x = threadIdx.x, y = threadIdx.y, layer = blockIdx.x;
    float u = (x + 0.5f) / width, v = (y + 0.5f) / height;
    float value;
    tex2DLayered(&value, tex, u, v, layer);  // the form that stores through a pointer
    out[(layer * height + y) * width + x] = value;
}

// Direction to texel (x, y) of `face`: the inverse of the guide's table, scaled by `length`.
__device__ float3 direction(int face, int x, int y, int width, float length)
{
    float sc = 2.0f * (x + 0.5f) / width - 1.0f, tc = 2.0f * (y + 0.5f) / width - 1.0f;
    float3 d;
    switch (face) {
    case 0: d = make_float3(1.0f, -tc, -sc); break;
    case 1: d = make_float3(-1.0f, -tc, sc); break;
    case 2: d = make_float3(sc, 1.0f, tc); break;
    case 3: d = make_float3(sc, -1.0f, -tc); break;
    case 4: d = make_float3(sc, -tc, 1.0f); break;
    default: d = make_float3(-sc, -tc, -1.0f); break;
    }
    return make_float3(d.x * length, d.y * length, d.z * length);
}

__global__ void read_cube(cudaTextureObject_t tex, float *out, int width)
{
    int x = threadIdx.x, y = threadIdx.y, face = blockIdx.x;
    float3 d = direction(face, x, y, width, 0.5f + face);
    out[(face * width + y) * width + x] = texCubemap<float>(tex, d.x, d.y, d.z);
}

static cudaTextureObject_t texture_of(cudaArray_t array, bool normalized, cudaTextureFilterMode filter)
{
    cudaResourceDesc resource = {};
    resource.resType = cudaResourceTypeArray;
    resource.res.array.array = array;
    cudaTextureDesc desc = {};
    desc.normalizedCoords = normalized;
    desc.filterMode = filter;
    desc.addressMode[0] = desc.addressMode[1] = normalized ? cudaAddressModeWrap : cudaAddressModeClamp;
    desc.readMode = cudaReadModeElementType;
    cudaTextureObject_t tex = 0;
    cudaCreateTextureObject(&tex, &resource, &desc, nullptr);
    return tex;
}

static void fill(cudaArray_t array, const float *host, int width, int height, int depth)
{
    cudaMemcpy3DParms copy = {};
    copy.srcPtr = make_cudaPitchedPtr((void *)host, width * sizeof(float), width, height);
    copy.dstArray = array;
    copy.extent = make_cudaExtent(width, height, depth);
    copy.kind = cudaMemcpyHostToDevice;
    cudaMemcpy3D(&copy);
}

int main()
{
    const int width = 8, height = 4, layers = 3, n = width * height * layers;
    float host[n], got[n];
    for (int l = 0; l < layers; ++l)
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x)
                host[(l * height + y) * width + x] = l * 100.0f + y * 10.0f + x;
    cudaChannelFormatDesc channel = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
    cudaArray_t layered = nullptr;
    bool ok = cudaMalloc3DArray(&layered, &channel, make_cudaExtent(width, height, layers), cudaArrayLayered) ==
              cudaSuccess;
    fill(layered, host, width, height, layers);
    float *out;
    cudaMalloc(&out, sizeof got);
    cudaTextureObject_t point = texture_of(layered, false, cudaFilterModePoint);
    cudaTextureObject_t linear = texture_of(layered, true, cudaFilterModeLinear);
    read_layers<<<layers, dim3(width, height)>>>(point, out, width, height, layers);
    ok = ok && cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost) == cudaSuccess;
    for (int i = 0; ok && i < n; ++i)
        ok = got[i] == host[i];
    read_layers_normalized<<<layers, dim3(width, height)>>>(linear, out, width, height);
    ok = ok && cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost) == cudaSuccess;
    for (int i = 0; ok && i < n; ++i)
        ok = fabsf(got[i] - host[i]) < 1e-3f;  // texel centres: the texel itself
    if (!ok)
        printf("layered texture reads failed\n");

    // A cubemap of 6 faces of 4x4 texels, each texel 100 * face + 10 * y + x.
    const int side = 4, faces = 6, texels = side * side * faces;
    float cube_host[texels], cube_got[texels];
    for (int i = 0; i < texels; ++i)
        cube_host[i] = (i / (side * side)) * 100.0f + (i / side % side) * 10.0f + i % side;
    cudaArray_t cube = nullptr;
    ok = ok && cudaMalloc3DArray(&cube, &channel, make_cudaExtent(side, side, faces), cudaArrayCubemap) == cudaSuccess;
    fill(cube, cube_host, side, side, faces);
    cudaTextureObject_t cube_tex = texture_of(cube, true, cudaFilterModePoint);
    float *cube_out;
    cudaMalloc(&cube_out, sizeof cube_got);
    read_cube<<<faces, dim3(side, side)>>>(cube_tex, cube_out, side);
    ok = ok && cudaMemcpy(cube_got, cube_out, sizeof cube_got, cudaMemcpyDeviceToHost) == cudaSuccess;
    for (int i = 0; ok && i < texels; ++i)
        ok = cube_got[i] == cube_host[i];
    if (!ok)
        printf("cubemap reads failed\n");

    // A cubemap's faces are square and six; a layered array needs its layers.
    cudaArray_t bad = nullptr;
    ok = ok && cudaMalloc3DArray(&bad, &channel, make_cudaExtent(4, 5, 6), cudaArrayCubemap) == cudaErrorInvalidValue;
    ok = ok && cudaMalloc3DArray(&bad, &channel, make_cudaExtent(4, 4, 5), cudaArrayCubemap) == cudaErrorInvalidValue;
    ok = ok && cudaMalloc3DArray(&bad, &channel, make_cudaExtent(4, 4, 12), cudaArrayCubemap | cudaArrayLayered) ==
               cudaSuccess;
    cudaGetLastError();
    cudaDestroyTextureObject(point);
    cudaDestroyTextureObject(linear);
    cudaDestroyTextureObject(cube_tex);
    cudaFreeArray(layered);
    cudaFreeArray(cube);
    cudaFreeArray(bad);
    printf("%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
