// calib.cu — calibration kernels for the timing model (issue 9): launches of
// tens of thousands of cycles or more, across kernel kinds. The mission's
// matmuls and transposes are compiled from testdata/nvcc/gen/kernels (the
// same source as the nvcc corpus); these are the other kinds:
//   reduce_shared / reduce_shfl   block sums: shared-memory tree vs warp shuffles
//   stencil5 / stencil5_smem      2D 5-point stencil: global loads vs a shared tile
//   hist_global / hist_shared     histograms: global atomics (contended or not)
//                                 vs shared-memory privatised bins
//   tex_resample                  bilinear texture sampling
//   sfu_heavy                     __sinf / __expf chains (MUFU)
//   fp64_heavy                    four independent DFMA chains per thread
//   branch_divergent / branch_uniform   four different loops chosen per lane
//                                 (divergent) or per warp (same work, uniform)
//   copy_perm                     out[i] = in[perm(i)]: stride 1 or 32
//   bcast_const / bcast_global    a uniform table walk from __constant__ vs global
//
// Outputs are deterministic: integer sums and atomics, fixed-order float
// arithmetic.

#define GID (blockIdx.x * blockDim.x + threadIdx.x)

// ---------------------------------------------------------------------------
// Reductions: each thread adds two elements, then the block reduces 256
// values to one. blockDim.x must be 256.

extern "C" __global__ void reduce_shared(unsigned* out, const unsigned* in, unsigned n)
{
    __shared__ unsigned s[256];
    unsigned t = threadIdx.x;
    unsigned i = blockIdx.x * 512u + t;
    unsigned v = 0;
    if (i < n) v = in[i];
    if (i + 256u < n) v += in[i + 256u];
    s[t] = v;
    __syncthreads();
    for (unsigned k = 128; k > 0; k >>= 1) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

extern "C" __global__ void reduce_shfl(unsigned* out, const unsigned* in, unsigned n)
{
    __shared__ unsigned s[8];
    unsigned t = threadIdx.x;
    unsigned i = blockIdx.x * 512u + t;
    unsigned v = 0;
    if (i < n) v = in[i];
    if (i + 256u < n) v += in[i + 256u];
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, o);
    if ((t & 31) == 0) s[t >> 5] = v;
    __syncthreads();
    if (t < 32) {
        v = t < 8 ? s[t] : 0u;
#pragma unroll
        for (int o = 4; o > 0; o >>= 1)
            v += __shfl_down_sync(0xffffffffu, v, o);
        if (t == 0) out[blockIdx.x] = v;
    }
}

// ---------------------------------------------------------------------------
// 5-point stencil on a w x h f32 grid (edges clamped). Blocks of 32 x 8.

__device__ __forceinline__ float at(const float* in, int x, int y, int w, int h)
{
    x = min(max(x, 0), w - 1);
    y = min(max(y, 0), h - 1);
    return in[y * w + x];
}

extern "C" __global__ void stencil5(float* out, const float* in, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float c = in[y * w + x];
    float s = at(in, x - 1, y, w, h) + at(in, x + 1, y, w, h) + at(in, x, y - 1, w, h) +
              at(in, x, y + 1, w, h);
    out[y * w + x] = 0.5f * c + 0.125f * s;
}

// A 32 x 32 output tile per block of 32 x 8 threads, read once into a
// 34 x 34 shared tile (with halo), then each thread computes four outputs.
extern "C" __global__ void stencil5_smem(float* out, const float* in, int w, int h)
{
    __shared__ float tile[34][35];
    int bx = blockIdx.x * 32, by = blockIdx.y * 32;
    int tid = threadIdx.y * 32 + threadIdx.x;
    for (int k = tid; k < 34 * 34; k += 256) {
        int ty = k / 34, tx = k % 34;
        tile[ty][tx] = at(in, bx + tx - 1, by + ty - 1, w, h);
    }
    __syncthreads();
    int x = bx + threadIdx.x;
#pragma unroll
    for (int j = 0; j < 32; j += 8) {
        int ly = threadIdx.y + j + 1, lx = threadIdx.x + 1;
        int y = by + threadIdx.y + j;
        if (x < w && y < h) {
            float s = tile[ly][lx - 1] + tile[ly][lx + 1] + tile[ly - 1][lx] + tile[ly + 1][lx];
            out[y * w + x] = 0.5f * tile[ly][lx] + 0.125f * s;
        }
    }
}

// ---------------------------------------------------------------------------
// Histograms of n u32 values: bin = value & mask.

extern "C" __global__ void hist_global(unsigned* bins, const unsigned* in, unsigned n, unsigned mask)
{
    unsigned step = gridDim.x * blockDim.x;
    for (unsigned i = GID; i < n; i += step)
        atomicAdd(&bins[in[i] & mask], 1u);
}

// 256 bins per block in shared memory, merged with one global atomic per bin.
extern "C" __global__ void hist_shared(unsigned* bins, const unsigned* in, unsigned n)
{
    __shared__ unsigned s[256];
    for (unsigned k = threadIdx.x; k < 256; k += blockDim.x)
        s[k] = 0;
    __syncthreads();
    unsigned step = gridDim.x * blockDim.x;
    for (unsigned i = GID; i < n; i += step)
        atomicAdd(&s[in[i] & 255u], 1u);
    __syncthreads();
    for (unsigned k = threadIdx.x; k < 256; k += blockDim.x)
        if (s[k]) atomicAdd(&bins[k], s[k]);
}

// ---------------------------------------------------------------------------
// Texture resampling: out (w x h) samples the texture with a scale and a
// shear, so each warp's footprint is a slanted 2D patch.

extern "C" __global__ void tex_resample(float* out, cudaTextureObject_t t, unsigned w, unsigned h,
                                        float scale)
{
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float u = (x + 0.5f) * scale + (y + 0.5f) * 0.125f;
    float v = (y + 0.5f) * scale;
    out[y * w + x] = tex2D<float>(t, u, v);
}

// ---------------------------------------------------------------------------
// Arithmetic-bound kernels.

extern "C" __global__ void sfu_heavy(float* out, const float* in, unsigned iters)
{
    unsigned i = GID;
    float x = in[i];
    for (unsigned k = 0; k < iters; ++k)
        x = __sinf(x) * 0.75f + __expf(-x * x) * 0.25f;
    out[i] = x;
}

extern "C" __global__ void fp64_heavy(double* out, const double* in, unsigned iters)
{
    unsigned i = GID;
    double a = in[i], b = a * 0.5, c = a * 0.25, d = a * 0.125;
    for (unsigned k = 0; k < iters; ++k) {
        a = fma(a, 0.999999, 1e-3);
        b = fma(b, 0.999998, 2e-3);
        c = fma(c, 0.999997, 3e-3);
        d = fma(d, 0.999996, 4e-3);
    }
    out[i] = a + b + c + d;
}

// Four different loops; which one a thread runs is chosen by `sel`.
__device__ __forceinline__ float four_ways(unsigned sel, float x, unsigned iters)
{
    switch (sel & 3u) {
    case 0:
        for (unsigned k = 0; k < iters; ++k) x = fmaf(x, 0.9999f, 0.5f);
        break;
    case 1:
        for (unsigned k = 0; k < iters; ++k) x = __sinf(x) + 0.25f;
        break;
    case 2: {
        unsigned u = __float_as_uint(x);
        for (unsigned k = 0; k < iters; ++k) u = u * 1664525u + 1013904223u;
        x = (float)(u >> 8);
        break;
    }
    default:
        for (unsigned k = 0; k < iters; ++k) x = sqrtf(x + 1.0f);
        break;
    }
    return x;
}

// Lanes of one warp take four different paths (divergent).
extern "C" __global__ void branch_divergent(float* out, const float* in, unsigned iters)
{
    unsigned i = GID;
    out[i] = four_ways(threadIdx.x, in[i], iters);
}

// The same work, the path chosen per warp (uniform within each warp).
extern "C" __global__ void branch_uniform(float* out, const float* in, unsigned iters)
{
    unsigned i = GID;
    out[i] = four_ways(threadIdx.x >> 5, in[i], iters);
}

// ---------------------------------------------------------------------------
// Copies through a permutation: rows = n / stride; out[i] = in[(i % rows) *
// stride + i / rows]. stride 1: a plain copy; stride 32: every warp's 32
// loads touch 32 different sectors (the same bytes in total).

extern "C" __global__ void copy_perm(unsigned* out, const unsigned* in, unsigned n, unsigned stride)
{
    unsigned i = GID;
    if (i >= n) return;
    unsigned rows = n / stride;
    out[i] = in[(i % rows) * stride + i / rows];
}

// ---------------------------------------------------------------------------
// Uniform table walks: every thread of the grid reads the same word per step.

__constant__ float ctab[256];

extern "C" __global__ void bcast_const(float* out, unsigned iters)
{
    float acc = 0.0f;
    for (unsigned k = 0; k < iters; ++k)
        acc = fmaf(acc, 0.999f, ctab[k & 255u]);
    out[GID] = acc;
}

extern "C" __global__ void bcast_global(float* out, const float* tab, unsigned iters)
{
    float acc = 0.0f;
    for (unsigned k = 0; k < iters; ++k)
        acc = fmaf(acc, 0.999f, tab[k & 255u]);
    out[GID] = acc;
}
