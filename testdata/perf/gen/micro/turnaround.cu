// turnaround.cu — how long an SM takes from one block's end to the next
// block's start in the same slot (issue 9: timing.cta_launch_cycles and
// cta_retire_cycles).
//
//   turnaround FILE   one JSON object per line in FILE
//
// Every block records, from thread 0, its SM, the SM clock at its first
// instruction and after its last barrier (its end: the block's warps exit
// right after). Blocks of equal length end in the order they started, so
// on an SM that holds k blocks at once the i-th block to start there took
// the slot of the (i-k)-th: the gap between that block's end and this
// one's start is the turnaround. Shapes: 1 block per SM (dynamic shared
// memory leaves room for no second) of 32, 256 and 1024 threads, and 8
// blocks of 256 per SM; each with no work and with a 2,000-cycle spin.
//
// Each line: {"probe", "name", ...}. A failing launch records {"error"}.

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "probe.h"

// rec[3 * block]: SM, clock at the start, clock at the end.
__global__ void span(unsigned* rec, unsigned spin)
{
    unsigned t0 = (unsigned)clock();
    if (spin) {
        u64 until = clock64() + spin;
        while (clock64() < until) {
        }
    }
    __syncthreads();
    unsigned t1 = (unsigned)clock();
    if (threadIdx.x == 0) {
        rec[3 * blockIdx.x + 0] = smid();
        rec[3 * blockIdx.x + 1] = t0;
        rec[3 * blockIdx.x + 2] = t1;
    }
}

static void turnaround(const char* name, unsigned sms, unsigned perSM, unsigned block, unsigned spin)
{
    const unsigned waves = 16;
    unsigned grid = sms * perSM * waves;
    unsigned* rec;
    cudaMalloc(&rec, (size_t)grid * 12);
    size_t smem = 0;
    if (perSM == 1) {
        cudaDeviceProp p;
        cudaGetDeviceProperties(&p, 0);
        smem = p.sharedMemPerMultiprocessor / 2 + 1024;
        cudaFuncSetAttribute(span, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    }
    span<<<grid, block, smem>>>(rec, spin); // warm-up
    span<<<grid, block, smem>>>(rec, spin);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        line("{\"probe\": \"turnaround\", \"name\": \"%s\", \"error\": \"%s\"}", name, cudaGetErrorString(e));
        ++g_errors;
        cudaGetLastError();
        cudaFree(rec);
        return;
    }
    std::vector<unsigned> h((size_t)grid * 3);
    cudaMemcpy(h.data(), rec, h.size() * 4, cudaMemcpyDeviceToHost);
    cudaFree(rec);
    // Per SM, blocks by start; the i-th took the slot of the (i-perSM)-th.
    std::map<unsigned, std::vector<std::pair<unsigned, unsigned>>> bySM;
    std::vector<unsigned> lens;
    for (unsigned b = 0; b < grid; ++b) {
        bySM[h[3 * b]].push_back({h[3 * b + 1], h[3 * b + 2]});
        lens.push_back(h[3 * b + 2] - h[3 * b + 1]);
    }
    std::vector<int> gaps;
    for (auto& kv : bySM) {
        auto& v = kv.second;
        std::sort(v.begin(), v.end(), [](const std::pair<unsigned, unsigned>& a, const std::pair<unsigned, unsigned>& b) {
            return (int)(a.first - b.first) < 0;
        });
        std::vector<unsigned> ends;
        for (size_t i = 0; i < v.size(); ++i) {
            if (i >= perSM) {
                // The slot that freed first among those resident.
                size_t k = 0;
                for (size_t j = 1; j < ends.size(); ++j)
                    if ((int)(ends[j] - ends[k]) < 0) k = j;
                gaps.push_back((int)(v[i].first - ends[k]));
                ends.erase(ends.begin() + k);
            }
            ends.push_back(v[i].second);
        }
    }
    std::sort(gaps.begin(), gaps.end());
    std::sort(lens.begin(), lens.end());
    auto pct = [](const std::vector<int>& g, double p) { return g.empty() ? 0 : g[(size_t)(p * (g.size() - 1) + 0.5)]; };
    double sum = 0;
    for (int g : gaps) sum += g;
    line("{\"probe\": \"turnaround\", \"name\": \"%s\", \"grid\": %u, \"block\": %u, \"per_sm\": %u, \"spin\": %u, "
         "\"dynamic_shared\": %zu, \"sms_seen\": %zu, \"gaps\": %zu, \"gap_mean\": %.1f, \"gap_p10\": %d, \"gap_p50\": %d, "
         "\"gap_p90\": %d, \"block_cycles_p50\": %u}",
         name, grid, block, perSM, spin, smem, bySM.size(), gaps.size(), gaps.empty() ? 0.0 : sum / gaps.size(),
         pct(gaps, 0.1), pct(gaps, 0.5), pct(gaps, 0.9), lens[lens.size() / 2]);
}

int main(int argc, char** argv)
{
    unsigned sms = probe_open(argc, argv, "turnaround.jsonl");
    if (!sms) return probe_close();
    for (unsigned spin : {0u, 2000u}) {
        char name[64];
        snprintf(name, sizeof name, "one_b32_spin%u", spin);
        turnaround(name, sms, 1, 32, spin);
        snprintf(name, sizeof name, "one_b256_spin%u", spin);
        turnaround(name, sms, 1, 256, spin);
        snprintf(name, sizeof name, "one_b1024_spin%u", spin);
        turnaround(name, sms, 1, 1024, spin);
        snprintf(name, sizeof name, "eight_b256_spin%u", spin);
        turnaround(name, sms, 8, 256, spin);
    }
    return probe_close();
}
