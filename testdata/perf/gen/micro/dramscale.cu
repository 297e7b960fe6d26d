// dramscale.cu — the H100's L2 and DRAM at scale (issue 23): capacity and
// eviction, write-back, partial-sector writes, mixed read/write streams
// and DRAM efficiency under scattered traffic. Every kernel's warps read
// the SM clock (lane 0) at their start, at pass boundaries where there
// are passes, and at their end.
//
//   dramscale FILE   every configuration; one JSON object per line in FILE
//
// 1. write ("probe": "write"): stores only.
//    stream    wr_stream: coalesced 16-byte stores, grid-stride, over 16 MB
//              (fits the L2) and 256 MB
//    tpose     wr_tpose: the naive transpose's stores without its loads
//              (blocks of 32×8, thread (x, y) stores out[x·n + y + 8j],
//              j < 4: each lane 4 bytes n·4 bytes from the next), n = 2048,
//              4096, 8192 (16, 64, 256 MB)
//    tile      wr_tile: the same grid storing out[(y + 8j)·n + x]
//              (coalesced), n = 4096, 8192
//    band      tpose and tile at n = 8192 on 4 block rows only (4 MB), in
//              a clean L2 and after a dirty flush
//    sparse    wr_sparse: thread i stores 4 bytes at i·stride (stride 32:
//              one word per sector; 128: one word per line), footprints 32
//              and 256 MB: partial sectors that nothing completes
// 2. scatter ("probe": "scatter"): rd_scatter. Each thread 4 independent
//    loads a step, 8 steps; lanes in groups of gran/32 read the sectors of
//    one gran-byte chunk (gran = 32, 64, 128: every lane its own random
//    sector, pairs, quads), chunks at hashed places in 512 MB; or (seq) a
//    warp's 32 lanes read 1 KB in order, chunks in order: the same sectors
//    a load, streaming. One block of 32 warps on one SM and on every SM.
// 3. mix ("probe": "mix"): rw_mix. 32 warps on every SM; warp w writes its
//    own contiguous chunk (16-byte stores) if w % 8 < wfrac, else reads
//    one; wfrac = 0, 2, 4, 6, 8 of 8; copy: every warp reads a chunk and
//    writes another. After a clean flush with 192 MB moved, and after a
//    dirty flush (the L2 full of dirty lines: every line a warp brings in
//    evicts one to DRAM) with 32 MB moved (replay: Options.DirtyL2 128 MB).
// 4. l2 ("probe": "l2"): l2_reread reads S MB three times (ld.global.cg,
//    grid-stride: each thread the same elements each pass), S = 8 ... 96;
//    l2_rewrite writes S MB three times, S = 24, 48, 96. One block of 32
//    warps per SM; a clock per pass.
//
// Before each launch (two, the second recorded) the L2 is flushed clean
// (128 MB memset, 128 MB read) unless said. Figures: bytes_per_cycle (the
// bytes the kernel moves over the largest per-SM span) for write, scatter
// and mix; seg_cycles_per_op for l2 (a pass after the first, in cycles
// per pass). "ms" is the event time of the launch.
//
// Each line: {"probe", "name", ...} (mech.h).

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

// ---------------------------------------------------------------------------
// 1. write

extern "C" __global__ void wr_stream(uint4* out, u64 n16, u64* rec)
{
    u64 t0 = clk();
    size_t step = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n16; i += step)
        out[i] = make_uint4((unsigned)i, 1, 2, 3);
    u64 t1 = clk();
    rec2(rec, t0, t1);
}

extern "C" __global__ void wr_tpose(float* out, unsigned n, u64* rec)
{
    u64 t0 = clk();
    unsigned x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
#pragma unroll
    for (int j = 0; j < 32; j += 8) out[(size_t)x * n + y + j] = (float)(x ^ (y + j));
    u64 t1 = clk();
    rec2(rec, t0, t1);
}

extern "C" __global__ void wr_tile(float* out, unsigned n, u64* rec)
{
    u64 t0 = clk();
    unsigned x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
#pragma unroll
    for (int j = 0; j < 32; j += 8) out[(size_t)(y + j) * n + x] = (float)(x ^ (y + j));
    u64 t1 = clk();
    rec2(rec, t0, t1);
}

extern "C" __global__ void wr_sparse(unsigned* out, u64 items, unsigned stride_words, u64* rec)
{
    u64 t0 = clk();
    size_t step = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < items; i += step)
        out[i * stride_words] = (unsigned)i;
    u64 t1 = clk();
    rec2(rec, t0, t1);
}

// ---------------------------------------------------------------------------
// 2. scatter

__device__ __forceinline__ unsigned mix32(unsigned h)
{
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    h ^= h >> 16;
    return h;
}

// lanes_log2: log2 of the lanes that share a chunk (gran = 32 << it);
// chunks_mask: the chunks in the region less one (a power of two);
// seq: chunks in order instead of hashed.
extern "C" __global__ void rd_scatter(const unsigned* in, unsigned lanes_log2, unsigned chunks_mask, unsigned seq,
                                      unsigned iters, u64* rec, unsigned* sink)
{
    unsigned lane = mech_tid() & 31, w = mech_warp();
    unsigned group = (w * 32 + lane) >> lanes_log2;
    unsigned sub = lane & ((1u << lanes_log2) - 1);
    unsigned groups = (gridDim.x * blockDim.x) >> lanes_log2;
    const char* base = (const char*)in;
    unsigned gran_log2 = 5 + lanes_log2;
    unsigned acc = 0;
    u64 t0 = clk();
#pragma unroll 1
    for (unsigned it = 0; it < iters; ++it) {
        unsigned v = 0;
#pragma unroll
        for (unsigned j = 0; j < 4; ++j) {
            unsigned k = it * 4 + j;
            unsigned c = seq ? (k * groups + group) : mix32(group * 0x9e3779b9u + k);
            size_t off = ((size_t)(c & chunks_mask) << gran_log2) + sub * 32;
            v += *(const unsigned*)(base + off);
        }
        if (v == 0xdeadbeefu) sink[1] = v; // never: each step waits for its loads
        acc += v;
    }
    u64 t1 = clk();
    rec2(rec, t0, t1);
    if (acc == 0xfeedf00du) sink[0] = acc;
}

// ---------------------------------------------------------------------------
// 3. mix

// Each warp its own chunk of items × 512 bytes (32 lanes × 16): writers
// (w % 8 < wfrac) store to out, readers load from in; wfrac 9: copy.
extern "C" __global__ void rw_mix(const uint4* in, uint4* out, unsigned items, unsigned wfrac, u64* rec, unsigned* sink)
{
    unsigned lane = mech_tid() & 31, w = mech_warp();
    size_t base = (size_t)w * items * 32 + lane;
    uint4 acc = make_uint4(0, 0, 0, 0);
    u64 t0 = clk();
    if (wfrac == 9) {
#pragma unroll 4
        for (unsigned i = 0; i < items; ++i) out[base + (size_t)i * 32] = in[base + (size_t)i * 32];
    } else if ((w & 7) < wfrac) {
#pragma unroll 4
        for (unsigned i = 0; i < items; ++i) out[base + (size_t)i * 32] = make_uint4(i, w, lane, 7);
    } else {
#pragma unroll 4
        for (unsigned i = 0; i < items; ++i) {
            uint4 v = in[base + (size_t)i * 32];
            acc.x ^= v.x;
            acc.y ^= v.y;
            acc.z ^= v.z;
            acc.w ^= v.w;
        }
        if ((acc.x ^ acc.y ^ acc.z ^ acc.w) == 0xdeadbeefu) sink[0] = 1;
    }
    u64 t1 = clk();
    rec2(rec, t0, t1);
}

// ---------------------------------------------------------------------------
// 4. l2

// Each thread reads in[g + k·step], k < per (step: the grid's threads),
// four loads in flight (their uses after all four).
extern "C" __global__ void l2_reread(const uint4* in, unsigned per, unsigned passes, u64* rec, unsigned* sink)
{
    unsigned lane = mech_tid() & 31, w = mech_warp();
    u64* row = rec + (size_t)w * (passes + 2);
    if (lane == 0) row[0] = smid();
    size_t step = (size_t)gridDim.x * blockDim.x;
    const uint4* p0 = in + blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    unsigned acc = 0;
#pragma unroll 1
    for (unsigned p = 0; p < passes; ++p) {
        u64 t = clk();
        if (lane == 0) row[1 + p] = t;
        const uint4* q = p0;
#pragma unroll 1
        for (unsigned k = 0; k + 4 <= per; k += 4) {
            uint4 v0 = __ldcg(q), v1 = __ldcg(q + step), v2 = __ldcg(q + 2 * step), v3 = __ldcg(q + 3 * step);
            acc ^= (v0.x ^ v1.x ^ v2.x ^ v3.x) + (v0.y ^ v1.y ^ v2.y ^ v3.y) + (v0.z ^ v1.z ^ v2.z ^ v3.z) +
                   (v0.w ^ v1.w ^ v2.w ^ v3.w);
            q += 4 * step;
        }
        if (acc == 0xdeadbeefu) sink[1] = acc; // the pass's loads are back before the next clock
    }
    u64 t = clk();
    if (lane == 0) row[1 + passes] = t;
    if (acc == 0xfeedf00du) sink[0] = acc;
}

extern "C" __global__ void l2_rewrite(uint4* out, u64 n16, unsigned passes, u64* rec)
{
    unsigned lane = mech_tid() & 31, w = mech_warp();
    u64* row = rec + (size_t)w * (passes + 2);
    if (lane == 0) row[0] = smid();
    size_t step = (size_t)gridDim.x * blockDim.x;
#pragma unroll 1
    for (unsigned p = 0; p < passes; ++p) {
        u64 t = clk();
        if (lane == 0) row[1 + p] = t;
        for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n16; i += step)
            out[i] = make_uint4((unsigned)i, p, 2, 3);
    }
    u64 t = clk();
    if (lane == 0) row[1 + passes] = t;
}

// ---------------------------------------------------------------------------

static char *g_a, *g_b; // 512 MB each
static u64* g_drec;
static unsigned* g_dsink;
static const size_t ABYTES = (size_t)512 << 20;

static void write_case(const char* name, Launch& L, double bytes, const char* kind, bool dirty = false)
{
    char extra[160];
    snprintf(extra, sizeof extra, "\"kind\": \"%s\"", kind);
    if (dirty)
        record("write", name, L, "bytes_per_cycle", 0, bytes, "dirty", flush_dirty, extra);
    else
        record("write", name, L, "bytes_per_cycle", 0, bytes, "clean", flush_clean, extra);
}

static void writes()
{
    for (size_t mb : {16, 256}) {
        Launch L;
        L.kernel = "wr_stream";
        L.fn = (const void*)wr_stream;
        L.grid = dim3(g_sms * 8);
        L.block = dim3(256);
        u64 n16 = (mb << 20) / 16;
        L.args = {abuf(g_a, mb << 20), au64(n16), abuf(g_drec, (size_t)L.warps() * 24)};
        L.rec = 2;
        L.costPerIter = (double)n16 / 32 / L.warps() * (4 + 2 * 4); // 4 lines a warp store
        char name[64];
        snprintf(name, sizeof name, "stream_%zuMB", mb);
        write_case(name, L, (double)(mb << 20), "stream");
    }
    for (unsigned n : {2048u, 4096u, 8192u})
        for (int tile = 0; tile < 2; ++tile) {
            if (tile && n == 2048) continue;
            Launch L;
            L.kernel = tile ? "wr_tile" : "wr_tpose";
            L.fn = tile ? (const void*)wr_tile : (const void*)wr_tpose;
            L.grid = dim3(n / 32, n / 32);
            L.block = dim3(32, 8);
            size_t bytes = (size_t)n * n * 4;
            L.args = {abuf(g_a, bytes), au32(n), abuf(g_drec, (size_t)L.warps() * 24)};
            L.rec = 2;
            L.costPerIter = tile ? 4 * (3 + 2) : 4 * (3 + 2 * 32);
            char name[64];
            snprintf(name, sizeof name, "%s_%u", tile ? "tile" : "tpose", n);
            write_case(name, L, (double)bytes, tile ? "tile" : "tpose");
        }
    // A band of 4 block rows of the 8192 transpose (4 MB: 32 columns of
    // out by 8192 rows, each warp store 32 lines), and its coalesced
    // counterpart, in a clean L2 and in one full of dirty lines (every
    // line allocated writes one back): a replay the model runs in seconds.
    for (int dirty = 0; dirty < 2; ++dirty)
        for (int tile = 0; tile < 2; ++tile) {
            const unsigned n = 8192, rows = 4;
            Launch L;
            L.kernel = tile ? "wr_tile" : "wr_tpose";
            L.fn = tile ? (const void*)wr_tile : (const void*)wr_tpose;
            L.grid = dim3(n / 32, rows);
            L.block = dim3(32, 8);
            L.args = {abuf(g_a, (size_t)n * n * 4), au32(n), abuf(g_drec, (size_t)L.warps() * 24)};
            L.rec = 2;
            L.costPerIter = tile ? 4 * (3 + 2) : 4 * (3 + 2 * 32);
            char name[64];
            snprintf(name, sizeof name, "%s_%u_band%u_%s", tile ? "tile" : "tpose", n, rows, dirty ? "dirty" : "clean");
            write_case(name, L, (double)n * 32 * rows * 4, tile ? "tile" : "tpose", dirty);
        }
    for (unsigned stride : {32u, 128u})
        for (size_t mb : {32, 256}) {
            Launch L;
            L.kernel = "wr_sparse";
            L.fn = (const void*)wr_sparse;
            L.grid = dim3(g_sms * 8);
            L.block = dim3(256);
            u64 items = (mb << 20) / stride;
            L.args = {abuf(g_a, mb << 20), au64(items), au32(stride / 4), abuf(g_drec, (size_t)L.warps() * 24)};
            L.rec = 3;
            L.costPerIter = (double)items / 32 / L.warps() * (4 + 2 * stride / 4.0); // 1 KB or 4 KB of lines a warp store
            char name[64];
            snprintf(name, sizeof name, "sparse%u_%zuMB", stride, mb);
            write_case(name, L, (double)items * 4, "sparse");
        }
}

static void scatters()
{
    const unsigned iters = 8;
    const size_t region = ABYTES;
    for (int gpu = 0; gpu < 2; ++gpu)
        for (unsigned ll : {0u, 1u, 2u, 5u}) {
            unsigned seq = ll == 5;
            Launch L;
            L.kernel = "rd_scatter";
            L.fn = (const void*)rd_scatter;
            L.grid = dim3(gpu ? g_sms : 1);
            L.block = dim3(1024);
            if (gpu) L.smem = 120 << 10;
            unsigned chunks = (unsigned)(region >> (5 + ll));
            L.args = {abuf(g_a, region), au32(ll), au32(chunks - 1), au32(seq), au32(iters),
                      abuf(g_drec, (size_t)L.warps() * 24), abuf(g_dsink, 64)};
            L.rec = 5;
            L.itersArg = 4;
            L.iters = iters;
            L.opsPerIter = 4;
            L.costPerIter = 20 + 4 * (3 + 2 * (seq ? 8 : 32.0 / (1u << ll))); // four loads of 8 to 32 lines
            double bytes = (double)L.warps() * iters * 4 * 32 * 32; // sectors × 32
            char name[64], extra[128];
            snprintf(name, sizeof name, "%s_%s", seq ? "seq1k" : ll == 0 ? "rand32" : ll == 1 ? "rand64" : "rand128",
                     gpu ? "gpu_w32" : "sm1_w32");
            snprintf(extra, sizeof extra, "\"gran\": %u, \"seq\": %s, \"region\": %zu", 32u << ll,
                     seq ? "true" : "false", region);
            record("scatter", name, L, "bytes_per_cycle", 0, bytes, "clean", flush_clean, extra);
        }
}

static void mixes()
{
    for (int dirty = 0; dirty < 2; ++dirty)
        for (unsigned wf : {0u, 2u, 4u, 6u, 8u, 9u}) {
            Launch L;
            L.kernel = "rw_mix";
            L.fn = (const void*)rw_mix;
            L.grid = dim3(g_sms);
            L.block = dim3(1024);
            L.smem = 120 << 10;
            size_t total = (size_t)(dirty ? 32 : 192) << 20;
            unsigned items = (unsigned)(total / ((size_t)L.warps() * 512));
            if (wf == 9) items /= 2; // copy: each byte read and written
            size_t span = (size_t)L.warps() * items * 512;
            L.args = {abuf(g_a, span), abuf(g_b, span), au32(items), au32(wf), abuf(g_drec, (size_t)L.warps() * 24),
                      abuf(g_dsink, 64)};
            L.rec = 4;
            L.costPerIter = items * (3 + 2 * 4) * (wf == 9 ? 2 : 1);
            double bytes = (double)span * (wf == 9 ? 2 : 1);
            char name[64], extra[128];
            snprintf(name, sizeof name, "%s_%s", wf == 9 ? "copy" : wf == 0 ? "w0" : wf == 2 ? "w2" : wf == 4 ? "w4"
                                                                  : wf == 6 ? "w6" : "w8",
                     dirty ? "dirty32MB" : "clean192MB");
            snprintf(extra, sizeof extra, "\"write_eighths\": %u, \"moved\": %zu", wf, total);
            if (dirty)
                record("mix", name, L, "bytes_per_cycle", 0, bytes, "dirty", flush_dirty, extra);
            else
                record("mix", name, L, "bytes_per_cycle", 0, bytes, "clean", flush_clean, extra);
        }
}

static void l2s()
{
    const unsigned passes = 3;
    for (int wr = 0; wr < 2; ++wr)
        for (size_t mb : {8, 16, 24, 32, 40, 48, 64, 96}) {
            if (wr && mb != 24 && mb != 48 && mb != 96) continue;
            Launch L;
            L.kernel = wr ? "l2_rewrite" : "l2_reread";
            L.fn = wr ? (const void*)l2_rewrite : (const void*)l2_reread;
            L.grid = dim3(g_sms);
            L.block = dim3(1024);
            L.smem = 120 << 10;
            size_t threads = (size_t)g_sms * 1024;
            // reread: a whole number of 4-load groups a thread (about mb).
            unsigned per = (unsigned)(((mb << 20) / 16 / threads + 2) / 4 * 4);
            u64 n16 = wr ? (mb << 20) / 16 : (u64)per * threads;
            size_t bytes = n16 * 16;
            size_t recb = (size_t)L.warps() * (passes + 2) * 8;
            if (wr)
                L.args = {abuf(g_a, bytes), au64(n16), au32(passes), abuf(g_drec, recb)};
            else
                L.args = {abuf(g_a, bytes), au32(per), au32(passes), abuf(g_drec, recb), abuf(g_dsink, 64)};
            L.rec = 3;
            L.row = passes + 2;
            L.rowIters = true;
            L.itersArg = 2;
            L.iters = passes;
            L.costPerIter = (double)n16 / 32 / L.warps() * (3 + 2 * 4);
            char name[64], extra[96];
            snprintf(name, sizeof name, "%s_%zuMB", wr ? "rewrite" : "reread", mb);
            snprintf(extra, sizeof extra, "\"mb\": %zu, \"set_bytes\": %zu, \"writes\": %s", mb, bytes,
                     wr ? "true" : "false");
            record("l2", name, L, "seg_cycles_per_op", 1, (double)bytes * passes, "clean", flush_clean, extra);
        }
}

int main(int argc, char** argv)
{
    if (!mech_open(argc, argv, "dramscale.jsonl")) return probe_close();
    if (!ok(cudaMalloc(&g_a, ABYTES), "alloc", "a") || !ok(cudaMalloc(&g_b, ABYTES), "alloc", "b") ||
        !ok(cudaMalloc(&g_drec, 16u << 20), "alloc", "rec") || !ok(cudaMalloc(&g_dsink, 64), "alloc", "sink"))
        return probe_close();
    cudaMemset(g_a, 0, ABYTES);
    cudaMemset(g_b, 0, ABYTES);
    cudaMemset(g_dsink, 0, 64);
    writes();
    scatters();
    mixes();
    l2s();
    cudaFree(g_a);
    cudaFree(g_b);
    return probe_close();
}
