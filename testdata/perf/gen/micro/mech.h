// mech.h — what the mechanism probes (atomics.cu, mlp.cu, dramscale.cu,
// pipes.cu, icache.cu; issue 23) share beyond probe.h.
//
// A launch is described as data (Launch: the kernel's name in the PTX, the
// grid, the block, the dynamic shared memory and every argument), launched
// from that description (cudaLaunchKernel), and the description is what
// the record says: a Go test (scheduler/timing/mech_test.go) replays the
// same kernel from <probe>.ptx.gz on the same launch shape with the same
// arguments, buffers zeroed as the probe leaves them, and computes the
// same figure from the same clock records.
//
// Clock records: lane 0 of every warp writes a row of u64 to the record
// buffer (an argument of the kernel): [smid, c_0, c_1, ..., c_n], the SM
// clock (clock64) at n + 1 checkpoints. The warp's global index is its
// block's linear index times the block's warps plus its warp in the block.
// summarize() turns the rows into per-warp cycles, per-segment means and
// per-SM spans; the Go test does the same.
//
// Figures (the record's "figure"; "value" is the H100's):
//   warp_cycles_per_op  mean over the recorded warps of (c_n - c_0) /
//                       (iters * ops_per_iter)
//   seg_cycles_per_op   mean over warps and segments s >= skip of
//                       (c_{s+1} - c_s) / ops_per_iter (steady state: a
//                       segment is one iteration or one pass)
//   bytes_per_cycle     bytes / the largest per-SM span (first c_0 to last
//                       c_n of the SM's warps, on that SM's clock): the
//                       GPU's bytes a cycle
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "probe.h"

// ---------------------------------------------------------------------------
// Device side

__device__ __forceinline__ unsigned mech_tid()
{
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

// mech_warp is the warp's global index (the row of its clock record).
__device__ __forceinline__ unsigned mech_warp()
{
    unsigned nw = (blockDim.x * blockDim.y * blockDim.z + 31) / 32;
    unsigned b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    return b * nw + mech_tid() / 32;
}

// clk reads the SM clock; the memory clobber keeps nvcc from moving memory
// operations across it (ptxas keeps CS2R where the PTX puts it: see each
// probe's SASS).
__device__ __forceinline__ u64 clk()
{
    u64 r;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(r)::"memory");
    return r;
}

// ---------------------------------------------------------------------------
// Host side: launches described as data

struct Arg {
    enum Kind { BUF, U32, U64, F32 } kind;
    size_t bytes; // BUF: the buffer's size
    void* p;      // BUF: the device pointer
    unsigned u32;
    u64 u64v;
    float f32;
};

static inline Arg abuf(void* p, size_t bytes)
{
    Arg a{};
    a.kind = Arg::BUF;
    a.p = p;
    a.bytes = bytes;
    return a;
}
static inline Arg au32(unsigned v)
{
    Arg a{};
    a.kind = Arg::U32;
    a.u32 = v;
    return a;
}
static inline Arg au64(u64 v)
{
    Arg a{};
    a.kind = Arg::U64;
    a.u64v = v;
    return a;
}
static inline Arg af32(float v)
{
    Arg a{};
    a.kind = Arg::F32;
    a.f32 = v;
    return a;
}

struct Launch {
    const char* kernel = ""; // its .entry name (every probe kernel is extern "C")
    const void* fn = nullptr;
    dim3 grid{1, 1, 1}, block{1, 1, 1};
    size_t smem = 0;
    std::vector<Arg> args;
    int rec = -1;      // the argument that is the clock-record buffer
    unsigned row = 3;  // u64 per warp in it: smid and row - 1 clocks
    bool rowIters = false; // row = iters + 2 (a clock per iteration)
    int itersArg = -1; // the argument that is the iteration count
    unsigned iters = 1;
    double opsPerIter = 1; // the measured operations per iteration, per warp
    // The replay's work a warp and iteration (0: opsPerIter), in about
    // warp instructions: instructions plus 2 per memory line a request
    // touches (a Go test bounds the cost it replays: warps × iters × this).
    double costPerIter = 0;
    unsigned perSMGrid = 0; // > 0: the launch fills every SM alike and a replay on one SM runs this many blocks

    unsigned threads() const { return block.x * block.y * block.z; }
    unsigned blocks() const { return grid.x * grid.y * grid.z; }
    unsigned warps() const { return blocks() * ((threads() + 31) / 32); }
};

// The SM clock in MHz, clock64 ticks against %globaltimer over a spin of
// about 2 ms.
__global__ void mech_clock_rate(u64 spin, u64* res)
{
    u64 g0, g1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
    u64 c0 = clock64();
    while (clock64() - c0 < spin) {
    }
    u64 c1 = clock64();
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
    res[0] = c1 - c0;
    res[1] = g1 - g0;
}

static double g_mhz = 0;
static unsigned g_sms = 0;

static double sm_clock_mhz()
{
    u64* d;
    if (cudaMalloc(&d, 16) != cudaSuccess) return 0;
    u64 h[2] = {0, 0};
    mech_clock_rate<<<1, 1>>>(4000000, d);
    if (cudaDeviceSynchronize() == cudaSuccess) cudaMemcpy(h, d, 16, cudaMemcpyDeviceToHost);
    cudaFree(d);
    cudaGetLastError();
    return h[1] ? (double)h[0] / (double)h[1] * 1000.0 : 0;
}

// mech_open is probe_open and the SM clock (the device record gets a
// second line: {"probe": "clock", "mhz"}).
static unsigned mech_open(int argc, char** argv, const char* def)
{
    g_sms = probe_open(argc, argv, def);
    if (!g_sms) return 0;
    g_mhz = sm_clock_mhz();
    line("{\"probe\": \"clock\", \"name\": \"sm_clock\", \"mhz\": %.2f}", g_mhz);
    return g_sms;
}

// occupancy: the blocks an SM holds at once for L (0 if it cannot run).
static int occupancy(const Launch& L)
{
    int n = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, L.fn, (int)L.threads(), L.smem) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return n;
}

// launch runs L once between two events; ms gets their time. False (and a
// recorded error) when it fails.
static bool launch(const char* probe, const char* name, Launch& L, float* ms)
{
    if (L.smem > 48 * 1024)
        cudaFuncSetAttribute(L.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)L.smem);
    union Slot {
        void* p;
        unsigned u32;
        u64 u64v;
        float f32;
    };
    std::vector<Slot> slots(L.args.size());
    std::vector<void*> ptrs(L.args.size());
    for (size_t i = 0; i < L.args.size(); ++i) {
        const Arg& a = L.args[i];
        memset(&slots[i], 0, sizeof(Slot));
        switch (a.kind) {
        case Arg::BUF: slots[i].p = a.p; break;
        case Arg::U32: slots[i].u32 = a.u32; break;
        case Arg::U64: slots[i].u64v = a.u64v; break;
        case Arg::F32: slots[i].f32 = a.f32; break;
        }
        ptrs[i] = &slots[i];
    }
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    cudaEventRecord(e0);
    cudaError_t err = cudaLaunchKernel(L.fn, L.grid, L.block, ptrs.data(), L.smem, 0);
    cudaEventRecord(e1);
    bool good = ok(err, probe, name) && ok(cudaDeviceSynchronize(), probe, name);
    if (good && ms) cudaEventElapsedTime(ms, e0, e1);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return good;
}

// launch_json: the launch as the record gives it (no braces).
static std::string launch_json(const Launch& L)
{
    std::string s;
    char buf[256];
    snprintf(buf, sizeof buf,
             "\"kernel\": \"%s\", \"grid\": [%u, %u, %u], \"block\": [%u, %u, %u], \"dyn_smem\": %zu, \"args\": [",
             L.kernel, L.grid.x, L.grid.y, L.grid.z, L.block.x, L.block.y, L.block.z, L.smem);
    s += buf;
    for (size_t i = 0; i < L.args.size(); ++i) {
        const Arg& a = L.args[i];
        const char* sep = i ? ", " : "";
        switch (a.kind) {
        case Arg::BUF: snprintf(buf, sizeof buf, "%s{\"buf\": %zu}", sep, a.bytes); break;
        case Arg::U32: snprintf(buf, sizeof buf, "%s{\"u32\": %u}", sep, a.u32); break;
        case Arg::U64: snprintf(buf, sizeof buf, "%s{\"u64\": %llu}", sep, a.u64v); break;
        case Arg::F32: snprintf(buf, sizeof buf, "%s{\"f32\": %.9g}", sep, a.f32); break;
        }
        s += buf;
    }
    cudaFuncAttributes fa;
    memset(&fa, 0, sizeof fa);
    if (cudaFuncGetAttributes(&fa, L.fn) != cudaSuccess) cudaGetLastError();
    snprintf(buf, sizeof buf,
             "], \"rec_arg\": %d, \"row\": %u, \"row_iters\": %s, \"iters_arg\": %d, \"iters\": %u, "
             "\"ops_per_iter\": %g, \"warps\": %u, \"occupancy\": %d, \"regs\": %d, \"local_bytes\": %zu, "
             "\"per_sm_grid\": %u",
             L.rec, L.row, L.rowIters ? "true" : "false", L.itersArg, L.iters, L.opsPerIter, L.warps(),
             occupancy(L), fa.numRegs, fa.localSizeBytes, L.perSMGrid);
    return s + buf;
}

// Summary of a launch's clock records.
struct Summary {
    std::string json; // "warp_cycles", "segs", "sm_span", "sms", ...
    double warpMean = 0;   // mean of c_n - c_0 over the recorded warps
    double segMean = 0;    // mean over warps and segments s >= skip of c_{s+1} - c_s
    double spanMax = 0;    // the largest per-SM span
    unsigned warps = 0;    // warps that wrote a row
};

// summarize reads L's record buffer (row u64 per warp, warps rows; rows
// whose clocks are all zero did not record and are left out).
static Summary summarize(const Launch& L, int skip)
{
    Summary S;
    unsigned nw = L.warps(), row = L.row;
    std::vector<u64> rec((size_t)nw * row);
    const Arg& ra = L.args[L.rec];
    cudaMemcpy(rec.data(), ra.p, rec.size() * 8, cudaMemcpyDeviceToHost);
    unsigned nseg = row - 2;
    std::vector<double> total, segAll;
    std::vector<double> segSum(nseg, 0);
    std::vector<unsigned> segN(nseg, 0);
    std::map<u64, std::pair<u64, u64>> span; // smid -> (first, last)
    for (unsigned w = 0; w < nw; ++w) {
        const u64* r = &rec[(size_t)w * row];
        if (r[1] == 0 && r[row - 1] == 0) continue;
        ++S.warps;
        total.push_back((double)(r[row - 1] - r[1]));
        for (unsigned s = 0; s < nseg; ++s) {
            double d = (double)(r[2 + s] - r[1 + s]);
            segSum[s] += d;
            segN[s]++;
            if ((int)s >= skip) segAll.push_back(d);
        }
        auto it = span.find(r[0]);
        if (it == span.end())
            span[r[0]] = {r[1], r[row - 1]};
        else {
            it->second.first = std::min(it->second.first, r[1]);
            it->second.second = std::max(it->second.second, r[row - 1]);
        }
    }
    std::vector<double> spans;
    for (auto& kv : span) spans.push_back((double)(kv.second.second - kv.second.first));
    for (double x : total) S.warpMean += x;
    if (!total.empty()) S.warpMean /= total.size();
    for (double x : segAll) S.segMean += x;
    if (!segAll.empty()) S.segMean /= segAll.size();
    for (double x : spans) S.spanMax = std::max(S.spanMax, x);
    std::string segs = "[";
    char buf[64];
    for (unsigned s = 0; s < nseg && s < 64; ++s) {
        snprintf(buf, sizeof buf, "%s%.1f", s ? ", " : "", segN[s] ? segSum[s] / segN[s] : 0.0);
        segs += buf;
    }
    segs += "]";
    std::string wc = stats(total), sp = stats(spans);
    char head[256];
    snprintf(head, sizeof head, "\"recorded_warps\": %u, \"sms\": %zu, \"skip\": %d, \"seg_mean\": %.2f, \"span_max\": %.0f, ",
             S.warps, span.size(), skip, S.segMean, S.spanMax);
    S.json = std::string(head) + "\"warp_cycles\": " + wc + ", \"segs\": " + segs + ", \"sm_span\": " + sp;
    return S;
}

// figure computes the record's figure from a summary.
static double figure(const char* kind, const Launch& L, const Summary& S, double bytes)
{
    if (!strcmp(kind, "warp_cycles_per_op")) return S.warpMean / (L.iters * L.opsPerIter);
    if (!strcmp(kind, "seg_cycles_per_op")) return S.segMean / L.opsPerIter;
    if (!strcmp(kind, "bytes_per_cycle")) return S.spanMax > 0 ? bytes / S.spanMax : 0;
    return 0;
}

// record runs L twice (a warm-up, then the measured launch; before each,
// prep() if given: zeroing, flushing the L2) and writes one record:
// {"probe", "name", the launch, "flush", the summary, "ms", "figure",
// "value", "bytes", "cost", extra}. It returns the summary (warps 0 when
// the launch failed).
template <typename Prep>
static Summary record(const char* probe, const char* name, Launch& L, const char* fig, int skip, double bytes,
                      const char* flush, Prep prep, const std::string& extra = "")
{
    Summary S;
    float ms = 0;
    for (int rep = 0; rep < 2; ++rep) {
        prep();
        cudaMemset(L.args[L.rec].p, 0, (size_t)L.warps() * L.row * 8);
        if (!launch(probe, name, L, &ms)) return S;
    }
    S = summarize(L, skip);
    double v = figure(fig, L, S, bytes);
    double cost = (double)L.warps() * L.iters * (L.costPerIter > 0 ? L.costPerIter : L.opsPerIter);
    line("{\"probe\": \"%s\", \"name\": \"%s\", %s, \"flush\": \"%s\", \"ms\": %.4f, \"figure\": \"%s\", "
         "\"value\": %.4f, \"bytes\": %.0f, \"cost\": %.0f, %s%s%s}",
         probe, name, launch_json(L).c_str(), flush, ms, fig, v, bytes, cost, S.json.c_str(),
         extra.empty() ? "" : ", ", extra.c_str());
    return S;
}

static void noprep() {}

// ---------------------------------------------------------------------------
// L2 flushes before a launch (as latency.cu's): "dirty" a 128 MB
// cudaMemset, which leaves the L2 full of dirty lines (a replay sets
// timing.Options.DirtyL2 to 128 MB); "clean" the memset and a 128 MB read,
// which leaves it full of clean lines (a replay starts with a clean L2, as
// after ncu's cache control).

#include "sweep.h"

static unsigned *g_fl = nullptr, *g_clean = nullptr, *g_sink = nullptr;
static int g_flips = 0;

static void flush_dirty()
{
    if (!g_fl) {
        cudaMalloc(&g_fl, 128u << 20);
        cudaMalloc(&g_clean, 128u << 20);
        cudaMalloc(&g_sink, 64);
        cudaMemset(g_clean, 0, 128u << 20);
    }
    cudaMemset(g_fl, ++g_flips & 0xff, 128u << 20);
    cudaDeviceSynchronize();
}

static void flush_clean()
{
    flush_dirty();
    sweep<<<g_sms * 8, 256>>>(g_sink, (const uint4*)g_clean, (128u << 20) / 16);
    cudaDeviceSynchronize();
}
