// contend.cu — how reduce_shared's trees on one SM slow each other as a
// function of how far apart they start (issue 9: the shuffle/shared
// reduction pair).
//
//   contend FILE   one JSON object per line in FILE
//
// P blocks of 256 threads per SM (dynamic shared memory leaves room for no
// more) agree on a start through global memory: block i of an SM (in the
// order its thread 0 arrives) spins until base + i * off, then runs 16 of
// reduce_shared's trees (calib.cu) over its shared array, one after
// another. Thread 0 records its SM, i, when it started (after the barrier
// that follows the spin, counted from base) and its trees' cycles. Shapes:
// P = 1 (a tree alone), 2 and 4, offsets 0 to 256 cycles. Per shape and
// position i: the start and the cycles over the SMs (10th, 50th and 90th
// percentile and the mean).
//
// Each line: {"probe", "name", ...}. A failing launch records {"error"}.

#include <cuda_runtime.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "probe.h"

// rec[4 * block]: SM, i, start - base, cycles of the trees.
__global__ void contend(unsigned* rec, unsigned* arrived, u64* base, unsigned off, int trees)
{
    extern __shared__ unsigned pad[];
    __shared__ unsigned s[256];
    __shared__ unsigned idx;
    __shared__ u64 at;
    unsigned t = threadIdx.x;
    s[t] = t;
    if (t == 0) {
        unsigned sm = smid();
        unsigned i = atomicAdd(&arrived[sm], 1u);
        if (i == 0) atomicExch(&base[sm], clock64() + 4000);
        u64 b;
        while ((b = atomicAdd(&base[sm], 0ull)) == 0) {
        }
        idx = i;
        at = b + (u64)i * off;
        pad[0] = 0;
    }
    __syncthreads();
    u64 target = at;
    while (clock64() < target) {
    }
    __syncthreads();
    u64 t1 = clock64();
    for (int r = 0; r < trees; ++r) {
        for (unsigned k = 128; k > 0; k >>= 1) {
            if (t < k) s[t] += s[t + k];
            __syncthreads();
        }
    }
    u64 t2 = clock64();
    if (t == 0) {
        rec[4 * blockIdx.x + 0] = smid();
        rec[4 * blockIdx.x + 1] = idx;
        rec[4 * blockIdx.x + 2] = (unsigned)(t1 - (target - (u64)idx * off));
        rec[4 * blockIdx.x + 3] = (unsigned)(t2 - t1);
    }
}

static void contends(unsigned sms, unsigned perSM)
{
    const int trees = 16;
    unsigned grid = sms * perSM;
    unsigned *rec, *arrived;
    u64* base;
    cudaMalloc(&rec, (size_t)grid * 16);
    cudaMalloc(&arrived, 1024 * 4);
    cudaMalloc(&base, 1024 * 8);
    cudaDeviceProp p;
    cudaGetDeviceProperties(&p, 0);
    size_t smem = p.sharedMemPerMultiprocessor / (perSM + 1) + 1024;
    cudaFuncSetAttribute(contend, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    for (unsigned off : {0u, 8u, 16u, 24u, 32u, 48u, 64u, 96u, 128u, 256u}) {
        if (perSM == 1 && off) break;
        char name[32];
        snprintf(name, sizeof name, "p%u_off%u", perSM, off);
        cudaMemset(arrived, 0, 1024 * 4);
        cudaMemset(base, 0, 1024 * 8);
        contend<<<grid, 256, smem>>>(rec, arrived, base, off, trees);
        if (!ok(cudaDeviceSynchronize(), "contend", name)) break;
        std::vector<unsigned> r((size_t)grid * 4);
        cudaMemcpy(r.data(), rec, r.size() * 4, cudaMemcpyDeviceToHost);
        // SMs that did not get P blocks are left out.
        std::map<unsigned, unsigned> blocksOn;
        for (unsigned b = 0; b < grid; ++b) blocksOn[r[4 * b]]++;
        std::string parts;
        for (unsigned i = 0; i < perSM; ++i) {
            std::vector<double> start, cyc;
            for (unsigned b = 0; b < grid; ++b)
                if (r[4 * b + 1] == i && blocksOn[r[4 * b]] == perSM) {
                    start.push_back((double)(int)r[4 * b + 2]);
                    cyc.push_back((double)r[4 * b + 3]);
                }
            char head[64];
            snprintf(head, sizeof head, "%s{\"i\": %u, \"blocks\": %zu, \"start\": ", i ? ", " : "", i, cyc.size());
            parts += head + stats(start) + ", \"cycles\": " + stats(cyc) + "}";
        }
        line("{\"probe\": \"contend\", \"name\": \"%s\", \"grid\": %u, \"block\": 256, \"blocks_per_sm\": %u, "
             "\"dynamic_shared\": %zu, \"offset\": %u, \"trees\": %d, \"by_position\": [%s]}",
             name, grid, perSM, smem, off, trees, parts.c_str());
    }
    cudaFree(rec);
    cudaFree(arrived);
    cudaFree(base);
}

int main(int argc, char** argv)
{
    unsigned sms = probe_open(argc, argv, "contend.jsonl");
    if (!sms) return probe_close();
    for (unsigned p : {1u, 2u, 4u}) contends(sms, p);
    return probe_close();
}
