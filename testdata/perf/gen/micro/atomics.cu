// atomics.cu — the H100's atomic units (issue 23): global atomics at the
// L2 (same address against distinct addresses, red against atom with its
// value used, 32/64-bit, float, CAS loops), warp-aggregated atomics (a
// shuffle reduction, then one atomic per warp to one address or a few) and
// shared-memory atomics with their conflicts, from one warp on one SM to
// 64 warps on every SM.
//
//   atomics FILE   every configuration; one JSON object per line in FILE
//
// 1. global ("probe": "global"): atom_g. Every thread (or, in the leader
//    modes, lane 0 of every warp) runs `iters` atomics of one kind (op) to
//    the address its mode gives. ops: red_u32, atom_u32 (the returned value
//    summed), red_u64, atom_u64, red_f32, atom_f32, red_f64, cas_u32 (an
//    increment as a compare-and-swap loop, at most 4096 tries an atomic).
//    modes: one (every lane of the grid the same word), warp (the lanes of
//    a warp one word, each warp its own 128-byte line), lane (each thread
//    its own word, coalesced), line (each thread its own 128-byte line),
//    bins8 (lane % 8: eight words of one line, as a histogram of 8 bins),
//    leader (lane 0 of every warp only, all to one word: what a warp-
//    aggregated atomic leaves), leader8 (lane 0 only, warp % 8: eight
//    words in eight lines). At 8 warps on every SM every op and mode (but
//    CAS loops of thousands of lanes on a word); from 1 warp on one SM to
//    64 on every SM red_u32 and atom_u32 in modes one, warp, lane, leader;
//    CAS loops from 1 warp to 4 on every SM in modes warp, lane, leader.
//    A "global_check" line follows a one-word mode's record ("check": the
//    word holds every increment, "word") and a CAS record's
//    ("cas_retries_per_atomic").
// 2. warpagg ("probe": "warpagg"): warp_agg. Each step a shuffle reduction
//    (__shfl_down_sync, five levels) of a value per lane, then lane 0 adds
//    the sum to ctr[warp % naddr] (one word per 128-byte line) with
//    atomicAdd: its value unused (red), or used (atom: lane 0's old value
//    broadcast with __shfl_sync and added to every lane's sum, as a
//    warp-aggregated counter is used). naddr 1 and 8 (red), 1 (atom) at
//    every shape; one word per warp and atom to 8 at three.
// 3. shared ("probe": "shared"): atom_s. Every thread of a block
//    runs `iters` shared atomics: red_u32 (red.shared.add.u32), atom_u32
//    (atom.shared.add.u32, value used), red_f32, red_u64, cas_u32 (a CAS
//    loop); patterns: lane (each thread its word), same (the block one
//    word), warp (the lanes of a warp one word), pairs (tid / 2), bins8
//    (tid % 8), stride32 (lane * 32 + warp: one bank, 32 words), stride2
//    (lane * 2: two-way bank conflicts). Every op and pattern at one block
//    of 1, 8, 32 warps and two of 32 on every SM ("per_sm_grid": 2).
//
// Shapes: sm1_wW (one block of W warps: one SM), gpu_wW (W warps on every
// SM: 132 blocks of W warps, or 132·W/8 blocks of 256 threads from 16
// warps up). Every launch runs twice (memory zeroed before each); the
// second is recorded. Each warp's lane 0 reads the clock before its loop,
// after it (its atomics issued) and after a __threadfence() (its atomics
// performed, reductions included): "segs" has both parts. Figure:
// warp_cycles_per_op, the mean over warps of the first clock to the last
// over the warp's atomics (for the leader modes, lane 0's). Shared
// atomics have no fence (two clocks).
//
// Each line: {"probe", "name", ...} (mech.h). A failing launch records
// {"error"} and the next goes on.

#include "mech.h"

// ---------------------------------------------------------------------------
// 1. global

enum { RED_U32, ATOM_U32, RED_U64, ATOM_U64, RED_F32, ATOM_F32, RED_F64, CAS_U32, NOPS };
static const char* opName[NOPS] = {"red_u32", "atom_u32", "red_u64", "atom_u64",
                                   "red_f32", "atom_f32", "red_f64", "cas_u32"};
enum { ONE, WARP, LANE, LINE, BINS8, LEADER, LEADER8, NMODES };
static const char* modeName[NMODES] = {"one", "warp", "lane", "line", "bins8", "leader", "leader8"};

// One atomic of OP at a; acc takes what a returning atomic returns.
template <int OP>
__device__ __forceinline__ void atom1(char* a, u64& acc, unsigned& fails)
{
    unsigned one = 1;
    u64 one64 = 1;
    float onef = 1.0f;
    double oned = 1.0;
    if (OP == RED_U32) {
        asm volatile("red.global.add.u32 [%0], %1;" ::"l"(a), "r"(one) : "memory");
    } else if (OP == ATOM_U32) {
        unsigned r;
        asm volatile("atom.global.add.u32 %0, [%1], %2;" : "=r"(r) : "l"(a), "r"(one) : "memory");
        acc += r;
    } else if (OP == RED_U64) {
        asm volatile("red.global.add.u64 [%0], %1;" ::"l"(a), "l"(one64) : "memory");
    } else if (OP == ATOM_U64) {
        u64 r;
        asm volatile("atom.global.add.u64 %0, [%1], %2;" : "=l"(r) : "l"(a), "l"(one64) : "memory");
        acc += r;
    } else if (OP == RED_F32) {
        asm volatile("red.global.add.f32 [%0], %1;" ::"l"(a), "f"(onef) : "memory");
    } else if (OP == ATOM_F32) {
        float r;
        asm volatile("atom.global.add.f32 %0, [%1], %2;" : "=f"(r) : "l"(a), "f"(onef) : "memory");
        acc += __float_as_uint(r);
    } else if (OP == RED_F64) {
        asm volatile("red.global.add.f64 [%0], %1;" ::"l"(a), "d"(oned) : "memory");
    } else if (OP == CAS_U32) {
        unsigned* p = (unsigned*)a;
        unsigned old = *(volatile unsigned*)p;
        for (int t = 0; t < 4096; ++t) {
            unsigned want = old;
            old = atomicCAS(p, want, want + 1);
            if (old == want) break;
            ++fails;
        }
    }
}

// t[0] before the loop, t[1] after it (the atomics issued), t[2] after a
// __threadfence() (the atomics performed: a red's too).
template <int OP>
__device__ __forceinline__ u64 atom_loop(char* a, unsigned iters, bool active, u64* t, unsigned& fails)
{
    u64 acc = 0;
    __syncwarp();
    t[0] = clk();
    if (active) {
#pragma unroll 1
        for (unsigned i = 0; i < iters; ++i) atom1<OP>(a, acc, fails);
    }
    __syncwarp();
    t[1] = clk();
    __threadfence();
    t[2] = clk();
    return acc;
}

// base: the words the atomics go to; sink[1 + warp] the CAS retries of the
// warp's lanes (0 for other ops); rec: 4 u64 per warp (smid, t[0..2]).
extern "C" __global__ void atom_g(char* base, unsigned op, unsigned mode, unsigned iters, u64* rec, unsigned* sink)
{
    unsigned lane = mech_tid() & 31, w = mech_warp();
    unsigned g = w * 32 + lane;
    unsigned esz = (op == RED_U64 || op == ATOM_U64 || op == RED_F64) ? 8 : 4;
    size_t off = 0;
    switch (mode) {
    case WARP: off = (size_t)w * 128; break;
    case LANE: off = (size_t)g * esz; break;
    case LINE: off = (size_t)g * 128; break;
    case BINS8: off = (lane & 7) * esz; break;
    case LEADER8: off = (w & 7) * 128; break;
    default: break;
    }
    bool active = (mode != LEADER && mode != LEADER8) || lane == 0;
    char* a = base + off;
    u64 t[3];
    u64 acc = 0;
    unsigned fails = 0;
    switch (op) {
    case RED_U32: acc = atom_loop<RED_U32>(a, iters, active, t, fails); break;
    case ATOM_U32: acc = atom_loop<ATOM_U32>(a, iters, active, t, fails); break;
    case RED_U64: acc = atom_loop<RED_U64>(a, iters, active, t, fails); break;
    case ATOM_U64: acc = atom_loop<ATOM_U64>(a, iters, active, t, fails); break;
    case RED_F32: acc = atom_loop<RED_F32>(a, iters, active, t, fails); break;
    case ATOM_F32: acc = atom_loop<ATOM_F32>(a, iters, active, t, fails); break;
    case RED_F64: acc = atom_loop<RED_F64>(a, iters, active, t, fails); break;
    default: acc = atom_loop<CAS_U32>(a, iters, active, t, fails); break;
    }
    if (lane == 0) {
        rec[4 * w] = smid();
        rec[4 * w + 1] = t[0];
        rec[4 * w + 2] = t[1];
        rec[4 * w + 3] = t[2];
    }
    if (fails) atomicAdd(&sink[1 + w], fails);
    if (acc == 0x123456789abcull) sink[0] = (unsigned)acc; // keeps the returned values live
}

struct Shape {
    const char* name;
    unsigned grid, block; // grid in blocks; 0: per SM (multiplied by the SM count)
    unsigned perSM;       // blocks per SM when the grid is per SM
};

static const Shape SM1_W1 = {"sm1_w1", 1, 32, 0}, SM1_W8 = {"sm1_w8", 1, 256, 0}, SM1_W32 = {"sm1_w32", 1, 1024, 0},
                   GPU_W1 = {"gpu_w1", 0, 32, 1}, GPU_W4 = {"gpu_w4", 0, 128, 1}, GPU_W8 = {"gpu_w8", 0, 256, 1},
                   GPU_W16 = {"gpu_w16", 0, 256, 2}, GPU_W32 = {"gpu_w32", 0, 256, 4}, GPU_W64 = {"gpu_w64", 0, 256, 8};

static unsigned gridOf(const Shape& s) { return s.grid ? s.grid : g_sms * s.perSM; }

static char* g_words;  // the atomics' target: 64 MB
static unsigned* g_gsink;
static u64* g_rec;     // clock records: up to 1 << 20 u64
static const size_t WORDS = 64u << 20;

static void global_case(int op, int mode, const Shape& sh, unsigned iters)
{
    char name[96];
    snprintf(name, sizeof name, "%s_%s_%s", opName[op], modeName[mode], sh.name);
    Launch L;
    L.kernel = "atom_g";
    L.fn = (const void*)atom_g;
    L.grid = dim3(gridOf(sh));
    L.block = dim3(sh.block);
    unsigned warps = L.warps();
    unsigned esz = (op == RED_U64 || op == ATOM_U64 || op == RED_F64) ? 8 : 4;
    size_t span = mode == LINE ? (size_t)warps * 32 * 128 : mode == WARP ? (size_t)warps * 128
                  : mode == LANE ? (size_t)warps * 32 * 8 : 1024;
    size_t sinkBytes = (size_t)(1 + warps) * 4;
    L.args = {abuf(g_words, span), au32(op), au32(mode), au32(iters), abuf(g_rec, (size_t)warps * 32),
              abuf(g_gsink, sinkBytes)};
    L.rec = 4;
    L.row = 4;
    L.itersArg = 3;
    L.iters = iters;
    // The replay's work a warp and iteration: about 5 instructions and 2
    // per line the atomic touches; a CAS loop's rounds as many times over
    // as lanes contend for its word.
    double lines = mode == LINE ? 32 : (mode == LANE && esz == 8) ? 2 : 1;
    double contend = 1;
    if (op == CAS_U32) {
        double threads = (double)warps * 32;
        contend = mode == ONE ? threads : mode == WARP ? 32 : mode == BINS8 ? threads / 8
                  : mode == LEADER ? warps : mode == LEADER8 ? warps / 8.0 : 1;
    }
    L.costPerIter = (5 + 2 * lines) * contend;
    char ctx[160];
    snprintf(ctx, sizeof ctx, "\"op\": \"%s\", \"mode\": \"%s\", \"shape\": \"%s\"", opName[op], modeName[mode],
             sh.name);
    Summary S = record(
        "global", name, L, "warp_cycles_per_op", 0, 0, "none",
        [&] {
            cudaMemset(g_words, 0, span);
            cudaMemset(g_gsink, 0, sinkBytes);
        },
        ctx);
    if (!S.warps) return;
    // The one-word modes: the word holds every atomic's increment.
    std::string extra;
    char buf[256];
    double threads = (double)warps * ((mode == LEADER || mode == LEADER8) ? 1 : 32);
    double want = threads * iters;
    if (mode == ONE || mode == LEADER) {
        unsigned char h[8];
        cudaMemcpy(h, g_words, 8, cudaMemcpyDeviceToHost);
        double got = 0;
        if (op == RED_U64 || op == ATOM_U64) {
            u64 v;
            memcpy(&v, h, 8);
            got = (double)v;
        } else if (op == RED_F32 || op == ATOM_F32) {
            float v;
            memcpy(&v, h, 4);
            got = v;
        } else if (op == RED_F64) {
            double v;
            memcpy(&v, h, 8);
            got = v;
        } else {
            unsigned v;
            memcpy(&v, h, 4);
            got = v;
        }
        snprintf(buf, sizeof buf, "\"check\": \"%s\", \"word\": %.0f, ", got == want ? "ok" : "wrong", got);
        extra += buf;
    }
    if (op == CAS_U32) {
        std::vector<unsigned> f(1 + warps);
        cudaMemcpy(f.data(), g_gsink, f.size() * 4, cudaMemcpyDeviceToHost);
        double sum = 0;
        for (unsigned w = 0; w < warps; ++w) sum += f[1 + w];
        snprintf(buf, sizeof buf, "\"cas_retries_per_atomic\": %.3f, ", sum / want);
        extra += buf;
    }
    // The check, on a line of its own after the record.
    if (!extra.empty()) {
        extra.resize(extra.size() - 2);
        line("{\"probe\": \"global_check\", \"name\": \"%s\", %s}", name, extra.c_str());
    }
}

// ---------------------------------------------------------------------------
// 2. warpagg

extern "C" __global__ void warp_agg(unsigned* ctr, unsigned naddr, unsigned ret, unsigned iters, u64* rec,
                                    unsigned* sink)
{
    unsigned lane = mech_tid() & 31, w = mech_warp();
    unsigned* a = ctr + (w % naddr) * 32;
    unsigned acc = 0;
    __syncwarp();
    u64 t0 = clk();
    if (!ret) {
#pragma unroll 1
        for (unsigned i = 0; i < iters; ++i) {
            unsigned v = (i ^ w) + lane;
#pragma unroll
            for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
            if (lane == 0) atomicAdd(a, v);
        }
    } else {
#pragma unroll 1
        for (unsigned i = 0; i < iters; ++i) {
            unsigned v = (i ^ w) + lane;
#pragma unroll
            for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
            unsigned old = 0;
            if (lane == 0) old = atomicAdd(a, v);
            old = __shfl_sync(0xffffffffu, old, 0);
            acc += old + lane;
        }
    }
    __syncwarp();
    u64 t1 = clk();
    __threadfence();
    u64 t2 = clk();
    if (lane == 0) {
        rec[4 * w] = smid();
        rec[4 * w + 1] = t0;
        rec[4 * w + 2] = t1;
        rec[4 * w + 3] = t2;
    }
    if (acc == 0xfedcba98u) sink[0] = acc;
}

static void warpagg_case(unsigned naddr, unsigned ret, const Shape& sh, unsigned iters)
{
    char name[96];
    snprintf(name, sizeof name, "%s_n%u_%s", ret ? "atom" : "red", naddr, sh.name);
    Launch L;
    L.kernel = "warp_agg";
    L.fn = (const void*)warp_agg;
    L.grid = dim3(gridOf(sh));
    L.block = dim3(sh.block);
    unsigned warps = L.warps();
    size_t bytes = (size_t)naddr * 128;
    L.args = {abuf(g_words, bytes), au32(naddr), au32(ret), au32(iters), abuf(g_rec, (size_t)warps * 32),
              abuf(g_gsink, 64)};
    L.rec = 4;
    L.row = 4;
    L.itersArg = 3;
    L.iters = iters;
    L.costPerIter = 24; // a shuffle tree, the atomic and the loop
    char extra[160];
    snprintf(extra, sizeof extra, "\"naddr\": %u, \"returns\": %s, \"shape\": \"%s\"", naddr, ret ? "true" : "false",
             sh.name);
    record("warpagg", name, L, "warp_cycles_per_op", 0, 0, "none", [&] { cudaMemset(g_words, 0, bytes); }, extra);
}

// ---------------------------------------------------------------------------
// 3. shared

enum { S_RED_U32, S_ATOM_U32, S_RED_F32, S_RED_U64, S_CAS_U32, NSOPS };
static const char* sopName[NSOPS] = {"red_u32", "atom_u32", "red_f32", "red_u64", "cas_u32"};
enum { P_LANE, P_SAME, P_WARP, P_PAIRS, P_BINS8, P_STRIDE32, P_STRIDE2, NPAT };
static const char* patName[NPAT] = {"lane", "same", "warp", "pairs", "bins8", "stride32", "stride2"};

template <int OP>
__device__ __forceinline__ unsigned satom_loop(unsigned* s32, u64* s64, unsigned idx, unsigned iters, u64* t)
{
    unsigned acc = 0;
    unsigned one = 1;
    u64 one64 = 1;
    float onef = 1.0f;
    unsigned a32 = (unsigned)__cvta_generic_to_shared(s32 + idx);
    unsigned a64 = (unsigned)__cvta_generic_to_shared(s64 + idx);
    __syncthreads();
    t[0] = clk();
#pragma unroll 1
    for (unsigned i = 0; i < iters; ++i) {
        if (OP == S_RED_U32) {
            asm volatile("red.shared.add.u32 [%0], %1;" ::"r"(a32), "r"(one) : "memory");
        } else if (OP == S_ATOM_U32) {
            unsigned r;
            asm volatile("atom.shared.add.u32 %0, [%1], %2;" : "=r"(r) : "r"(a32), "r"(one) : "memory");
            acc += r;
        } else if (OP == S_RED_F32) {
            asm volatile("red.shared.add.f32 [%0], %1;" ::"r"(a32), "f"(onef) : "memory");
        } else if (OP == S_RED_U64) {
            asm volatile("red.shared.add.u64 [%0], %1;" ::"r"(a64), "l"(one64) : "memory");
        } else {
            unsigned old = ((volatile unsigned*)s32)[idx];
            for (int t = 0; t < 4096; ++t) {
                unsigned want = old;
                old = atomicCAS(s32 + idx, want, want + 1);
                if (old == want) break;
            }
        }
    }
    __syncwarp();
    t[1] = clk();
    return acc;
}

extern "C" __global__ void atom_s(unsigned op, unsigned pattern, unsigned iters, u64* rec, unsigned* sink)
{
    __shared__ u64 s64[1024];
    unsigned* s32 = (unsigned*)s64;
    unsigned tid = mech_tid(), lane = tid & 31, wib = tid / 32, w = mech_warp();
    for (unsigned i = tid; i < 1024; i += blockDim.x) s64[i] = 0;
    unsigned idx = 0;
    switch (pattern) {
    case P_LANE: idx = tid; break;
    case P_WARP: idx = wib * 32; break;
    case P_PAIRS: idx = tid / 2; break;
    case P_BINS8: idx = tid & 7; break;
    case P_STRIDE32: idx = (lane * 32 + wib) & 1023; break;
    case P_STRIDE2: idx = (lane * 2 + wib * 64) & 1023; break;
    default: break;
    }
    u64 t[2];
    unsigned acc;
    switch (op) {
    case S_RED_U32: acc = satom_loop<S_RED_U32>(s32, s64, idx, iters, t); break;
    case S_ATOM_U32: acc = satom_loop<S_ATOM_U32>(s32, s64, idx, iters, t); break;
    case S_RED_F32: acc = satom_loop<S_RED_F32>(s32, s64, idx, iters, t); break;
    case S_RED_U64: acc = satom_loop<S_RED_U64>(s32, s64, idx, iters, t); break;
    default: acc = satom_loop<S_CAS_U32>(s32, s64, idx, iters, t); break;
    }
    if (lane == 0) {
        rec[3 * w] = smid();
        rec[3 * w + 1] = t[0];
        rec[3 * w + 2] = t[1];
    }
    __syncthreads();
    if (tid == 0) sink[1 + blockIdx.x] = s32[0] + (unsigned)s64[0] + acc;
}

static void shared_case(int op, int pat, const Shape& sh, unsigned iters)
{
    char name[96];
    snprintf(name, sizeof name, "%s_%s_%s", sopName[op], patName[pat], sh.name);
    Launch L;
    L.kernel = "atom_s";
    L.fn = (const void*)atom_s;
    L.grid = dim3(gridOf(sh));
    L.block = dim3(sh.block);
    if (!sh.grid) L.perSMGrid = sh.perSM;
    unsigned warps = L.warps();
    L.args = {au32(op), au32(pat), au32(iters), abuf(g_rec, (size_t)warps * 24), abuf(g_gsink, (1 + L.blocks()) * 4)};
    L.rec = 3;
    L.itersArg = 2;
    L.iters = iters;
    double contend = 1;
    if (op == S_CAS_U32)
        contend = pat == P_SAME ? sh.block : pat == P_WARP ? 32 : pat == P_PAIRS ? 2 : pat == P_BINS8 ? sh.block / 8 : 1;
    L.costPerIter = 6 * contend;
    char extra[160];
    snprintf(extra, sizeof extra, "\"op\": \"%s\", \"pattern\": \"%s\", \"shape\": \"%s\"", sopName[op], patName[pat],
             sh.name);
    record("shared", name, L, "warp_cycles_per_op", 0, 0, "none", noprep, extra);
}

int main(int argc, char** argv)
{
    if (!mech_open(argc, argv, "atomics.jsonl")) return probe_close();
    if (!ok(cudaMalloc(&g_words, WORDS), "alloc", "words") || !ok(cudaMalloc(&g_rec, 8u << 20), "alloc", "rec") ||
        !ok(cudaMalloc(&g_gsink, 1u << 20), "alloc", "sink"))
        return probe_close();

    // 1. Every op and mode at 8 warps on every SM (a CAS loop of the whole
    // grid on one word is left out: 33,792 lanes contending).
    for (int op = 0; op < NOPS; ++op)
        for (int mode = 0; mode < NMODES; ++mode) {
            // CAS loops of many warps on one word (the grid's lanes, an
            // eighth of them, every warp's leader) are left out: thousands
            // of contenders, each success one round trip.
            if (op == CAS_U32 && (mode == ONE || mode == BINS8 || mode == LEADER)) continue;
            global_case(op, mode, GPU_W8, op == CAS_U32 && mode == WARP ? 4 : 16);
        }
    // From one warp on one SM to 64 warps on every SM.
    const Shape sweep[] = {SM1_W1, SM1_W8, SM1_W32, GPU_W1, GPU_W4, GPU_W16, GPU_W32, GPU_W64};
    for (int op : {RED_U32, ATOM_U32})
        for (int mode : {ONE, WARP, LANE, LEADER})
            for (const Shape& sh : sweep) global_case(op, mode, sh, sh.grid ? 32 : 16);
    for (int mode : {WARP, LANE, LEADER})
        for (const Shape& sh : {SM1_W1, SM1_W8, GPU_W1, GPU_W4}) {
            if (mode == LEADER && sh.grid == 0 && sh.block > 32) continue; // 528 leaders on one word
            global_case(CAS_U32, mode, sh, mode == WARP ? 4 : 16);
        }
    global_case(CAS_U32, ONE, SM1_W8, 2);
    global_case(RED_F32, ONE, SM1_W1, 32);
    global_case(RED_U64, ONE, SM1_W1, 32);

    // 2. Warp-aggregated atomics: to one word, to 8, to one per warp.
    const Shape all[] = {SM1_W1, SM1_W8, SM1_W32, GPU_W1, GPU_W4, GPU_W8, GPU_W16, GPU_W32, GPU_W64};
    for (const Shape& sh : all) {
        warpagg_case(1, 0, sh, 32);
        warpagg_case(8, 0, sh, 32);
        warpagg_case(1, 1, sh, 32);
    }
    for (const Shape& sh : {SM1_W8, GPU_W8, GPU_W64}) {
        warpagg_case(1u << 16, 0, sh, 32);
        warpagg_case(8, 1, sh, 32);
    }

    // 3. Shared atomics: one block of 1, 8, 32 warps; two blocks of 32 on
    // every SM.
    const Shape GPU2_W64 = {"gpu_w64", 0, 1024, 2};
    for (int op = 0; op < NSOPS; ++op)
        for (int pat = 0; pat < NPAT; ++pat)
            for (const Shape& sh : {SM1_W1, SM1_W8, SM1_W32, GPU2_W64}) {
                unsigned iters = 64;
                if (op == S_CAS_U32 && (pat == P_SAME || pat == P_BINS8)) iters = sh.block >= 256 ? 2 : 8;
                if (op == S_CAS_U32 && (pat == P_WARP || pat == P_PAIRS)) iters = 16;
                shared_case(op, pat, sh, iters);
            }
    cudaFree(g_words);
    cudaFree(g_rec);
    cudaFree(g_gsink);
    return probe_close();
}
