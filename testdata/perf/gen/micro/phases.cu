// phases.cu — where the blocks of reduce_shared (calib.cu) are in their
// lives, on each SM (issue 9: the shuffle/shared reduction pair).
//
//   phases FILE   one JSON object per line in FILE
//
// phase is reduce_shared with three clock64 reads in every thread and one
// record per block from thread 0: its SM, the SM clock at its first
// instruction (t0), after the barrier that follows its loads (t1: the tree
// starts) and after its last barrier (t2: the tree is done). No clock is
// stored inside the tree, so its levels run as the calibration's do.
// From the records, per shape: the loads' phase t1 - t0, the tree t2 - t1,
// and how many trees of the same SM run at once as a tree sees it (1 +
// the other trees' overlap with it over its length, averaged over the
// trees' cycles). Blocks of the first and last wave are left out. Shapes:
// 1, 2, 4 and 8 blocks of 256 threads per SM for 16 waves, and the
// calibration's launch (65,536 blocks, 8 per SM).
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

// rec[4 * block]: SM, t0, t1, t2.
__global__ void phase(unsigned* out, const unsigned* in, unsigned n, u64* rec)
{
    __shared__ unsigned s[256];
    u64 t0 = clock64();
    unsigned t = threadIdx.x;
    unsigned i = blockIdx.x * 512u + t;
    unsigned v = 0;
    if (i < n) v = in[i];
    if (i + 256u < n) v += in[i + 256u];
    s[t] = v;
    __syncthreads();
    u64 t1 = clock64();
    for (unsigned k = 128; k > 0; k >>= 1) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
    }
    u64 t2 = clock64();
    if (t == 0) {
        out[blockIdx.x] = s[0];
        rec[4 * blockIdx.x + 0] = smid();
        rec[4 * blockIdx.x + 1] = t0;
        rec[4 * blockIdx.x + 2] = t1;
        rec[4 * blockIdx.x + 3] = t2;
    }
}

static void phases(const char* name, unsigned sms, unsigned perSM, unsigned grid)
{
    unsigned n = grid * 512;
    unsigned *in, *out;
    u64* rec;
    cudaMalloc(&in, (size_t)n * 4);
    cudaMalloc(&out, (size_t)grid * 4);
    cudaMalloc(&rec, (size_t)grid * 32);
    std::vector<unsigned> h(n);
    for (unsigned i = 0; i < n; ++i) h[i] = i;
    cudaMemcpy(in, h.data(), (size_t)n * 4, cudaMemcpyHostToDevice);
    unsigned* flush;
    cudaMalloc(&flush, 128u << 20);
    size_t smem = 0;
    if (perSM < 8) {
        cudaDeviceProp p;
        cudaGetDeviceProperties(&p, 0);
        smem = p.sharedMemPerMultiprocessor / (perSM + 1) + 1024;
        cudaFuncSetAttribute(phase, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    }
    // The second of two launches, each after a 128 MB write that flushes
    // the L2.
    for (int rep = 0; rep < 2; ++rep) {
        cudaMemset(flush, rep, 128u << 20);
        phase<<<grid, 256, smem>>>(out, in, n, rec);
    }
    if (!ok(cudaDeviceSynchronize(), "phases", name)) {
        cudaFree(flush);
        cudaFree(in);
        cudaFree(out);
        cudaFree(rec);
        return;
    }
    std::vector<u64> r((size_t)grid * 4);
    cudaMemcpy(r.data(), rec, r.size() * 8, cudaMemcpyDeviceToHost);
    std::map<unsigned, std::vector<unsigned>> bySM;
    for (unsigned b = 0; b < grid; ++b) bySM[(unsigned)r[4 * b]].push_back(b);
    std::vector<double> loads, tree, life, gap;
    double seen = 0, len = 0;
    unsigned first = sms * perSM, last = grid - sms * perSM;
    for (auto& kv : bySM) {
        std::vector<unsigned>& bs = kv.second;
        std::sort(bs.begin(), bs.end(), [&](unsigned a, unsigned b) { return r[4 * a + 1] < r[4 * b + 1]; });
        for (size_t x = 0; x < bs.size(); ++x) {
            unsigned b = bs[x];
            // The slot this block took: the one whose block ended last
            // before it started.
            if (x >= perSM) {
                u64 prevEnd = 0;
                for (size_t y = 0; y < x; ++y)
                    if (r[4 * bs[y] + 3] <= r[4 * b + 1]) prevEnd = std::max(prevEnd, r[4 * bs[y] + 3]);
                if (prevEnd) gap.push_back((double)(r[4 * b + 1] - prevEnd));
            }
            if (b < first || b >= last) continue;
            u64 s0 = r[4 * b + 1], s1 = r[4 * b + 2], s2 = r[4 * b + 3];
            loads.push_back((double)(s1 - s0));
            tree.push_back((double)(s2 - s1));
            life.push_back((double)(s2 - s0));
            len += (double)(s2 - s1);
            seen += (double)(s2 - s1);
            for (unsigned o : bs) {
                if (o == b) continue;
                u64 lo = std::max(s1, r[4 * o + 2]), hi = std::min(s2, r[4 * o + 3]);
                if (hi > lo) seen += (double)(hi - lo);
            }
        }
    }
    line("{\"probe\": \"phases\", \"name\": \"%s\", \"grid\": %u, \"block\": 256, \"blocks_per_sm\": %u, "
         "\"dynamic_shared\": %zu, \"n\": %u, \"loads\": %s, \"tree\": %s, \"life\": %s, \"gap\": %s, "
         "\"trees_at_once\": %.2f}",
         name, grid, perSM, smem, n, stats(loads).c_str(), stats(tree).c_str(), stats(life).c_str(),
         stats(gap).c_str(), len > 0 ? seen / len : 0.0);
    // SM 0's blocks, for a timeline: block, t0, t1, t2 relative to the
    // SM's first start.
    sm_timeline("phases_sm", name, bySM, r);
    cudaFree(flush);
    cudaFree(in);
    cudaFree(out);
    cudaFree(rec);
}

int main(int argc, char** argv)
{
    unsigned sms = probe_open(argc, argv, "phases.jsonl");
    if (!sms) return probe_close();
    for (unsigned b : {1u, 2u, 4u, 8u}) {
        char name[8];
        snprintf(name, sizeof name, "b%u", b);
        phases(name, sms, b, sms * b * 16);
    }
    phases("calib", sms, 8, 65536);
    return probe_close();
}
