// Texture objects, CUDA arrays, surfaces and legacy texture references.  The host references
// sample by the textbook definitions (texel centres at i + 0.5, bilinear weights from u - 0.5,
// explicit clamp / wrap / mirror / border index rules), written separately from MocCUDA's code.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#define CHECK(cond, ...) do { if (!(cond)) { printf("FAIL: "); printf(__VA_ARGS__); printf("\n"); return 1; } } while (0)
static bool near(float a, float b) { return std::fabs(a - b) <= 1e-4f * (1.0f + std::fabs(b)); }

#define W 13
#define H 7
#define D 5
#define Q 64  // sample points per test

// ---- legacy references, as CUDA 4-10 programs (Rodinia kmeans, ...) declare them ----
texture<float, 1, cudaReadModeElementType> ref_linear;
texture<float, 2, cudaReadModeElementType> ref_pitched;
texture<uchar4, 2, cudaReadModeNormalizedFloat> ref_rgba;
texture<int, 1> ref_ints;
texture<unsigned char, 1, cudaReadModeNormalizedFloat> ref_bytes;

__global__ void fetch_linear(cudaTextureObject_t t_float, cudaTextureObject_t t_int4, float *f, int4 *v, int n)
{
    int i = threadIdx.x - 2;  // includes out-of-range indices at both ends
    if (threadIdx.x < n) {
        f[threadIdx.x] = tex1Dfetch<float>(t_float, i);
        v[threadIdx.x] = tex1Dfetch<int4>(t_int4, i);
    }
}

// Bytes read as normalized floats: tex1Dfetch outside its common case (texel type != result type).
__global__ void fetch_bytes(cudaTextureObject_t t_bytes, float *obj, float *ref, int n)
{
    int i = threadIdx.x - 2;
    if (threadIdx.x < n) {
        obj[threadIdx.x] = tex1Dfetch<float>(t_bytes, i);
        ref[threadIdx.x] = tex1Dfetch(ref_bytes, i);
    }
}

__global__ void sample2d(cudaTextureObject_t t, const float2 *coords, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = tex2D<float>(t, coords[i].x, coords[i].y);
}

__global__ void sample1d3d(cudaTextureObject_t t1, cudaTextureObject_t t3, const float4 *coords, float *out1, float2 *out3)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 c = coords[i];
    out1[i] = tex1D<float>(t1, c.x);
    out3[i] = tex3D<float2>(t3, c.x, c.y, c.z);
}

__global__ void sample_rgba(cudaTextureObject_t t, const float2 *coords, float4 *out, float4 *out_ref)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = tex2D<float4>(t, coords[i].x, coords[i].y);
    out_ref[i] = tex2D(ref_rgba, coords[i].x, coords[i].y);
}

__global__ void invert_surface(cudaSurfaceObject_t s, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < w && y < h) {
        float v = surf2Dread<float>(s, x * (int)sizeof(float), y);
        surf2Dwrite(100.0f - v, s, x * (int)sizeof(float), y);
    }
}

__global__ void legacy(float *a, float *b, int *c, const float2 *coords, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        a[i] = tex1Dfetch(ref_linear, i);
        c[i] = tex1Dfetch(ref_ints, i);
    }
    if (i < Q) b[i] = tex2D(ref_pitched, coords[i].x, coords[i].y);
}

// ---- host references ----
static float texel2d(const float *img, long x, long y) { return img[y * W + x]; }
static long addr(long i, long n, cudaTextureAddressMode m)  // -1: border
{
    if (i >= 0 && i < n) return i;
    if (m == cudaAddressModeClamp) return i < 0 ? 0 : n - 1;
    if (m == cudaAddressModeBorder) return -1;
    if (m == cudaAddressModeWrap) { long r = i; while (r < 0) r += n; while (r >= n) r -= n; return r; }
    long r = i; while (r < 0) r += 2 * n; while (r >= 2 * n) r -= 2 * n;   // mirror
    return r < n ? r : 2 * n - 1 - r;
}
static float ref2d(const float *img, float x, float y, bool linear, bool normalized, cudaTextureAddressMode m, float border)
{
    float u = normalized ? x * W : x, v = normalized ? y * H : y;
    if (!linear) {
        long i = addr((long)std::floor(u), W, m), j = addr((long)std::floor(v), H, m);
        return i < 0 || j < 0 ? border : texel2d(img, i, j);
    }
    float bu = u - 0.5f, bv = v - 0.5f;
    long i0 = (long)std::floor(bu), j0 = (long)std::floor(bv);
    float a = bu - std::floor(bu), b = bv - std::floor(bv);
    float t[2][2];
    for (int dj = 0; dj < 2; ++dj)
        for (int di = 0; di < 2; ++di) {
            long i = addr(i0 + di, W, m), j = addr(j0 + dj, H, m);
            t[dj][di] = i < 0 || j < 0 ? border : texel2d(img, i, j);
        }
    return (1 - a) * (1 - b) * t[0][0] + a * (1 - b) * t[0][1] + (1 - a) * b * t[1][0] + a * b * t[1][1];
}

int main()
{
    // ---- 1. texture objects on linear memory: tex1Dfetch ----
    const int n = 40;
    float lin[n]; int4 lin4[n];
    for (int i = 0; i < n; ++i) { lin[i] = i * 1.5f - 7; lin4[i] = make_int4(i, -i, 2 * i, 7); }
    float *dlin; int4 *dlin4, *dv; float *df;
    cudaMalloc(&dlin, sizeof lin); cudaMalloc(&dlin4, sizeof lin4);
    cudaMemcpy(dlin, lin, sizeof lin, cudaMemcpyHostToDevice);
    cudaMemcpy(dlin4, lin4, sizeof lin4, cudaMemcpyHostToDevice);
    cudaResourceDesc res;
    memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypeLinear;
    res.res.linear.devPtr = dlin; res.res.linear.desc = cudaCreateChannelDesc<float>(); res.res.linear.sizeInBytes = sizeof lin;
    cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t t_float, t_int4;
    CHECK(cudaCreateTextureObject(&t_float, &res, &td, NULL) == cudaSuccess, "cudaCreateTextureObject(linear)");
    res.res.linear.devPtr = dlin4; res.res.linear.desc = cudaCreateChannelDesc<int4>(); res.res.linear.sizeInBytes = sizeof lin4;
    CHECK(cudaCreateTextureObject(&t_int4, &res, &td, NULL) == cudaSuccess, "cudaCreateTextureObject(int4)");
    cudaMalloc(&df, (n + 4) * sizeof(float)); cudaMalloc(&dv, (n + 4) * sizeof(int4));
    fetch_linear<<<1, n + 4>>>(t_float, t_int4, df, dv, n + 4);
    float f[n + 4]; int4 v[n + 4];
    cudaMemcpy(f, df, sizeof f, cudaMemcpyDeviceToHost);
    cudaMemcpy(v, dv, sizeof v, cudaMemcpyDeviceToHost);
    for (int k = 0; k < n + 4; ++k) {
        int i = k - 2; bool in = i >= 0 && i < n;
        CHECK(f[k] == (in ? lin[i] : 0.0f), "tex1Dfetch<float> %d: %f", i, f[k]);
        CHECK(v[k].x == (in ? i : 0) && v[k].y == (in ? -i : 0) && v[k].w == (in ? 7 : 0), "tex1Dfetch<int4> %d", i);
    }

    // ---- 2. 2-D float array: point and linear, unnormalized and normalized, all address modes ----
    float img[H * W];
    for (int y = 0; y < H; ++y) for (int x = 0; x < W; ++x) img[y * W + x] = (x * 7 + y * 31) % 23 - 5.5f + 0.25f * x;
    cudaChannelFormatDesc fdesc = cudaCreateChannelDesc<float>();
    cudaArray_t arr2;
    CHECK(cudaMallocArray(&arr2, &fdesc, W, H) == cudaSuccess, "cudaMallocArray");
    CHECK(cudaMemcpy2DToArray(arr2, 0, 0, img, W * sizeof(float), W * sizeof(float), H, cudaMemcpyHostToDevice) == cudaSuccess, "cudaMemcpy2DToArray");
    float2 coords[Q], *dcoords, ncoords[Q], *dncoords;
    for (int q = 0; q < Q; ++q) {
        coords[q] = make_float2(-2.3f + q * 0.29f, -1.7f + (q * 37 % Q) * 0.16f);           // spans outside [0, W) x [0, H)
        ncoords[q] = make_float2(coords[q].x / W * 2.1f, coords[q].y / H * 2.3f);          // normalized, beyond [0, 1)
    }
    cudaMalloc(&dcoords, sizeof coords); cudaMalloc(&dncoords, sizeof ncoords);
    cudaMemcpy(dcoords, coords, sizeof coords, cudaMemcpyHostToDevice);
    cudaMemcpy(dncoords, ncoords, sizeof ncoords, cudaMemcpyHostToDevice);
    float *dout, out[Q];
    cudaMalloc(&dout, sizeof out);
    const cudaTextureAddressMode modes[4] = {cudaAddressModeClamp, cudaAddressModeBorder, cudaAddressModeWrap, cudaAddressModeMirror};
    const char *mode_names[4] = {"clamp", "border", "wrap", "mirror"};
    for (int linear = 0; linear < 2; ++linear)
        for (int normalized = 0; normalized < 2; ++normalized)
            for (int m = 0; m < 4; ++m) {
                if (!normalized && m >= 2) continue;  // wrap and mirror need normalized coordinates
                memset(&res, 0, sizeof res);
                res.resType = cudaResourceTypeArray;
                res.res.array.array = arr2;
                memset(&td, 0, sizeof td);
                td.addressMode[0] = td.addressMode[1] = modes[m];
                td.filterMode = linear ? cudaFilterModeLinear : cudaFilterModePoint;
                td.readMode = cudaReadModeElementType;
                td.normalizedCoords = normalized;
                td.borderColor[0] = 42.0f;
                cudaTextureObject_t t;
                CHECK(cudaCreateTextureObject(&t, &res, &td, NULL) == cudaSuccess, "cudaCreateTextureObject(array)");
                sample2d<<<Q / 32, 32>>>(t, normalized ? dncoords : dcoords, dout);
                cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost);
                cudaDestroyTextureObject(t);
                for (int q = 0; q < Q; ++q) {
                    float2 c = normalized ? ncoords[q] : coords[q];
                    float want = ref2d(img, c.x, c.y, linear, normalized, modes[m], 42.0f);
                    CHECK(near(out[q], want), "tex2D %s %s %s at (%g, %g): %g != %g", linear ? "linear" : "point",
                          normalized ? "normalized" : "unnormalized", mode_names[m], c.x, c.y, out[q], want);
                }
            }

    // ---- 3. 1-D array (cudaMemcpyToArray) and 3-D float2 array (cudaMemcpy3D), linear filtering ----
    float row[W];
    for (int x = 0; x < W; ++x) row[x] = x * x * 0.5f;
    cudaArray_t arr1, arr3;
    CHECK(cudaMallocArray(&arr1, &fdesc, W) == cudaSuccess, "cudaMallocArray 1-D");
    CHECK(cudaMemcpyToArray(arr1, 0, 0, row, sizeof row, cudaMemcpyHostToDevice) == cudaSuccess, "cudaMemcpyToArray");
    static float2 vol[D][H][W];
    for (int z = 0; z < D; ++z) for (int y = 0; y < H; ++y) for (int x = 0; x < W; ++x)
        vol[z][y][x] = make_float2(x + 10 * y + 100 * z, (x ^ y ^ z) * 1.0f);
    cudaChannelFormatDesc f2desc = cudaCreateChannelDesc<float2>();
    CHECK(cudaMalloc3DArray(&arr3, &f2desc, make_cudaExtent(W, H, D)) == cudaSuccess, "cudaMalloc3DArray");
    cudaMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    p.srcPtr = make_cudaPitchedPtr(vol, W * sizeof(float2), W, H);
    p.dstArray = arr3;
    p.extent = make_cudaExtent(W, H, D);
    p.kind = cudaMemcpyHostToDevice;
    CHECK(cudaMemcpy3D(&p) == cudaSuccess, "cudaMemcpy3D to array");
    cudaTextureObject_t t1, t3;
    memset(&td, 0, sizeof td);
    td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = cudaAddressModeClamp;
    td.filterMode = cudaFilterModeLinear;
    memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypeArray;
    res.res.array.array = arr1;
    CHECK(cudaCreateTextureObject(&t1, &res, &td, NULL) == cudaSuccess, "texture 1-D");
    res.res.array.array = arr3;
    CHECK(cudaCreateTextureObject(&t3, &res, &td, NULL) == cudaSuccess, "texture 3-D");
    float4 c4[Q], *dc4; float o1[Q], *do1; float2 o3[Q], *do3;
    for (int q = 0; q < Q; ++q) c4[q] = make_float4(-0.5f + q * 0.23f, 0.3f + (q % 9) * 0.8f, -0.4f + (q % 7) * 0.9f, 0);
    cudaMalloc(&dc4, sizeof c4); cudaMalloc(&do1, sizeof o1); cudaMalloc(&do3, sizeof o3);
    cudaMemcpy(dc4, c4, sizeof c4, cudaMemcpyHostToDevice);
    sample1d3d<<<Q / 16, 16>>>(t1, t3, dc4, do1, do3);
    cudaMemcpy(o1, do1, sizeof o1, cudaMemcpyDeviceToHost);
    cudaMemcpy(o3, do3, sizeof o3, cudaMemcpyDeviceToHost);
    for (int q = 0; q < Q; ++q) {
        float b = c4[q].x - 0.5f, a = b - std::floor(b);
        long i0 = addr((long)std::floor(b), W, cudaAddressModeClamp), i1 = addr((long)std::floor(b) + 1, W, cudaAddressModeClamp);
        float want1 = (1 - a) * row[i0] + a * row[i1];
        CHECK(near(o1[q], want1), "tex1D linear at %g: %g != %g", c4[q].x, o1[q], want1);
        float u[3] = {c4[q].x - 0.5f, c4[q].y - 0.5f, c4[q].z - 0.5f}, fr[3];
        long lo[3], hi[3], size[3] = {W, H, D};
        for (int k = 0; k < 3; ++k) {
            fr[k] = u[k] - std::floor(u[k]);
            lo[k] = addr((long)std::floor(u[k]), size[k], cudaAddressModeClamp);
            hi[k] = addr((long)std::floor(u[k]) + 1, size[k], cudaAddressModeClamp);
        }
        float wx = 0, wy = 0;
        for (int corner = 0; corner < 8; ++corner) {
            long x = corner & 1 ? hi[0] : lo[0], y = corner & 2 ? hi[1] : lo[1], z = corner & 4 ? hi[2] : lo[2];
            float w = (corner & 1 ? fr[0] : 1 - fr[0]) * (corner & 2 ? fr[1] : 1 - fr[1]) * (corner & 4 ? fr[2] : 1 - fr[2]);
            wx += w * vol[z][y][x].x; wy += w * vol[z][y][x].y;
        }
        CHECK(near(o3[q].x, wx) && near(o3[q].y, wy), "tex3D<float2> linear at %d: (%g, %g) != (%g, %g)", q, o3[q].x, o3[q].y, wx, wy);
    }

    // ---- 4. uchar4 read as normalized floats: object and legacy reference on one array ----
    uchar4 rgba[H * W];
    for (int i = 0; i < H * W; ++i) rgba[i] = make_uchar4(i * 3 % 256, 255 - i, i * 11 % 256, 128);
    cudaChannelFormatDesc u4desc = cudaCreateChannelDesc<uchar4>();
    cudaArray_t arr_rgba;
    cudaMallocArray(&arr_rgba, &u4desc, W, H);
    cudaMemcpy2DToArray(arr_rgba, 0, 0, rgba, W * sizeof(uchar4), W * sizeof(uchar4), H, cudaMemcpyHostToDevice);
    memset(&td, 0, sizeof td);
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = cudaFilterModePoint;
    td.readMode = cudaReadModeNormalizedFloat;
    res.res.array.array = arr_rgba;
    cudaTextureObject_t t_rgba;
    CHECK(cudaCreateTextureObject(&t_rgba, &res, &td, NULL) == cudaSuccess, "texture uchar4");
    CHECK(cudaBindTextureToArray(ref_rgba, arr_rgba) == cudaSuccess, "cudaBindTextureToArray");
    float4 o4[Q], r4[Q], *do4, *dr4;
    cudaMalloc(&do4, sizeof o4); cudaMalloc(&dr4, sizeof r4);
    sample_rgba<<<Q / 32, 32>>>(t_rgba, dcoords, do4, dr4);
    cudaMemcpy(o4, do4, sizeof o4, cudaMemcpyDeviceToHost);
    cudaMemcpy(r4, dr4, sizeof r4, cudaMemcpyDeviceToHost);
    for (int q = 0; q < Q; ++q) {
        long x = addr((long)std::floor(coords[q].x), W, cudaAddressModeClamp), y = addr((long)std::floor(coords[q].y), H, cudaAddressModeClamp);
        uchar4 c = rgba[y * W + x];
        float4 want = make_float4(c.x / 255.0f, c.y / 255.0f, c.z / 255.0f, c.w / 255.0f);
        CHECK(near(o4[q].x, want.x) && near(o4[q].y, want.y) && near(o4[q].z, want.z) && near(o4[q].w, want.w), "tex2D<float4> normalized %d", q);
        CHECK(r4[q].x == o4[q].x && r4[q].y == o4[q].y && r4[q].z == o4[q].z && r4[q].w == o4[q].w, "legacy tex2D(ref_rgba) %d", q);
    }

    // ---- 5. surfaces: read, write, copy back ----
    cudaArray_t arr_surf;
    cudaMallocArray(&arr_surf, &fdesc, W, H, cudaArraySurfaceLoadStore);
    cudaMemcpy2DToArray(arr_surf, 0, 0, img, W * sizeof(float), W * sizeof(float), H, cudaMemcpyHostToDevice);
    res.res.array.array = arr_surf;
    cudaSurfaceObject_t surf;
    CHECK(cudaCreateSurfaceObject(&surf, &res) == cudaSuccess, "cudaCreateSurfaceObject");
    invert_surface<<<dim3(1, H), 16>>>(surf, W, H);
    float back[H * W];
    CHECK(cudaMemcpy2DFromArray(back, W * sizeof(float), arr_surf, 0, 0, W * sizeof(float), H, cudaMemcpyDeviceToHost) == cudaSuccess, "cudaMemcpy2DFromArray");
    for (int i = 0; i < H * W; ++i) CHECK(back[i] == 100.0f - img[i], "surf2Dwrite %d", i);
    cudaDestroySurfaceObject(surf);

    // ---- 5b. array-to-array copies: a 2-D sub-rectangle, and bytes by the old linear form ----
    cudaArray_t arr_copy;
    float sub[H * W];
    cudaMallocArray(&arr_copy, &fdesc, W, H);
    CHECK(cudaMemcpy2DToArray(arr_copy, 0, 0, img, W * sizeof(float), W * sizeof(float), H, cudaMemcpyHostToDevice) == cudaSuccess, "fill");
    CHECK(cudaMemcpy2DArrayToArray(arr_copy, 2 * sizeof(float), 1, arr2, 0, 0, 5 * sizeof(float), 3) == cudaSuccess,
          "cudaMemcpy2DArrayToArray");
    CHECK(cudaMemcpyArrayToArray(arr_copy, 0, H - 1, arr2, 0, 0, W * sizeof(float)) == cudaSuccess, "cudaMemcpyArrayToArray");
    cudaMemcpy2DFromArray(sub, W * sizeof(float), arr_copy, 0, 0, W * sizeof(float), H, cudaMemcpyDeviceToHost);
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            float want = img[y * W + x];
            if (x >= 2 && x < 7 && y >= 1 && y < 4) want = img[(y - 1) * W + (x - 2)];
            if (y == H - 1) want = img[x];
            CHECK(sub[y * W + x] == want, "array-to-array copy (%d, %d)", x, y);
        }
    cudaFreeArray(arr_copy);

    // ---- 6. legacy references: cudaBindTexture (linear), cudaBindTexture2D (pitched, linear filter) ----
    int ints[n], *dints;
    for (int i = 0; i < n; ++i) ints[i] = i * i - 300;
    cudaMalloc(&dints, sizeof ints);
    cudaMemcpy(dints, ints, sizeof ints, cudaMemcpyHostToDevice);
    size_t offset = 1;
    CHECK(cudaBindTexture(&offset, ref_linear, dlin, sizeof lin) == cudaSuccess && offset == 0, "cudaBindTexture");
    CHECK(cudaBindTexture(NULL, ref_ints, dints, cudaCreateChannelDesc<int>(), sizeof ints) == cudaSuccess, "cudaBindTexture(desc)");
    float *dimg; size_t pitch;
    cudaMallocPitch((void **)&dimg, &pitch, W * sizeof(float), H);
    cudaMemcpy2D(dimg, pitch, img, W * sizeof(float), W * sizeof(float), H, cudaMemcpyHostToDevice);
    ref_pitched.filterMode = cudaFilterModeLinear;
    ref_pitched.addressMode[0] = ref_pitched.addressMode[1] = cudaAddressModeClamp;
    CHECK(cudaBindTexture2D(NULL, ref_pitched, dimg, ref_pitched.channelDesc, W, H, pitch) == cudaSuccess, "cudaBindTexture2D");
    float *da, *db; int *dcint;
    cudaMalloc(&da, n * sizeof(float)); cudaMalloc(&db, Q * sizeof(float)); cudaMalloc(&dcint, n * sizeof(int));
    legacy<<<(Q + 31) / 32, 32>>>(da, db, dcint, dcoords, n);
    float a[n], b[Q]; int ci[n];
    cudaMemcpy(a, da, sizeof a, cudaMemcpyDeviceToHost);
    cudaMemcpy(b, db, sizeof b, cudaMemcpyDeviceToHost);
    cudaMemcpy(ci, dcint, sizeof ci, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; ++i) CHECK(a[i] == lin[i] && ci[i] == ints[i], "legacy tex1Dfetch %d", i);
    for (int q = 0; q < Q; ++q) {
        float want = ref2d(img, coords[q].x, coords[q].y, true, false, cudaAddressModeClamp, 0);
        CHECK(near(b[q], want), "legacy tex2D linear %d: %g != %g", q, b[q], want);
    }
    CHECK(cudaUnbindTexture(ref_linear) == cudaSuccess && cudaUnbindTexture(ref_pitched) == cudaSuccess, "cudaUnbindTexture");

    // ---- 7. the C forms, as Rodinia's kmeans writes them: &reference, &desc, a size; and
    // cudaGetTextureReference by the variable and by its name (CUDA 4) ----
    cudaChannelFormatDesc chDesc0 = cudaCreateChannelDesc<float>();
    CHECK(cudaBindTexture(NULL, &ref_linear, dlin, &chDesc0, 10 * sizeof(float)) == cudaSuccess, "cudaBindTexture(&ref, &desc)");
    const textureReference *found = NULL, *named = NULL;
    CHECK(cudaGetTextureReference(&found, &ref_ints) == cudaSuccess && found == &ref_ints, "cudaGetTextureReference");
    CHECK(cudaGetTextureReference(&named, "ref_ints") == cudaSuccess && named == &ref_ints, "cudaGetTextureReference(name)");
    legacy<<<(Q + 31) / 32, 32>>>(da, db, dcint, dcoords, n);
    cudaMemcpy(a, da, sizeof a, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; ++i) CHECK(a[i] == (i < 10 ? lin[i] : 0.0f), "tex1Dfetch beyond the bound size %d: %g", i, a[i]);
    CHECK(cudaUnbindTexture(&ref_linear) == cudaSuccess, "cudaUnbindTexture(&ref)");

    // ---- 8. tex1Dfetch of bytes as normalized floats (object and reference), zero out of range ----
    unsigned char bytes[n];
    for (int i = 0; i < n; ++i) bytes[i] = (unsigned char)(i * 37 + 11);
    unsigned char *dbytes; float *dobj, *dref;
    cudaMalloc(&dbytes, sizeof bytes); cudaMalloc(&dobj, (n + 4) * sizeof(float)); cudaMalloc(&dref, (n + 4) * sizeof(float));
    cudaMemcpy(dbytes, bytes, sizeof bytes, cudaMemcpyHostToDevice);
    memset(&res, 0, sizeof res); memset(&td, 0, sizeof td);
    res.resType = cudaResourceTypeLinear;
    res.res.linear.devPtr = dbytes; res.res.linear.desc = cudaCreateChannelDesc<unsigned char>(); res.res.linear.sizeInBytes = sizeof bytes;
    td.readMode = cudaReadModeNormalizedFloat;
    cudaTextureObject_t t_bytes;
    CHECK(cudaCreateTextureObject(&t_bytes, &res, &td, NULL) == cudaSuccess, "cudaCreateTextureObject(bytes)");
    CHECK(cudaBindTexture(NULL, ref_bytes, dbytes, sizeof bytes) == cudaSuccess, "cudaBindTexture(bytes)");
    fetch_bytes<<<1, n + 4>>>(t_bytes, dobj, dref, n + 4);
    float fobj[n + 4], fref[n + 4];
    cudaMemcpy(fobj, dobj, sizeof fobj, cudaMemcpyDeviceToHost);
    cudaMemcpy(fref, dref, sizeof fref, cudaMemcpyDeviceToHost);
    for (int k = 0; k < n + 4; ++k) {
        int i = k - 2; bool in = i >= 0 && i < n;
        float want = in ? bytes[i] / 255.0f : 0.0f;
        CHECK(fobj[k] == want && fref[k] == want, "tex1Dfetch of bytes %d: %g %g != %g", i, fobj[k], fref[k], want);
    }
    cudaDestroyTextureObject(t_bytes); cudaUnbindTexture(ref_bytes);

    cudaDestroyTextureObject(t_float); cudaDestroyTextureObject(t_int4); cudaDestroyTextureObject(t1);
    cudaDestroyTextureObject(t3); cudaDestroyTextureObject(t_rgba);
    CHECK(cudaFreeArray(arr1) == cudaSuccess && cudaFreeArray(arr2) == cudaSuccess && cudaFreeArray(arr3) == cudaSuccess &&
          cudaFreeArray(arr_rgba) == cudaSuccess && cudaFreeArray(arr_surf) == cudaSuccess, "cudaFreeArray");
    CHECK(cudaGetLastError() == cudaSuccess, "last error");
    printf("PASS\n");
    return 0;
}
