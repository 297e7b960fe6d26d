// burst.cu — where the blocks of a one-wave transpose spend their lives
// on the H100 (issue 9: the naive/padded transpose pair at 1024, whose
// padded launch is one wave whose blocks all read at once).
//
//   burst FILE   one JSON object per line in FILE
//
// tpad is transpose_padded (kernels/cuda/transpose.cu) with three clock64
// reads and one record per block from thread (0, 0): its SM, the SM clock
// at its first instruction (t0), after the barrier that follows its loads
// and shared stores (t1) and after its global stores have issued (t2).
// Before each launch the L2 is flushed by a 128 MB memset and a 128 MB
// read, which leaves it clean, as ncu's cache control does. Shapes: 1024
// (one wave of 1,024 blocks) and 2048 (four). Per shape: per block, t0 -
// the SM's first t0 (its start), t1 - t0 (the loads), t2 - t1 (the
// stores), t2 - t0; per SM, its span (last t2 - first t0); SM 0's blocks.
//
// Each line: {"probe", "name", ...}. A failing launch records {"error"}.

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "probe.h"

#define TILE_DIM 32
#define BLOCK_ROWS 8

// rec[4 * block]: SM, t0, t1, t2.
__global__ void tpad(float* out, const float* in, unsigned width, unsigned height, u64* rec)
{
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];
    u64 t0 = clock64();
    unsigned x = blockIdx.x * TILE_DIM + threadIdx.x;
    unsigned y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (unsigned j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < width && y + j < height)
            tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
    __syncthreads();
    u64 t1 = clock64();
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (unsigned j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < height && y + j < width)
            out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
    u64 t2 = clock64();
    if (threadIdx.x == 0 && threadIdx.y == 0) {
        unsigned b = blockIdx.y * gridDim.x + blockIdx.x;
        rec[4 * b + 0] = smid();
        rec[4 * b + 1] = t0;
        rec[4 * b + 2] = t1;
        rec[4 * b + 3] = t2;
    }
}

#include "sweep.h"

static void burst(const char* name, unsigned sms, unsigned n)
{
    unsigned grid = (n / TILE_DIM) * (n / TILE_DIM);
    float *in, *out;
    u64* rec;
    unsigned *flush, *clean, *sink;
    cudaMalloc(&in, (size_t)n * n * 4);
    cudaMalloc(&out, (size_t)n * n * 4);
    cudaMalloc(&rec, (size_t)grid * 32);
    cudaMalloc(&flush, 128u << 20);
    cudaMalloc(&clean, 128u << 20);
    cudaMalloc(&sink, 64);
    std::vector<float> h((size_t)n * n);
    for (size_t i = 0; i < h.size(); ++i) h[i] = (float)i;
    cudaMemcpy(in, h.data(), h.size() * 4, cudaMemcpyHostToDevice);
    cudaMemset(clean, 0, 128u << 20);
    float ms = 0;
    // The second of two launches.
    for (int rep = 0; rep < 2; ++rep) {
        cudaMemset(flush, rep, 128u << 20);
        sweep<<<sms * 8, 256>>>(sink, (const uint4*)clean, (128u << 20) / 16);
        cudaDeviceSynchronize();
        cudaEvent_t e0, e1;
        cudaEventCreate(&e0);
        cudaEventCreate(&e1);
        cudaEventRecord(e0);
        tpad<<<dim3(n / TILE_DIM, n / TILE_DIM), dim3(TILE_DIM, BLOCK_ROWS)>>>(out, in, n, n, rec);
        cudaEventRecord(e1);
        if (!ok(cudaDeviceSynchronize(), "burst", name)) return;
        cudaEventElapsedTime(&ms, e0, e1);
    }
    std::vector<u64> r((size_t)grid * 4);
    cudaMemcpy(r.data(), rec, r.size() * 8, cudaMemcpyDeviceToHost);
    std::map<unsigned, std::vector<unsigned>> bySM;
    for (unsigned b = 0; b < grid; ++b) bySM[(unsigned)r[4 * b]].push_back(b);
    std::vector<double> start, loads, stores, life, span;
    for (auto& kv : bySM) {
        std::vector<unsigned>& bs = kv.second;
        std::sort(bs.begin(), bs.end(), [&](unsigned a, unsigned b) { return r[4 * a + 1] < r[4 * b + 1]; });
        u64 first = r[4 * bs[0] + 1], end = 0;
        for (unsigned b : bs) {
            start.push_back((double)(r[4 * b + 1] - first));
            loads.push_back((double)(r[4 * b + 2] - r[4 * b + 1]));
            stores.push_back((double)(r[4 * b + 3] - r[4 * b + 2]));
            life.push_back((double)(r[4 * b + 3] - r[4 * b + 1]));
            end = std::max(end, r[4 * b + 3]);
        }
        span.push_back((double)(end - first));
    }
    line("{\"probe\": \"burst\", \"name\": \"%s\", \"n\": %u, \"grid\": %u, \"sms_used\": %zu, \"ms\": %.4f, "
         "\"start\": %s, \"loads\": %s, \"stores\": %s, \"life\": %s, \"span\": %s}",
         name, n, grid, bySM.size(), ms, stats(start).c_str(), stats(loads).c_str(), stats(stores).c_str(),
         stats(life).c_str(), stats(span).c_str());
    sm_timeline("burst_sm", name, bySM, r);
    cudaFree(in);
    cudaFree(out);
    cudaFree(rec);
    cudaFree(flush);
    cudaFree(clean);
    cudaFree(sink);
}

int main(int argc, char** argv)
{
    unsigned sms = probe_open(argc, argv, "burst.jsonl");
    if (!sms) return probe_close();
    burst("t1024", sms, 1024);
    burst("t2048", sms, 2048);
    return probe_close();
}
