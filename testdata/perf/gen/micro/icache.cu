// icache.cu — the H100's instruction cache in the steady state (issue 23):
// a loop whose body is N FFMAs of straight-line code (8 independent
// chains, so that a warp can issue one a cycle; about 16 bytes of SASS
// each: N = 512, 1024, 2048, 4096, 6144, 8192 is a body of 8 to 128 KB),
// run `passes` times by many warps. sched.cu's fetch probe times the cold
// first passes of one to 32 warps; here the passes after the second show
// what a body that does not fit a cache level costs when every warp of
// the SM runs it, out of step with the others.
//
//   icache FILE   every configuration; one JSON object per line in FILE
//
// Lane 0 of each warp reads the SM clock before every pass and after the
// last. Shapes: sm1_wW (one block of W warps, W = 1, 4, 8, 16, 32) and
// gpu_w64 (two blocks of 32 warps on every SM, __launch_bounds__(1024, 2);
// "per_sm_grid": 2).
// Figure: seg_cycles_per_op, a pass's cycles over its N FFMAs, passes 3
// to 6 (skip 2); at W warps an SM issues at most one FFMA a cycle per
// sub-partition, so W/4 cycles per FFMA per warp (1 below 4 warps) is the
// issue bound.
//
// Each line: {"probe": "icache", "name", ...} (mech.h).

#include "mech.h"

template <int N>
__device__ __forceinline__ void icache_body(float* out, float c, unsigned passes, u64* rec)
{
    float a[8];
#pragma unroll
    for (int j = 0; j < 8; ++j) a[j] = out[j] + threadIdx.x;
    unsigned lane = mech_tid() & 31, w = mech_warp();
    u64* row = rec + (size_t)w * (passes + 2);
    if (lane == 0) row[0] = smid();
#pragma unroll 1
    for (unsigned r = 0; r < passes; ++r) {
        u64 t = clk();
        if (lane == 0) row[1 + r] = t;
#pragma unroll
        for (int i = 0; i < N / 8; ++i) {
#pragma unroll
            for (int j = 0; j < 8; ++j) a[j] = fmaf(a[j], c, a[(j + 1) & 7]);
        }
    }
    u64 t = clk();
    if (lane == 0) row[1 + passes] = t;
    float s = 0;
#pragma unroll
    for (int j = 0; j < 8; ++j) s += a[j];
    if (s == 12345.0f) out[0] = s;
}

#define ICACHE_KERNEL(N)                                                                       \
    extern "C" __global__ void __launch_bounds__(1024, 2) icache_##N(float* out, float c, unsigned passes, u64* rec) \
    {                                                                                          \
        icache_body<N>(out, c, passes, rec);                                                   \
    }
ICACHE_KERNEL(512)
ICACHE_KERNEL(1024)
ICACHE_KERNEL(2048)
ICACHE_KERNEL(4096)
ICACHE_KERNEL(6144)
ICACHE_KERNEL(8192)

static float* g_iout;
static u64* g_irec;

static void icache_case(const char* kname, const void* fn, int N, unsigned warps, bool gpu, unsigned passes)
{
    char name[96];
    snprintf(name, sizeof name, "ffma%d_%s_w%u", N, gpu ? "gpu" : "sm1", warps);
    Launch L;
    L.kernel = kname;
    L.fn = fn;
    L.grid = dim3(gpu ? g_sms * 2 : 1);
    L.block = dim3(gpu ? 1024 : 32 * warps);
    if (gpu) L.perSMGrid = 2;
    L.args = {abuf(g_iout, 256), af32(0.999f), au32(passes), abuf(g_irec, (size_t)L.warps() * (passes + 2) * 8)};
    L.rec = 3;
    L.row = passes + 2;
    L.rowIters = true;
    L.itersArg = 2;
    L.iters = passes;
    L.opsPerIter = N;
    L.costPerIter = N + 8;
    char extra[160];
    snprintf(extra, sizeof extra, "\"ffma\": %d, \"body_bytes\": %d, \"warps_per_sm\": %u", N, N * 16, warps);
    record("icache", name, L, "seg_cycles_per_op", 2, 0, "none", noprep, extra);
}

int main(int argc, char** argv)
{
    if (!mech_open(argc, argv, "icache.jsonl")) return probe_close();
    if (!ok(cudaMalloc(&g_iout, 256), "alloc", "out") || !ok(cudaMalloc(&g_irec, 4u << 20), "alloc", "rec"))
        return probe_close();
    cudaMemset(g_iout, 0, 256);
    struct K {
        const char* name;
        const void* fn;
        int n;
    } ks[] = {{"icache_512", (const void*)icache_512, 512},    {"icache_1024", (const void*)icache_1024, 1024},
              {"icache_2048", (const void*)icache_2048, 2048}, {"icache_4096", (const void*)icache_4096, 4096},
              {"icache_6144", (const void*)icache_6144, 6144}, {"icache_8192", (const void*)icache_8192, 8192}};
    for (const K& k : ks) {
        for (unsigned w : {1u, 4u, 8u, 16u, 32u}) icache_case(k.name, k.fn, k.n, w, false, 6);
        icache_case(k.name, k.fn, k.n, 64, true, 6);
    }
    cudaFree(g_iout);
    cudaFree(g_irec);
    return probe_close();
}
