// sched.cu — probes of where the H100 puts warps and how it fetches code
// (issue 9: the warp scheduler each warp goes to, and instruction fetch).
//
//   sched FILE   every probe; one JSON object per line in FILE
//
// 1. placement: every warp of a launch records its block, its warp within
//    the block, %smid, %warpid and the clock at its start, for several
//    shapes (the calibration's branch_uniform included) and for a launch
//    whose blocks run for different times, so that later blocks take the
//    slots of earlier ones.
// 2. partition: one block of 32 warps in which chosen warps run an
//    SFU-bound loop; two warps that share a sub-partition's SFU take twice
//    as long as two that do not. This ties %warpid to the sub-partition.
// 3. fetch: straight-line FFMA code of N instructions (8 independent
//    chains, so that a warp can issue one a cycle) run R times by a loop;
//    the clock at each pass shows the cost of cold code against warm, for
//    1, 4, 32 warps in one block and for a block on every SM. Then the same
//    with K forward jumps over S instructions each (a skipped if).
//
// Each line: {"probe", "name", ...}. A failing launch records {"error"}.

#include <cuda_runtime.h>

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "probe.h"

__device__ __forceinline__ unsigned warpid()
{
    unsigned r;
    asm volatile("mov.u32 %0, %%warpid;" : "=r"(r));
    return r;
}

// ---------------------------------------------------------------------------
// 1. placement

// rec[5 * global warp]: block, warp in block, smid, warpid, clock (low 32
// bits). spin > 0: the block then waits spin * (1 + hash(block) % 4) cycles.
__global__ void place(unsigned* rec, unsigned spin)
{
    unsigned w = threadIdx.x / 32;
    unsigned nw = (blockDim.x + 31) / 32;
    unsigned g = blockIdx.x * nw + w;
    unsigned t0 = (unsigned)clock();
    if (threadIdx.x % 32 == 0) {
        rec[5 * g + 0] = blockIdx.x;
        rec[5 * g + 1] = w;
        rec[5 * g + 2] = smid();
        rec[5 * g + 3] = warpid();
        rec[5 * g + 4] = t0;
    }
    if (spin) {
        u64 until = clock64() + (u64)spin * (1 + ((blockIdx.x * 2654435761u) >> 28) % 4);
        while (clock64() < until) {
        }
    }
}

static void placement(const char* name, unsigned grid, unsigned block, unsigned spin)
{
    unsigned nw = (block + 31) / 32;
    size_t n = (size_t)grid * nw * 5;
    unsigned* d = nullptr;
    if (!ok(cudaMalloc(&d, n * 4), "placement", name)) return;
    cudaMemset(d, 0xff, n * 4);
    place<<<grid, block>>>(d, spin);
    if (!ok(cudaDeviceSynchronize(), "placement", name)) {
        cudaFree(d);
        return;
    }
    std::vector<unsigned> h(n);
    cudaMemcpy(h.data(), d, n * 4, cudaMemcpyDeviceToHost);
    cudaFree(d);
    std::string s;
    s.reserve(n * 8);
    char buf[64];
    for (size_t i = 0; i < n; ++i) {
        snprintf(buf, sizeof buf, "%s%u", i ? "," : "", h[i]);
        s += buf;
    }
    // Too long for line(): written as it is.
    fprintf(g_out,
            "{\"probe\": \"placement\", \"name\": \"%s\", \"grid\": %u, \"block\": %u, \"spin\": %u, "
            "\"fields\": [\"block\", \"warp\", \"smid\", \"warpid\", \"clock\"], \"rec\": [",
            name, grid, block, spin);
    fputs(s.c_str(), g_out);
    fputs("]}\n", g_out);
    fflush(g_out);
}

// ---------------------------------------------------------------------------
// 2. partition

// Warps whose bit is set in mask run iters rounds of 8 independent ex2
// chains (MUFU.EX2); cyc[w] their cycles, wid[w] their %warpid.
__global__ void sfu_pair(float* out, unsigned mask, int iters, u64* cyc, unsigned* wid)
{
    unsigned w = threadIdx.x / 32;
    if (!(mask >> w & 1)) return;
    float a[8];
    for (int j = 0; j < 8; ++j) a[j] = 0.001f * (threadIdx.x + j);
    u64 t0 = clock64();
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int j = 0; j < 8; ++j) {
            float r;
            asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(a[j]));
            a[j] = r * -0.5f;
        }
    }
    u64 t1 = clock64();
    float s = 0;
    for (int j = 0; j < 8; ++j) s += a[j];
    out[threadIdx.x] = s;
    if (threadIdx.x % 32 == 0) {
        cyc[w] = t1 - t0;
        wid[w] = warpid();
    }
}

static void partition(const char* name, unsigned mask)
{
    float* out;
    u64* cyc;
    unsigned* wid;
    cudaMalloc(&out, 1024 * 4);
    cudaMalloc(&cyc, 32 * 8);
    cudaMalloc(&wid, 32 * 4);
    cudaMemset(cyc, 0, 32 * 8);
    const int iters = 4096;
    sfu_pair<<<1, 1024>>>(out, mask, iters, cyc, wid); // warm-up
    sfu_pair<<<1, 1024>>>(out, mask, iters, cyc, wid);
    if (ok(cudaDeviceSynchronize(), "partition", name)) {
        u64 hc[32];
        unsigned hw[32];
        cudaMemcpy(hc, cyc, sizeof hc, cudaMemcpyDeviceToHost);
        cudaMemcpy(hw, wid, sizeof hw, cudaMemcpyDeviceToHost);
        std::string s;
        char buf[96];
        for (int w = 0; w < 32; ++w)
            if (mask >> w & 1) {
                snprintf(buf, sizeof buf, "%s{\"warp\": %d, \"warpid\": %u, \"cycles\": %llu}", s.empty() ? "" : ", ",
                         w, hw[w], hc[w]);
                s += buf;
            }
        line("{\"probe\": \"partition\", \"name\": \"%s\", \"mask\": %u, \"mufu\": %d, \"warps\": [%s]}", name, mask,
             iters * 8, s.c_str());
    }
    cudaFree(out);
    cudaFree(cyc);
    cudaFree(wid);
}

// ---------------------------------------------------------------------------
// 3. fetch

// N FFMA in straight-line code (8 independent chains), the whole run R
// times; clk[warp * (R+1) + r] the clock before pass r and after the last.
template <int N>
__global__ void straight(float* out, float c, int R, u64* clk)
{
    float a[8];
#pragma unroll
    for (int j = 0; j < 8; ++j) a[j] = out[j] + threadIdx.x;
    unsigned g = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    bool rec = threadIdx.x % 32 == 0;
#pragma unroll 1
    for (int r = 0; r < R; ++r) {
        u64 t = clock64();
        if (rec) clk[g * (R + 1) + r] = t;
#pragma unroll
        for (int i = 0; i < N / 8; ++i) {
#pragma unroll
            for (int j = 0; j < 8; ++j) a[j] = fmaf(a[j], c, a[(j + 1) & 7]);
        }
    }
    u64 t = clock64();
    if (rec) clk[g * (R + 1) + R] = t;
    float s = 0;
#pragma unroll
    for (int j = 0; j < 8; ++j) s += a[j];
    if (s == 12345.0f) out[0] = s;
}

// K short runs of 8 FFMA, each followed by S FFMA that a test of the
// clock skips (practically never true; a flag ptxas could see to be loop
// invariant, it unswitches the loop): every skip jumps S instructions ahead, past what a sequential
// prefetch has fetched. The pass cycles cold against warm give a jump's
// fetch miss.
template <int K, int S>
__global__ void skips(float* out, float c, int R, u64* clk)
{
    float a[8];
#pragma unroll
    for (int j = 0; j < 8; ++j) a[j] = out[j] + threadIdx.x;
    unsigned g = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    bool rec = threadIdx.x % 32 == 0;
#pragma unroll 1
    for (int r = 0; r < R; ++r) {
        u64 t = clock64();
        if (rec) clk[g * (R + 1) + r] = t;
#pragma unroll
        for (int k = 0; k < K; ++k) {
#pragma unroll
            for (int j = 0; j < 8; ++j) a[j] = fmaf(a[j], c, a[(j + 1) & 7]);
            if ((unsigned)clock() == 0xffffffffu) {
#pragma unroll
                for (int i = 0; i < S / 8; ++i) {
#pragma unroll
                    for (int j = 0; j < 8; ++j) a[j] = fmaf(a[j], a[(j + 3) & 7], c);
                }
            }
        }
    }
    u64 t = clock64();
    if (rec) clk[g * (R + 1) + R] = t;
    float s = 0;
#pragma unroll
    for (int j = 0; j < 8; ++j) s += a[j];
    if (s == 12345.0f) out[0] = s;
}

typedef void (*fetch_kernel)(float*, float, int, u64*);

static void fetch_run(fetch_kernel kern, const char* kind, int N, unsigned grid, unsigned block)
{
    const int R = 4;
    char name[96];
    snprintf(name, sizeof name, "%s%d_g%u_b%u", kind, N, grid, block);
    unsigned warps = grid * ((block + 31) / 32);
    float* out;
    u64* clk;
    cudaMalloc(&out, 64 * 4);
    cudaMemset(out, 0, 64 * 4);
    cudaMalloc(&clk, (size_t)warps * (R + 1) * 8);
    // Twice: the first launch of this code, then a second one at once.
    for (int launch = 0; launch < 2; ++launch) {
        kern<<<grid, block>>>(out, 0.999f, R, clk);
        if (!ok(cudaDeviceSynchronize(), "fetch", name)) break;
        std::vector<u64> h((size_t)warps * (R + 1));
        cudaMemcpy(h.data(), clk, h.size() * 8, cudaMemcpyDeviceToHost);
        // Per pass: the mean and max over warps of its cycles.
        std::string s;
        char buf[128];
        for (int r = 0; r < R; ++r) {
            double sum = 0, mx = 0;
            for (unsigned w = 0; w < warps; ++w) {
                double d = (double)(h[w * (R + 1) + r + 1] - h[w * (R + 1) + r]);
                sum += d;
                mx = d > mx ? d : mx;
            }
            snprintf(buf, sizeof buf, "%s[%.1f, %.0f]", r ? ", " : "", sum / warps, mx);
            s += buf;
        }
        line("{\"probe\": \"fetch\", \"name\": \"%s\", \"kernel\": \"%s\", \"n\": %d, \"grid\": %u, \"block\": %u, "
             "\"launch\": %d, \"passes_mean_max\": [%s]}",
             name, kind, N, grid, block, launch, s.c_str());
    }
    cudaFree(out);
    cudaFree(clk);
}

template <int N>
static void fetch_all(unsigned sms)
{
    fetch_run(straight<N>, "ffma", N, 1, 32);
    fetch_run(straight<N>, "ffma", N, 1, 128);
    fetch_run(straight<N>, "ffma", N, 1, 1024);
    fetch_run(straight<N>, "ffma", N, sms, 128);
    fetch_run(straight<N>, "ffma", N, sms * 4, 256);
}

template <int K, int S>
static void skips_all(unsigned sms)
{
    char kind[32];
    snprintf(kind, sizeof kind, "skip%d_x", S);
    fetch_run(skips<K, S>, kind, K, 1, 32);
    fetch_run(skips<K, S>, kind, K, 1, 128);
    fetch_run(skips<K, S>, kind, K, sms, 128);
}

int main(int argc, char** argv)
{
    unsigned sms = probe_open(argc, argv, "sched.jsonl");
    if (!sms) return probe_close();

    placement("branch_uniform_shape", 1056, 256, 0);
    placement("b256_refill", sms * 8 * 4, 256, 20000);
    placement("b96", sms * 21, 96, 0);
    placement("b96_refill", sms * 21 * 3, 96, 20000);
    placement("b1024", sms * 2, 1024, 0);
    placement("b64", sms * 32, 64, 0);
    placement("b32", sms * 32, 32, 0);
    placement("b160_refill", sms * 12 * 3, 160, 20000);

    partition("w0", 1u << 0);
    partition("w0_w1", 1u << 0 | 1u << 1);
    partition("w0_w2", 1u << 0 | 1u << 2);
    partition("w0_w4", 1u << 0 | 1u << 4);
    partition("w0_w8", 1u << 0 | 1u << 8);
    partition("w0_w1_w2_w3", 0xfu);
    partition("w0_w4_w8_w12", 1u << 0 | 1u << 4 | 1u << 8 | 1u << 12);
    partition("w3_w7", 1u << 3 | 1u << 7);

    fetch_all<512>(sms);
    fetch_all<2048>(sms);
    fetch_all<8192>(sms);
    fetch_all<32768>(sms);
    skips_all<32, 64>(sms);
    skips_all<32, 256>(sms);
    skips_all<32, 1024>(sms);
    return probe_close();
}
