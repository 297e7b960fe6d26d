// latency.cu — how long single loads take on the H100 under load, as a
// distribution rather than a mean (issue 9: the spread of DRAM latency,
// which sets how long a block's barrier waits for its slowest warp).
//
//   latency FILE   every probe; one JSON object per line in FILE
//
// 1. dram: each warp streams through a 64 MB array (grid-stride, one u32
//    per lane, coalesced, every line read once: the loads miss L1 and L2)
//    and records, in lane 0, the cycles of each load until its value is
//    used. Warps per SM 1, 8, 32 and 64, one load in flight per warp, and 8
//    and 64 with four: from an idle memory system to a saturated one. The
//    line gives percentiles of the per-load cycles and their mean, over
//    all steps and over each warp's first 16, and the kernel's elapsed
//    time. The L2 is flushed before each launch by a 128 MB cudaMemset
//    (its dirty lines are written back as the probe's reads evict them),
//    the memset and 2 ms idle (_idle), or the memset and a 128 MB read,
//    which leaves it clean (_read): DRAM reads alone.
// 2. tree: reduce_shared of the calibration (calib.cu) with clocks: each
//    warp records the cycles of its two global loads, of its eight tree
//    levels (the barrier before the first included), and its whole life,
//    for 1, 2, 4 and 8 blocks of 256 threads per SM.
// 3. level: a tree level taken apart (a barrier; a shared store and a
//    barrier; loads; loads and a store; the predicated level), per step,
//    for 1 and 8 warps of one block and 8 blocks of 8 warps per SM.
//
// Each line: {"probe", "name", ...}. A failing launch records {"error"}.

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "probe.h"

// Percentiles 0, 1, ..., 100 of v (sorted in place), and the mean.
static std::string dist(std::vector<unsigned>& v)
{
    std::string s = "[";
    char buf[48];
    if (v.empty()) return "[], \"mean\": 0";
    std::sort(v.begin(), v.end());
    double sum = 0;
    for (unsigned x : v) sum += x;
    for (int p = 0; p <= 100; ++p) {
        size_t i = (size_t)((double)p / 100 * (v.size() - 1) + 0.5);
        snprintf(buf, sizeof buf, "%s%u", p ? ", " : "", v[i]);
        s += buf;
    }
    snprintf(buf, sizeof buf, "], \"mean\": %.1f", sum / v.size());
    return s + buf;
}

// ---------------------------------------------------------------------------
// 1. dram

// Each thread reads PER words per step, in[gid + (PER·k + j)·stride] for
// j < PER (PER independent loads in flight); lane 0 records lat[warp·iters
// + k] the cycles from before the step's first load until a branch on
// their sum has been taken (the loads' latency and the branch's).
template <int PER>
__global__ void dram_lat(unsigned* out, const unsigned* in, unsigned n, unsigned iters, unsigned* lat)
{
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned stride = gridDim.x * blockDim.x;
    unsigned warp = gid / 32;
    unsigned acc = 0;
    for (unsigned k = 0; k < iters; ++k) {
        unsigned i = gid + k * PER * stride;
        if (i + (PER - 1) * stride >= n) break;
        u64 t0 = clock64();
        unsigned v = 0;
#pragma unroll
        for (int j = 0; j < PER; ++j) v += in[i + j * stride];
        if (v == 0xdeadbeefu) out[1] = i; // never: the values are their indices
        u64 t1 = clock64();
        acc += v;
        if (threadIdx.x % 32 == 0) lat[warp * iters + k] = (unsigned)(t1 - t0);
    }
    if (acc == 0xffffffffu) out[0] = acc;
}

// How the L2 is flushed before each launch: a 128 MB cudaMemset, which
// leaves the L2 full of dirty lines that the probe's reads then write back
// (mixed read and write traffic); the same followed by 2 ms of idle time;
// or the memset followed by a kernel that reads another 128 MB, which
// leaves the L2 full of clean lines (the probe's traffic is reads only,
// as after ncu's cache control).
enum Flush { FlushWrite, FlushWriteIdle, FlushRead };

#include "sweep.h"

template <int PER>
static void dram(const char* name, unsigned sms, unsigned warpsPerSM, Flush how = FlushWrite)
{
    const unsigned n = 16u << 20; // 64 MB of u32
    unsigned block = warpsPerSM >= 8 ? 256 : 32 * warpsPerSM;
    unsigned grid = sms * (warpsPerSM * 32 / block);
    unsigned threads = grid * block;
    unsigned iters = (n / PER + threads - 1) / threads;
    if (iters > 64) iters = 64; // 1 warp per SM: a part of the array
    unsigned warps = threads / 32;
    unsigned *in, *out, *lat;
    cudaMalloc(&in, (size_t)n * 4);
    cudaMalloc(&out, 64);
    cudaMalloc(&lat, (size_t)warps * iters * 4);
    std::vector<unsigned> h(n);
    for (unsigned i = 0; i < n; ++i) h[i] = i;
    cudaMemcpy(in, h.data(), (size_t)n * 4, cudaMemcpyHostToDevice);
    cudaMemset(lat, 0, (size_t)warps * iters * 4);
    // A 128 MB write between launches flushes the 50 MB L2.
    unsigned *flush, *clean;
    cudaMalloc(&flush, 128u << 20);
    cudaMalloc(&clean, 128u << 20);
    cudaMemset(clean, 0, 128u << 20);
    const char* flushName[] = {"write", "write_idle", "read"};
    for (int rep = 0; rep < 2; ++rep) {
        cudaMemset(flush, rep, 128u << 20);
        if (how == FlushRead) sweep<<<sms * 8, 256>>>(out, (const uint4*)clean, (128u << 20) / 16);
        cudaDeviceSynchronize();
        if (how == FlushWriteIdle) {
            cudaEvent_t a, b;
            cudaEventCreate(&a);
            cudaEventCreate(&b);
            float ms = 0;
            cudaEventRecord(a);
            do {
                cudaEventRecord(b);
                cudaEventSynchronize(b);
                cudaEventElapsedTime(&ms, a, b);
            } while (ms < 2.0f);
        }
        cudaEvent_t e0, e1;
        cudaEventCreate(&e0);
        cudaEventCreate(&e1);
        cudaEventRecord(e0);
        dram_lat<PER><<<grid, block>>>(out, in, n, iters, lat);
        cudaEventRecord(e1);
        if (!ok(cudaDeviceSynchronize(), "dram", name)) break;
        float ms = 0;
        cudaEventElapsedTime(&ms, e0, e1);
        std::vector<unsigned> v((size_t)warps * iters), first;
        cudaMemcpy(v.data(), lat, v.size() * 4, cudaMemcpyDeviceToHost);
        // The first 16 steps of every warp, which the model's replay runs.
        for (unsigned w = 0; w < warps; ++w)
            for (unsigned k = 0; k < iters && k < 16; ++k)
                if (v[(size_t)w * iters + k]) first.push_back(v[(size_t)w * iters + k]);
        v.erase(std::remove(v.begin(), v.end(), 0u), v.end());
        std::string d16 = dist(first);
        line("{\"probe\": \"dram\", \"name\": \"%s\", \"flush\": \"%s\", \"rep\": %d, \"per\": %d, \"grid\": %u, \"block\": %u, \"n\": %u, \"iters\": %u, "
             "\"ms\": %.4f, \"samples\": %zu, \"pct\": %s, \"first16\": {\"pct\": %s}}",
             name, flushName[how], rep, PER, grid, block, n, iters, ms, v.size(), dist(v).c_str(), d16.c_str());
    }
    cudaFree(flush);
    cudaFree(clean);
    cudaFree(in);
    cudaFree(out);
    cudaFree(lat);
}

// ---------------------------------------------------------------------------
// 2. tree

// reduce_shared (calib.cu) with clocks. rec[10 * warp + j], lane 0:
// j = 0 the two loads, 1..8 tree level j (from the barrier before it to
// the barrier after it), 9 the warp's cycles from its first instruction to
// its last barrier.
__global__ void tree(unsigned* out, const unsigned* in, unsigned n, unsigned* rec)
{
    __shared__ unsigned s[256];
    u64 t0 = clock64();
    unsigned t = threadIdx.x;
    unsigned i = blockIdx.x * 512u + t;
    unsigned v = 0;
    if (i < n) v = in[i];
    if (i + 256u < n) v += in[i + 256u];
    s[t] = v;
    u64 t1 = clock64();
    unsigned* r = rec + 10 * (blockIdx.x * 8 + t / 32);
    bool lead = t % 32 == 0;
    if (lead) r[0] = (unsigned)(t1 - t0);
    __syncthreads();
    u64 prev = t1;
    unsigned lvl = 1;
    for (unsigned k = 128; k > 0; k >>= 1, ++lvl) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
        u64 now = clock64();
        if (lead) r[lvl] = (unsigned)(now - prev);
        prev = now;
    }
    if (lead) r[9] = (unsigned)(prev - t0);
    if (t == 0) out[blockIdx.x] = s[0];
}

static void trees(const char* name, unsigned sms, unsigned blocksPerSM)
{
    const unsigned waves = 8;
    unsigned grid = sms * blocksPerSM * waves;
    unsigned n = grid * 512;
    unsigned *in, *out, *rec;
    cudaMalloc(&in, (size_t)n * 4);
    cudaMalloc(&out, (size_t)grid * 4);
    cudaMalloc(&rec, (size_t)grid * 8 * 10 * 4);
    std::vector<unsigned> h(n);
    for (unsigned i = 0; i < n; ++i) h[i] = i * 2654435761u >> 8;
    cudaMemcpy(in, h.data(), (size_t)n * 4, cudaMemcpyHostToDevice);
    unsigned* flush;
    cudaMalloc(&flush, 128u << 20);
    cudaMemset(flush, 1, 128u << 20);
    // At most blocksPerSM blocks per SM: shared memory that leaves room
    // for no more.
    size_t smem = 0;
    cudaDeviceProp p;
    cudaGetDeviceProperties(&p, 0);
    if (blocksPerSM < 8) {
        smem = p.sharedMemPerMultiprocessor / (blocksPerSM + 1) + 1024;
        cudaFuncSetAttribute(tree, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    }
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    cudaEventRecord(e0);
    tree<<<grid, 256, smem>>>(out, in, n, rec);
    cudaEventRecord(e1);
    if (ok(cudaDeviceSynchronize(), "tree", name)) {
        float ms = 0;
        cudaEventElapsedTime(&ms, e0, e1);
        std::vector<unsigned> all((size_t)grid * 8 * 10);
        cudaMemcpy(all.data(), rec, all.size() * 4, cudaMemcpyDeviceToHost);
        std::string parts;
        const char* names[10] = {"loads", "level1", "level2", "level3", "level4",
                                 "level5", "level6", "level7", "level8", "life"};
        for (int j = 0; j < 10; ++j) {
            std::vector<unsigned> v;
            v.reserve(grid * 8);
            for (size_t w = 0; w < (size_t)grid * 8; ++w) v.push_back(all[w * 10 + j]);
            char head[64];
            snprintf(head, sizeof head, "%s\"%s\": {\"pct\": ", j ? ", " : "", names[j]);
            parts += head + dist(v) + "}";
        }
        line("{\"probe\": \"tree\", \"name\": \"%s\", \"grid\": %u, \"block\": 256, \"blocks_per_sm\": %u, "
             "\"dynamic_shared\": %zu, \"n\": %u, \"ms\": %.4f, %s}",
             name, grid, blocksPerSM, smem, n, ms, parts.c_str());
    }
    cudaFree(flush);
    cudaFree(in);
    cudaFree(out);
    cudaFree(rec);
}

// ---------------------------------------------------------------------------
// 3. level: what one level of the tree costs, piece by piece. Each warp
// runs R steps of variant V on a 256-word shared array; lane 0 records the
// cycles of all R.
//   0  __syncthreads() alone
//   1  a shared store, then __syncthreads()
//   2  two shared loads and their sum, then __syncthreads()
//   3  two shared loads, their sum stored back, then __syncthreads()
//   4  3 in the lanes a predicate on the step keeps on (as the tree's
//      if (t < k)), the others' instructions predicated off
template <int V>
__global__ void level(unsigned* out, int R, u64* cyc)
{
    __shared__ unsigned s[512];
    volatile unsigned* vs = s;
    unsigned t = threadIdx.x;
    s[t] = t;
    s[t + 256] = t;
    unsigned acc = 0;
    __syncthreads();
    u64 t0 = clock64();
    for (int i = 0; i < R; ++i) {
        unsigned k = 128u >> (i & 7);
        if (V == 1) {
            vs[t] = i;
        } else if (V == 2) {
            acc += vs[t] + vs[t + k];
        } else if (V == 3) {
            vs[t] = vs[t] + vs[t + k];
        } else if (V == 4) {
            if (t < k) vs[t] = vs[t] + vs[t + k];
        }
        __syncthreads();
    }
    u64 t1 = clock64();
    if (t % 32 == 0) cyc[blockIdx.x * (blockDim.x / 32) + t / 32] = t1 - t0;
    if (acc == 12345u) out[0] = acc;
    if (t == 0) out[1 + blockIdx.x] = s[0];
}

typedef void (*level_kernel)(unsigned*, int, u64*);

static void levels(unsigned sms)
{
    const int R = 1024;
    level_kernel ks[5] = {level<0>, level<1>, level<2>, level<3>, level<4>};
    struct {
        const char* name;
        unsigned grid, block;
    } shapes[3] = {{"w1", 1, 32}, {"w8", 1, 256}, {"b8", sms * 8, 256}};
    for (int v = 0; v < 5; ++v)
        for (auto& sh : shapes) {
            unsigned warps = sh.grid * sh.block / 32;
            unsigned* out;
            u64* cyc;
            cudaMalloc(&out, (sh.grid + 1) * 4);
            cudaMalloc(&cyc, warps * 8);
            ks[v]<<<sh.grid, sh.block>>>(out, R, cyc); // warm-up
            ks[v]<<<sh.grid, sh.block>>>(out, R, cyc);
            char name[32];
            snprintf(name, sizeof name, "v%d_%s", v, sh.name);
            if (ok(cudaDeviceSynchronize(), "level", name)) {
                std::vector<u64> h(warps);
                cudaMemcpy(h.data(), cyc, warps * 8, cudaMemcpyDeviceToHost);
                double sum = 0;
                for (u64 c : h) sum += (double)c;
                line("{\"probe\": \"level\", \"name\": \"%s\", \"variant\": %d, \"grid\": %u, \"block\": %u, "
                     "\"steps\": %d, \"cycles_per_step\": %.2f}",
                     name, v, sh.grid, sh.block, R, sum / warps / R);
            }
            cudaFree(out);
            cudaFree(cyc);
        }
}

int main(int argc, char** argv)
{
    unsigned sms = probe_open(argc, argv, "latency.jsonl");
    if (!sms) return probe_close();

    dram<1>("w1", sms, 1);
    dram<1>("w8", sms, 8);
    dram<1>("w32", sms, 32);
    dram<1>("w64", sms, 64);
    dram<4>("w8x4", sms, 8);
    dram<4>("w64x4", sms, 64);
    // The same after an L2 flush that leaves no dirty lines, and after the
    // memset and 2 ms of idle time.
    dram<1>("w32_read", sms, 32, FlushRead);
    dram<1>("w64_read", sms, 64, FlushRead);
    dram<4>("w8x4_read", sms, 8, FlushRead);
    dram<4>("w64x4_read", sms, 64, FlushRead);
    dram<1>("w64_idle", sms, 64, FlushWriteIdle);
    dram<4>("w64x4_idle", sms, 64, FlushWriteIdle);

    trees("b1", sms, 1);
    trees("b2", sms, 2);
    trees("b4", sms, 4);
    trees("b8", sms, 8);

    levels(sms);
    return probe_close();
}
