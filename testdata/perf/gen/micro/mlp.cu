// mlp.cu — memory-level parallelism on the H100 (issue 23): how many DRAM
// misses a warp and an SM keep in flight. Each thread issues K independent
// loads a step (K = 1, 2, 4, 8, 16), sums them and branches on the sum, so
// a step ends when its slowest load is back; lane 0 of each warp reads the
// SM clock before every step. From W warps on one SM (one block) to W
// warps on every SM (one block per SM: its dynamic shared memory leaves
// room for no second).
//
//   mlp FILE   every configuration; one JSON object per line in FILE
//
// Patterns (a thread's loads at in + warp·wstride + lane·lstride +
// (step·K + j)·kstride, bytes):
//   col     lstride 4, wstride 128, kstride = the row pitch (at least 16 KB
//           and the grid's warps × 128): a column walk of a row-major
//           matrix, each thread its column (column statistics): every load
//           of a warp one 128-byte line, a thread's K loads K rows apart
//   sector  lstride 32, wstride 1 KB, kstride at least 32 KB: every lane
//           its own 32-byte sector (8 lines a warp load)
//   line    lstride 128, wstride 4 KB, kstride at least 128 KB: every lane
//           its own line (32 lines a warp load); one SM only
// Every line is read once; the L2 is flushed clean before each launch (a
// 128 MB memset and a 128 MB read), so the loads go to DRAM.
// Figure: seg_cycles_per_op, the mean over warps of a step's cycles, the
// first step (cold) left out; "sectors_per_step" (per warp) and
// "bytes_per_cycle_sm" (the SM's sectors × 32 over the step) beside it.
//
// Each line: {"probe": "mlp", "name", ...} (mech.h).

#include "mech.h"

template <int K>
__device__ __forceinline__ void mlp_body(const unsigned* in, size_t off, size_t kstride, unsigned iters, u64* row,
                                         bool lead, unsigned* sink)
{
    const char* p = (const char*)in + off;
    unsigned acc = 0;
#pragma unroll 1
    for (unsigned it = 0; it < iters; ++it) {
        u64 t = clk();
        if (lead) row[1 + it] = t;
        unsigned v = 0;
#pragma unroll
        for (int j = 0; j < K; ++j) v += *(const unsigned*)(p + j * kstride);
        if (v == 0xdeadbeefu) sink[1] = v; // never (the buffer holds zeros): the step waits for its loads
        acc += v;
        p += K * kstride;
    }
    u64 t = clk();
    if (lead) row[1 + iters] = t;
    if (acc == 0xfeedf00du) sink[0] = acc;
}

#define MLP_KERNEL(K)                                                                                            \
    extern "C" __global__ void mlp_k##K(const unsigned* in, unsigned lstride, unsigned wstride, u64 kstride,     \
                                        unsigned iters, u64* rec, unsigned* sink)                               \
    {                                                                                                            \
        unsigned lane = mech_tid() & 31, w = mech_warp();                                                       \
        u64* row = rec + (size_t)w * (iters + 2);                                                                \
        if (lane == 0) row[0] = smid();                                                                          \
        mlp_body<K>(in, (size_t)w * wstride + (size_t)lane * lstride, kstride, iters, row, lane == 0, sink);      \
    }
MLP_KERNEL(1)
MLP_KERNEL(2)
MLP_KERNEL(4)
MLP_KERNEL(8)
MLP_KERNEL(16)

static const void* mlpFn(int K)
{
    switch (K) {
    case 1: return (const void*)mlp_k1;
    case 2: return (const void*)mlp_k2;
    case 4: return (const void*)mlp_k4;
    case 8: return (const void*)mlp_k8;
    default: return (const void*)mlp_k16;
    }
}

static const size_t BUF = (size_t)1 << 30; // 1 GB of zeros
static unsigned *g_in, *g_msink;
static u64* g_mrec;

struct Pattern {
    const char* name;
    unsigned lstride, wstride;
    size_t minPitch;
    unsigned sectors; // sectors a warp load touches
    unsigned lines;   // and lines
};
static const Pattern COL = {"col", 4, 128, 16 << 10, 4, 1}, SECTOR = {"sector", 32, 1024, 32 << 10, 32, 8},
                     LINE = {"line", 128, 4096, 128 << 10, 32, 32};

static void mlp_case(const Pattern& P, int K, unsigned warpsPerBlock, bool gpu, unsigned iters)
{
    char name[96];
    snprintf(name, sizeof name, "%s_k%d_%s_w%u", P.name, K, gpu ? "gpu" : "sm1", warpsPerBlock);
    Launch L;
    L.kernel = K == 1 ? "mlp_k1" : K == 2 ? "mlp_k2" : K == 4 ? "mlp_k4" : K == 8 ? "mlp_k8" : "mlp_k16";
    L.fn = mlpFn(K);
    L.grid = dim3(gpu ? g_sms : 1);
    L.block = dim3(32 * warpsPerBlock);
    if (gpu) L.smem = 120 << 10; // one block per SM
    unsigned warps = L.warps();
    size_t pitch = std::max(P.minPitch, (size_t)warps * P.wstride);
    size_t foot = pitch * iters * K;
    if (foot > BUF) {
        line("{\"probe\": \"mlp\", \"name\": \"%s\", \"error\": \"footprint %zu over the buffer\"}", name, foot);
        return;
    }
    L.args = {abuf(g_in, foot), au32(P.lstride), au32(P.wstride), au64(pitch), au32(iters),
              abuf(g_mrec, (size_t)warps * (iters + 2) * 8), abuf(g_msink, 64)};
    L.rec = 5;
    L.row = iters + 2;
    L.rowIters = true;
    L.itersArg = 4;
    L.iters = iters;
    L.costPerIter = 6 + 3 * K + 2 * K * P.lines;
    double sectors = (double)P.sectors * K; // per warp and step
    char extra[320];
    snprintf(extra, sizeof extra,
             "\"pattern\": \"%s\", \"k\": %d, \"warps_per_sm\": %u, \"gpu\": %s, \"pitch\": %zu, "
             "\"sectors_per_step\": %.0f",
             P.name, K, warpsPerBlock, gpu ? "true" : "false", pitch, sectors);
    Summary S = record("mlp", name, L, "seg_cycles_per_op", 1, sectors * 32 * warps * iters, "clean", flush_clean,
                       extra);
    if (S.warps && S.segMean > 0)
        line("{\"probe\": \"mlp_rate\", \"name\": \"%s\", \"bytes_per_cycle_sm\": %.2f, \"sectors_in_flight_sm\": %.0f}",
             name, sectors * 32 * warpsPerBlock / S.segMean, sectors * warpsPerBlock);
}

int main(int argc, char** argv)
{
    if (!mech_open(argc, argv, "mlp.jsonl")) return probe_close();
    if (!ok(cudaMalloc(&g_in, BUF), "alloc", "in") || !ok(cudaMalloc(&g_mrec, 8u << 20), "alloc", "rec") ||
        !ok(cudaMalloc(&g_msink, 64), "alloc", "sink"))
        return probe_close();
    cudaMemset(g_in, 0, BUF);
    cudaMemset(g_msink, 0, 64);
    const int Ks[] = {1, 2, 4, 8, 16};
    for (const Pattern* P : {&COL, &SECTOR, &LINE})
        for (int K : Ks) {
            for (unsigned w : {1u, 4u, 8u, 16u, 32u}) mlp_case(*P, K, w, false, 16);
            if (P == &LINE) continue;
            for (unsigned w : {1u, 8u, 32u}) {
                if (P == &SECTOR && w == 32) continue;
                mlp_case(*P, K, w, true, 8);
            }
        }
    cudaFree(g_in);
    cudaFree(g_mrec);
    return probe_close();
}
