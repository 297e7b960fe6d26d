// bench_tma.cu: clock64 latency of one cp.async.bulk global->shared copy and
// of one 2D cp.async.bulk.tensor box load (issue to mbarrier phase
// completion, seen by the issuing thread), by size, cold then warm (L2).
// Usage: bench_tma OUTDIR.
#include "tmap.h"
#include "dev.h"

extern "C" __global__ void bench_bulk(const uint8_t* src, unsigned bytes, unsigned reps, unsigned long long* cyc)
{
    __shared__ alignas(1024) uint8_t buf[32768];
    __shared__ alignas(8) uint64_t bar;
    if (threadIdx.x != 0)
        return;
    unsigned b = smem(&bar);
    mbarInit(b, 1);
    fenceInit();
    for (unsigned r = 0; r < reps; r++) {
        long long t0 = clock64();
        arriveExpectTx(b, bytes);
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(smem(buf)), "l"(src),
                     "r"(bytes), "r"(b)
                     : "memory");
        waitParity(b, r & 1);
        cyc[r] = clock64() - t0;
    }
}

extern "C" __global__ void bench_tile(const __grid_constant__ CUtensorMap tm, unsigned bytes, unsigned reps, unsigned long long* cyc)
{
    __shared__ alignas(1024) uint8_t buf[32768];
    __shared__ alignas(8) uint64_t bar;
    if (threadIdx.x != 0)
        return;
    unsigned b = smem(&bar);
    mbarInit(b, 1);
    fenceInit();
    for (unsigned r = 0; r < reps; r++) {
        long long t0 = clock64();
        arriveExpectTx(b, bytes);
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(smem(buf)),
                     "l"(&tm), "r"(0), "r"(0), "r"(b)
                     : "memory");
        waitParity(b, r & 1);
        cyc[r] = clock64() - t0;
    }
}

int main(int argc, char** argv)
{
    if (argc < 2)
        return 2;
    openCase(argv[1], "bench_tma");
    check(cudaFree(0), "cudaFree(0)");
    std::vector<uint8_t> g(1 << 22, 1);
    uint8_t* dg = dev(g);
    unsigned long long* dc = nullptr;
    const unsigned reps = 8;
    check(cudaMalloc(&dc, reps * 8), "malloc");
    for (unsigned bytes : {16u, 256u, 1024u, 4096u, 16384u, 32768u}) {
        check(cudaMemset(dg, 0, 1 << 22), "memset"); // evicts nothing in particular; first rep is the coldest
        bench_bulk<<<1, 32>>>(dg + (1 << 21), bytes, reps, dc);
        launched("bench_bulk");
        std::vector<unsigned long long> c = back(dc, reps);
        fprintf(g_meta, "bulk g2s %u bytes: cycles", bytes);
        for (auto x : c)
            fprintf(g_meta, " %llu", x);
        fprintf(g_meta, "\n");
    }
    for (unsigned inner : {16u, 64u, 128u}) // f16 elements; box inner x 32 rows, 128B swizzle where it fits
        for (unsigned rows : {8u, 64u, 128u}) {
            TmapCase c = {"bench", 2, 1, 2, {1024, 1024}, {2048}, {inner, rows}, {1, 1}, inner * 2 <= 128 ? 3u : 0u, 0, {0, 0}};
            if (inner * 2 > 128)
                c.swizzle = 0;
            CUtensorMap m;
            if (!encode(&m, c, dg))
                continue;
            unsigned bb = boxBytes(c);
            if (bb > 32768)
                continue;
            bench_tile<<<1, 32>>>(m, bb, reps, dc);
            launched("bench_tile");
            std::vector<unsigned long long> cy = back(dc, reps);
            fprintf(g_meta, "tile 2d box %ux%u f16 (%u bytes) swizzle %u: cycles", inner, rows, bb, c.swizzle);
            for (auto x : cy)
                fprintf(g_meta, " %llu", x);
            fprintf(g_meta, "\n");
        }
    fprintf(g_meta, "status %s\n", g_fail ? "failed" : "ok");
    fclose(g_meta);
    return g_fail;
}
