// pipes.cu — the shuffle, SFU, conversion and FMA pipes under many warps
// (issue 23), as nvcc emits them from CUDA (no inline PTX: the sequences
// of expf, rsqrtf, logf, 1.0f / x, a float-to-int round trip; the
// shuffle trees of a warp reduction), and the row-wise patterns built
// from them (softmax, layer normalisation, online softmax), from one warp
// on one SM to 64 on every SM. micro.cu measures the single instructions
// (MUFU.EX2, SHFL.BFLY, ...) at one warp and 32; this adds what nvcc
// wraps around them and the warps per SM.
//
//   pipes FILE   every configuration; one JSON object per line in FILE
//
// Kernels (each `iters` steps, #pragma unroll 1; ops: what a step does):
//   shfl_sum        a __shfl_down_sync sum tree (5 levels, u32): ops 5
//   shfl_max        a __shfl_xor_sync max butterfly (5 levels, f32): ops 5
//   expf_dep        x = expf(-x), 8 in a dependent chain: ops 8
//   expf_ind        8 independent chains of expf: ops 8
//   fexpf_ind       8 independent chains of __expf: ops 8
//   rsqrtf_ind      8 independent chains of rsqrtf(x + 1): ops 8
//   logf_ind        8 independent chains of logf(x + 2): ops 8
//   rcp_ind         8 independent chains of 1.0f / (x + 1) (div.rn): ops 8
//   cvt_ind         8 independent chains of (float)((int)(x * 3.7f) ^ k): ops 8
//   softmax_row     a warp's row of 32: max butterfly, expf(x - max), sum
//                   butterfly, e / sum: ops 1 (a row)
//   layernorm_row   sum butterfly, mean, centred squares' sum butterfly,
//                   rsqrtf(var + eps), scale: ops 1 (a row)
//   online_softmax  m' = max(m, x); s = s·expf(m - m') + expf(x - m'): ops 1
//   ffma_ilpI       32 FFMAs a step in I independent chains (I = 1, 2, 4,
//                   8): a dense loop's issue at few warps: ops 32
// Shapes: sm1_wW (one block of W warps, W = 1, 2, 4, 8, 16, 32) and
// gpu_w64 (two blocks of 32 warps on every SM, which __launch_bounds__(1024,
// 2) makes room for; a replay may run the two blocks on one SM:
// "per_sm_grid": 2). Figure: warp_cycles_per_op, a
// warp's cycles over its ops.
//
// Each line: {"probe": "pipes", "name", ...} (mech.h).

#include "mech.h"

__device__ __forceinline__ void rec2(u64* rec, u64 t0, u64 t1)
{
    if ((mech_tid() & 31) == 0) {
        unsigned w = mech_warp();
        rec[3 * w] = smid();
        rec[3 * w + 1] = t0;
        rec[3 * w + 2] = t1;
    }
}

#define FULL 0xffffffffu

// PIPE_KERNEL(name, init, step, out): state initialised by init (from a,
// lane, w), step run iters times, out a float the kernel stores when it
// equals 1234.5f (never in practice, but not provably: an integer result
// goes out by its bits, or ptxas drops the loop as dead).
#define PIPE_KERNEL(NAME, DECL, STEP, OUT)                                                               \
    extern "C" __global__ void __launch_bounds__(1024, 2) NAME(float* out, float a, unsigned iters, u64* rec) \
    {                                                                                                    \
        unsigned lane = mech_tid() & 31, w = mech_warp();                                               \
        DECL;                                                                                            \
        __syncwarp();                                                                                    \
        u64 t0 = clk();                                                                                  \
        _Pragma("unroll 1") for (unsigned i = 0; i < iters; ++i) { STEP; }                               \
        __syncwarp();                                                                                    \
        u64 t1 = clk();                                                                                  \
        rec2(rec, t0, t1);                                                                               \
        float r_ = (OUT);                                                                                \
        if (r_ == 1234.5f) out[w * 32 + lane] = r_;                                                      \
    }

#define X8_DECL float x0 = a + lane * 1e-3f, x1 = x0 + 0.01f, x2 = x0 + 0.02f, x3 = x0 + 0.03f, x4 = x0 + 0.04f, \
                      x5 = x0 + 0.05f, x6 = x0 + 0.06f, x7 = x0 + 0.07f
#define X8_OUT (x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7)
#define X8(F) x0 = F(x0); x1 = F(x1); x2 = F(x2); x3 = F(x3); x4 = F(x4); x5 = F(x5); x6 = F(x6); x7 = F(x7)

__device__ __forceinline__ float f_expf(float x) { return expf(-x); }
__device__ __forceinline__ float f_fexpf(float x) { return __expf(-x); }
__device__ __forceinline__ float f_rsqrtf(float x) { return rsqrtf(x + 1.0f); }
__device__ __forceinline__ float f_logf(float x) { return logf(x + 2.0f); }
__device__ __forceinline__ float f_rcp(float x) { return 1.0f / (x + 1.0f); }
__device__ __forceinline__ float f_cvt(float x) { return (float)((int)(x * 3.7f) ^ 5); }

PIPE_KERNEL(shfl_sum, unsigned acc = 0,
            unsigned v = (i ^ w) + lane;
            v += __shfl_down_sync(FULL, v, 16); v += __shfl_down_sync(FULL, v, 8);
            v += __shfl_down_sync(FULL, v, 4); v += __shfl_down_sync(FULL, v, 2);
            v += __shfl_down_sync(FULL, v, 1); acc += v, __uint_as_float(acc))

PIPE_KERNEL(shfl_max, float acc = 0.0f,
            float x = a * lane + i * 0.25f;
            x = fmaxf(x, __shfl_xor_sync(FULL, x, 16)); x = fmaxf(x, __shfl_xor_sync(FULL, x, 8));
            x = fmaxf(x, __shfl_xor_sync(FULL, x, 4)); x = fmaxf(x, __shfl_xor_sync(FULL, x, 2));
            x = fmaxf(x, __shfl_xor_sync(FULL, x, 1)); acc += x, acc)

PIPE_KERNEL(expf_dep, float x = a + lane * 1e-3f,
            x = expf(-x); x = expf(-x); x = expf(-x); x = expf(-x);
            x = expf(-x); x = expf(-x); x = expf(-x); x = expf(-x), x)

PIPE_KERNEL(expf_ind, X8_DECL, X8(f_expf), X8_OUT)
PIPE_KERNEL(fexpf_ind, X8_DECL, X8(f_fexpf), X8_OUT)
PIPE_KERNEL(rsqrtf_ind, X8_DECL, X8(f_rsqrtf), X8_OUT)
PIPE_KERNEL(logf_ind, X8_DECL, X8(f_logf), X8_OUT)
PIPE_KERNEL(rcp_ind, X8_DECL, X8(f_rcp), X8_OUT)
PIPE_KERNEL(cvt_ind, X8_DECL, X8(f_cvt), X8_OUT)

__device__ __forceinline__ float warp_max(float x)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) x = fmaxf(x, __shfl_xor_sync(FULL, x, o));
    return x;
}
__device__ __forceinline__ float warp_sum(float x)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) x += __shfl_xor_sync(FULL, x, o);
    return x;
}

PIPE_KERNEL(softmax_row, float acc = 0.0f,
            float x = a * lane + i * 0.01f;
            float m = warp_max(x); float e = expf(x - m); float s = warp_sum(e); acc += e / s, acc)

PIPE_KERNEL(layernorm_row, float acc = 0.0f,
            float x = a * lane + i * 0.01f;
            float mean = warp_sum(x) * (1.0f / 32); float d = x - mean;
            float var = warp_sum(d * d) * (1.0f / 32); acc += d * rsqrtf(var + 1e-5f), acc)

PIPE_KERNEL(online_softmax, float m = -1e30f; float s = 0.0f,
            float x = a * lane + (i & 63) * 0.01f;
            float m2 = fmaxf(m, x); s = s * expf(m - m2) + expf(x - m2); m = m2, s + m)

// 32 FFMAs a step in I chains of 32 / I.
template <int I>
__device__ __forceinline__ void ffma_step(float* x, float c)
{
#pragma unroll
    for (int k = 0; k < 32 / I; ++k)
#pragma unroll
        for (int j = 0; j < I; ++j) x[j] = fmaf(x[j], c, 0.5f);
}
#define FFMA_KERNEL(I)                                                                                   \
    PIPE_KERNEL(ffma_ilp##I, float x[8]; for (int j = 0; j < 8; ++j) x[j] = a + lane * 1e-3f + j;        \
                float c = 0.999f + a * 1e-6f, ffma_step<I>(x, c), x[0] + x[1] + x[2] + x[3] + x[4] + x[5] + x[6] + x[7])
FFMA_KERNEL(1)
FFMA_KERNEL(2)
FFMA_KERNEL(4)
FFMA_KERNEL(8)

typedef void (*pipe_kernel)(float*, float, unsigned, u64*);

struct Pipe {
    const char* name;
    pipe_kernel fn;
    double ops;  // a step's
    double cost; // about the warp instructions of a step (the replay's cost)
};

static float* g_pout;
static u64* g_prec;

static void pipe_case(const Pipe& P, unsigned warps, bool gpu, unsigned iters)
{
    char name[96];
    snprintf(name, sizeof name, "%s_%s_w%u", P.name, gpu ? "gpu" : "sm1", warps);
    Launch L;
    L.kernel = P.name;
    L.fn = (const void*)P.fn;
    L.grid = dim3(gpu ? g_sms * 2 : 1);
    L.block = dim3(gpu ? 1024 : 32 * warps);
    if (gpu) L.perSMGrid = 2;
    L.args = {abuf(g_pout, (size_t)L.warps() * 128), af32(0.37f), au32(iters), abuf(g_prec, (size_t)L.warps() * 24)};
    L.rec = 3;
    L.itersArg = 2;
    L.iters = iters;
    L.opsPerIter = P.ops;
    L.costPerIter = P.cost;
    char extra[128];
    snprintf(extra, sizeof extra, "\"kernel_kind\": \"%s\", \"warps_per_sm\": %u", P.name, warps);
    record("pipes", name, L, "warp_cycles_per_op", 0, 0, "none", noprep, extra);
}

int main(int argc, char** argv)
{
    if (!mech_open(argc, argv, "pipes.jsonl")) return probe_close();
    if (!ok(cudaMalloc(&g_pout, 4u << 20), "alloc", "out") || !ok(cudaMalloc(&g_prec, 4u << 20), "alloc", "rec"))
        return probe_close();
    const Pipe pipes[] = {{"shfl_sum", shfl_sum, 5, 14},          {"shfl_max", shfl_max, 5, 14},
                          {"expf_dep", expf_dep, 8, 72},          {"expf_ind", expf_ind, 8, 72},
                          {"fexpf_ind", fexpf_ind, 8, 20},        {"rsqrtf_ind", rsqrtf_ind, 8, 36},
                          {"logf_ind", logf_ind, 8, 120},         {"rcp_ind", rcp_ind, 8, 80},
                          {"cvt_ind", cvt_ind, 8, 40},            {"softmax_row", softmax_row, 1, 48},
                          {"layernorm_row", layernorm_row, 1, 48}, {"online_softmax", online_softmax, 1, 28},
                          {"ffma_ilp1", ffma_ilp1, 32, 36},       {"ffma_ilp2", ffma_ilp2, 32, 36},
                          {"ffma_ilp4", ffma_ilp4, 32, 36},       {"ffma_ilp8", ffma_ilp8, 32, 36}};
    for (const Pipe& P : pipes) {
        for (unsigned w : {1u, 2u, 4u, 8u, 16u, 32u}) pipe_case(P, w, false, 128);
        pipe_case(P, 64, true, 128);
    }
    cudaFree(g_pout);
    cudaFree(g_prec);
    return probe_close();
}
