// casspin.cu — how the H100 performs shared-memory atomics that ptxas
// turns into compare-and-store loops (red/atom.shared.add on .u64, .f32,
// .f64: LDS, the add, ATOMS.CAST.SPIN, a test and a branch back), against
// the native ones (ATOMS.ADD, ATOMS.POPC.INC), and whether the lanes'
// values change the cost. atomics.cu's shared probe adds the same value (1)
// in every lane; the perf corpus's smem_atom_add_u64_bcast adds tid + 1 and
// is about 6.5 times slower per update than atomics.cu's red_u64_same at
// the same shape. SASS documentation of older GPUs describes .SPIN as a
// "fast fail": per shared-memory bank one lane does its compare-and-store
// and the bank's other lanes fail without trying, so the loop runs once per
// lane of the busiest bank. This probe measures the loop with equal and
// with distinct values per lane, and checks the sums.
//
// Kernel atom_v(op, pattern, iters, rec, sink): every thread of one block
// runs `iters` shared atomics of op to the word its pattern gives:
//   ops: u64_one (red.shared.add.u64 of 1), u64_tid (of tid + 1), f32_one
//        (red.shared.add.f32 of 1.0), f32_tid (of (tid & 7) + 1), u32_tid
//        (red.shared.add.u32 of tid + 1: ATOMS.ADD), u32_two (of 2: which
//        form ptxas chooses for a constant other than 1), f64_tid
//        (red.shared.add.f64 of (tid & 7) + 1);
//   patterns: same (one word), warp (a word per warp), lane (a word per
//        thread), stride32 (lane * 32 + warp: 32 words of one bank per
//        warp), bins8 (tid % 8).
// Shapes: one block of 1, 8 and 32 warps on one SM. Every launch runs
// twice; the second is recorded (mech.h), with figure warp_cycles_per_op.
// For the pattern same, a line {"probe": "casspin_check"} after each record
// gives the word's final value against the exact sum (the f32_tid and
// f64_tid sums are exact too: small integers).

#include "mech.h"

enum { V_U64_ONE, V_U64_TID, V_F32_ONE, V_F32_TID, V_U32_TID, V_U32_TWO, V_F64_TID, NVOPS };
static const char* vopName[NVOPS] = {"u64_one", "u64_tid", "f32_one", "f32_tid", "u32_tid", "u32_two", "f64_tid"};
enum { P_SAME, P_WARP, P_LANE, P_STRIDE32, P_BINS8, NVPAT };
static const char* vpatName[NVPAT] = {"same", "warp", "lane", "stride32", "bins8"};

template <int OP>
__device__ __forceinline__ void vatom_loop(unsigned* s32, u64* s64, double* sf64, unsigned idx, unsigned iters,
                                           unsigned tid, unsigned varying, u64* t)
{
    unsigned a32 = (unsigned)__cvta_generic_to_shared(s32 + idx);
    unsigned a64 = (unsigned)__cvta_generic_to_shared(s64 + idx);
    unsigned af64 = (unsigned)__cvta_generic_to_shared(sf64 + idx);
    u64 one64 = 1, tid64 = tid + 1ull;
    float onef = 1.0f, tidf = (float)((tid & 7) + 1);
    double tidd = (double)((tid & 7) + 1);
    unsigned tid32 = tid + 1, two = 2;
    __syncthreads();
    t[0] = clk();
    // varying is 0 at run time; with it the count is a per-thread register
    // (see uni_ below), without it ptxas keeps it in a uniform register.
    unsigned n = iters + (tid & varying);
#pragma unroll 1
    for (unsigned i = 0; i < n; ++i) {
        if (OP == V_U64_ONE) asm volatile("red.shared.add.u64 [%0], %1;" ::"r"(a64), "l"(one64) : "memory");
        if (OP == V_U64_TID) asm volatile("red.shared.add.u64 [%0], %1;" ::"r"(a64), "l"(tid64) : "memory");
        if (OP == V_F32_ONE) asm volatile("red.shared.add.f32 [%0], %1;" ::"r"(a32), "f"(onef) : "memory");
        if (OP == V_F32_TID) asm volatile("red.shared.add.f32 [%0], %1;" ::"r"(a32), "f"(tidf) : "memory");
        if (OP == V_U32_TID) asm volatile("red.shared.add.u32 [%0], %1;" ::"r"(a32), "r"(tid32) : "memory");
        if (OP == V_U32_TWO) asm volatile("red.shared.add.u32 [%0], %1;" ::"r"(a32), "r"(two) : "memory");
        if (OP == V_F64_TID) asm volatile("red.shared.add.f64 [%0], %1;" ::"r"(af64), "d"(tidd) : "memory");
    }
    __syncwarp();
    t[1] = clk();
}

extern "C" __global__ void atom_v(unsigned op, unsigned pattern, unsigned iters, u64* rec, u64* sink,
                                  unsigned varying)
{
    __shared__ u64 s64[1024];
    unsigned* s32 = (unsigned*)s64;
    double* sf64 = (double*)s64;
    unsigned tid = mech_tid(), lane = tid & 31, wib = tid / 32, w = mech_warp();
    for (unsigned i = tid; i < 1024; i += blockDim.x) s64[i] = 0;
    unsigned idx = 0;
    switch (pattern) {
    case P_WARP: idx = wib * 32; break;
    case P_LANE: idx = tid; break;
    case P_STRIDE32: idx = (lane * 32 + wib) & 1023; break;
    case P_BINS8: idx = tid & 7; break;
    default: break;
    }
    u64 t[2];
    switch (op) {
    case V_U64_ONE: vatom_loop<V_U64_ONE>(s32, s64, sf64, idx, iters, tid, varying, t); break;
    case V_U64_TID: vatom_loop<V_U64_TID>(s32, s64, sf64, idx, iters, tid, varying, t); break;
    case V_F32_ONE: vatom_loop<V_F32_ONE>(s32, s64, sf64, idx, iters, tid, varying, t); break;
    case V_F32_TID: vatom_loop<V_F32_TID>(s32, s64, sf64, idx, iters, tid, varying, t); break;
    case V_U32_TID: vatom_loop<V_U32_TID>(s32, s64, sf64, idx, iters, tid, varying, t); break;
    case V_U32_TWO: vatom_loop<V_U32_TWO>(s32, s64, sf64, idx, iters, tid, varying, t); break;
    default: vatom_loop<V_F64_TID>(s32, s64, sf64, idx, iters, tid, varying, t); break;
    }
    if (lane == 0) {
        rec[3 * w] = smid();
        rec[3 * w + 1] = t[0];
        rec[3 * w + 2] = t[1];
    }
    __syncthreads();
    if (tid == 0) sink[blockIdx.x] = s64[0];
}

// The same loop with its count in a uniform register, as ptxas 13.0
// compiles a loop of a kernel-parameter bound: the compare-and-store loop
// it expands red.shared.add.u64/.f32/.f64 into diverges (one lane per bank
// succeeds a round), and each diverged path increments the one uniform
// count, so lanes leave the loop early and updates are lost (recorded as
// uni_* with their casspin_check lines).
extern "C" __global__ void atom_u(unsigned op, unsigned iters, u64* rec, u64* sink)
{
    __shared__ u64 s64[1024];
    unsigned tid = mech_tid(), lane = tid & 31, w = mech_warp();
    for (unsigned i = tid; i < 1024; i += blockDim.x) s64[i] = 0;
    unsigned a64 = (unsigned)__cvta_generic_to_shared(s64);
    u64 one64 = 1;
    float onef = 1.0f;
    u64 t[2];
    __syncthreads();
    t[0] = clk();
    if (op == V_U64_ONE) {
#pragma unroll 1
        for (unsigned i = 0; i < iters; ++i) asm volatile("red.shared.add.u64 [%0], %1;" ::"r"(a64), "l"(one64) : "memory");
    } else {
#pragma unroll 1
        for (unsigned i = 0; i < iters; ++i) asm volatile("red.shared.add.f32 [%0], %1;" ::"r"(a64), "f"(onef) : "memory");
    }
    __syncwarp();
    t[1] = clk();
    if (lane == 0) {
        rec[3 * w] = smid();
        rec[3 * w + 1] = t[0];
        rec[3 * w + 2] = t[1];
    }
    __syncthreads();
    if (tid == 0) sink[blockIdx.x] = s64[0];
}

static u64* g_rec = nullptr;
static u64* g_vsink = nullptr;

// want is the exact final value of word 0 under the pattern same, as the
// 64 bits the kernel leaves there.
static u64 want_same(int op, unsigned threads, unsigned iters)
{
    u64 n = threads, it = iters, tri = n * (n + 1) / 2, small = 0;
    for (unsigned t = 0; t < threads; ++t) small += (t & 7) + 1;
    union {
        float f;
        unsigned u;
    } f;
    union {
        double d;
        u64 u;
    } d;
    switch (op) {
    case V_U64_ONE: return it * n;
    case V_U64_TID: return it * tri;
    case V_F32_ONE: f.f = (float)(it * n); return f.u;
    case V_F32_TID: f.f = (float)(it * small); return f.u;
    case V_U32_TID: return (unsigned)(it * tri);
    case V_U32_TWO: return (unsigned)(2 * it * n);
    default: d.d = (double)(it * small); return d.u;
    }
}

static void vcase(int op, int pat, const char* shape, unsigned warps, unsigned iters, bool uni = false)
{
    char name[96];
    snprintf(name, sizeof name, "%s_%s_%s", vopName[op], vpatName[pat], shape);
    Launch L;
    if (uni) {
        snprintf(name, sizeof name, "uni_%s_same_%s", vopName[op], shape);
        L.kernel = "atom_u";
        L.fn = (const void*)atom_u;
    }
    if (!uni) {
        L.kernel = "atom_v";
        L.fn = (const void*)atom_v;
    }
    L.grid = dim3(1);
    L.block = dim3(32 * warps);
    L.args = {au32(op), au32(pat), au32(iters), abuf(g_rec, (size_t)warps * 24), abuf(g_vsink, 8), au32(0)};
    if (uni) L.args = {au32(op), au32(iters), abuf(g_rec, (size_t)warps * 24), abuf(g_vsink, 8)};
    L.rec = uni ? 2 : 3;
    L.itersArg = uni ? 1 : 2;
    L.iters = iters;
    // A replay's work per warp and iteration: the loop's instructions times
    // the rounds it may take (a lane per round where lanes share a bank).
    bool loop = op != V_U32_TID && op != V_U32_TWO;
    double rounds = !loop || pat == P_LANE ? 1 : pat == P_BINS8 ? 4 : 32;
    L.costPerIter = 6 * rounds;
    char extra[160];
    snprintf(extra, sizeof extra, "\"op\": \"%s\", \"pattern\": \"%s\", \"shape\": \"%s\"", vopName[op],
             vpatName[pat], shape);
    Summary S = record("casspin", name, L, "warp_cycles_per_op", 0, 0, "none", noprep, extra);
    (void)S;
    if (pat != P_SAME) return;
    u64 got = 0;
    if (cudaMemcpy(&got, g_vsink, 8, cudaMemcpyDeviceToHost) != cudaSuccess) return;
    u64 want = want_same(op, 32 * warps, iters);
    if (op == V_F32_ONE || op == V_F32_TID || op == V_U32_TID || op == V_U32_TWO) got &= 0xffffffffull;
    line("{\"probe\": \"casspin_check\", \"name\": \"%s\", \"got\": %llu, \"want\": %llu, \"ok\": %s}", name,
         (unsigned long long)got, (unsigned long long)want, got == want ? "true" : "false");
}

int main(int argc, char** argv)
{
    if (!mech_open(argc, argv, "casspin.jsonl")) return probe_close();
    if (!ok(cudaMalloc(&g_rec, 1u << 20), "alloc", "rec") || !ok(cudaMalloc(&g_vsink, 64), "alloc", "sink"))
        return probe_close();
    struct {
        const char* name;
        unsigned warps;
    } shapes[] = {{"sm1_w1", 1}, {"sm1_w8", 8}, {"sm1_w32", 32}};
    for (int op = 0; op < NVOPS; ++op)
        for (int pat = 0; pat < NVPAT; ++pat)
            for (auto& sh : shapes) vcase(op, pat, sh.name, sh.warps, 16);
    for (int op : {V_U64_ONE, V_F32_ONE})
        for (auto& sh : shapes) vcase(op, P_SAME, sh.name, sh.warps, 16, true);
    cudaFree(g_rec);
    cudaFree(g_vsink);
    return probe_close();
}
