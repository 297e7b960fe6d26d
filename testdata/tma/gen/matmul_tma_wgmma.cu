// matmul_tma_wgmma.cu: a Hopper matrix multiply of the kind CUTLASS builds,
// written by hand for ptxvm's corpus (issue 24 item 9): C = A * B^T with A
// (M x K) and B (N x K) row-major f16 and C (M x N) f32. One block of 128
// threads (a warpgroup) per 64x64 tile of C; per 64-wide step of K one
// thread loads a 64x64 tile of A and of B with cp.async.bulk.tensor (128B
// swizzle) onto an mbarrier, then four wgmma.mma_async.m64n64k16 read them
// through descriptors (K-major, 128B swizzle, SBO 1024). Usage: OUTDIR.
#include "tmap.h"
#include "dev.h"

extern "C" __global__ void __launch_bounds__(128) matmul_tma_wgmma(const __grid_constant__ CUtensorMap ta, const __grid_constant__ CUtensorMap tb,
                                                                  float* C, int N, int K)
{
    __shared__ alignas(1024) uint8_t sa[64 * 128];
    __shared__ alignas(1024) uint8_t sb[64 * 128];
    __shared__ alignas(8) uint64_t bar;
    unsigned t = threadIdx.x;
    int m0 = blockIdx.y * 64, n0 = blockIdx.x * 64;
    if (t == 0) {
        mbarInit(smem(&bar), 1);
        fenceInit();
    }
    __syncthreads();
    float d[32];
    for (int j = 0; j < 32; j++)
        d[j] = 0.0f;
    unsigned phase = 0;
    for (int k0 = 0; k0 < K; k0 += 64) {
        if (t == 0) {
            arriveExpectTx(smem(&bar), 2 * 64 * 128);
            asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(smem(sa)),
                         "l"(&ta), "r"(k0), "r"(m0), "r"(smem(&bar))
                         : "memory");
            asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(smem(sb)),
                         "l"(&tb), "r"(k0), "r"(n0), "r"(smem(&bar))
                         : "memory");
        }
        waitParity(smem(&bar), phase);
        phase ^= 1;
        unsigned long long da = ((smem(sa) & 0x3FFFF) >> 4) | (1ull << 16) | (64ull << 32) | (1ull << 62);
        unsigned long long db = ((smem(sb) & 0x3FFFF) >> 4) | (1ull << 16) | (64ull << 32) | (1ull << 62);
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
        for (int kk = 0; kk < 4; kk++) {
            asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %34, 0;\n\t"
                         "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
                         "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                         "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
                         "%32, %33, p, 1, 1, 0, 0;\n\t}"
                         : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]),
                           "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),
                           "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
                           "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                         : "l"(da + 2 * kk), "l"(db + 2 * kk), "r"(1)
                         : "memory");
        }
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
        __syncthreads(); // every thread is done with the tiles before the next load
    }
    unsigned w = t / 32, l = t % 32;
    for (int i = 0; i < 32; i++) {
        int row = m0 + 16 * w + l / 4 + 8 * ((i / 2) % 2);
        int col = n0 + (i / 4) * 8 + (l % 4) * 2 + (i % 2);
        C[row * N + col] = d[i];
    }
}

static uint16_t half(float f) // round to nearest f16 for |f| in the normal range used here
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t s = (x >> 16) & 0x8000, e = (x >> 23) & 0xff, m = x & 0x7fffff;
    if (e < 103)
        return s;
    int he = (int)e - 112;
    if (he <= 0)
        return s; // (not produced by the generator)
    uint32_t r = m + 0xfff + ((m >> 13) & 1);
    if (r & 0x800000)
        r = 0, he++;
    return s | (he << 10) | (r >> 13);
}

int main(int argc, char** argv)
{
    if (argc < 2)
        return 2;
    openCase(argv[1], "matmul_tma_wgmma");
    check(cudaFree(0), "cudaFree(0)");
    const int M = 128, N = 128, K = 256;
    std::vector<uint32_t> ra = lcg(M * K, 41), rb = lcg(N * K, 42);
    std::vector<uint16_t> A(M * K), B(N * K);
    for (int i = 0; i < M * K; i++)
        A[i] = half(((int)(ra[i] >> 20) - 2048) / 1024.0f);
    for (int i = 0; i < N * K; i++)
        B[i] = half(((int)(rb[i] >> 20) - 2048) / 1024.0f);
    uint16_t* dA = dev(A);
    uint16_t* dB = dev(B);
    std::vector<float> z(M * N, -1.0f);
    float* dC = dev(z);
    TmapCase ca = {"A", 2, 6, 2, {(uint64_t)K, (uint64_t)M}, {(uint64_t)K * 2}, {64, 64}, {1, 1}, 3, 0, {0, 0}};
    TmapCase cb = {"B", 2, 6, 2, {(uint64_t)K, (uint64_t)N}, {(uint64_t)K * 2}, {64, 64}, {1, 1}, 3, 0, {0, 0}};
    CUtensorMap ma, mb;
    if (encode(&ma, ca, dA) && encode(&mb, cb, dB)) {
        matmul_tma_wgmma<<<dim3(N / 64, M / 64), 128>>>(ma, mb, dC, N, K);
        launched("matmul_tma_wgmma");
        std::vector<float> C = back(dC, M * N);
        save("A", A.data(), A.size() * 2);
        save("B", B.data(), B.size() * 2);
        save("C", C.data(), C.size() * 4);
        double maxerr = 0;
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                double s = 0;
                for (int k = 0; k < K; k++) {
                    auto f = [](uint16_t h) {
                        int e = (h >> 10) & 31, m = h & 1023;
                        double v = e ? ldexp(1024 + m, e - 25) : ldexp(m, -24);
                        return (h & 0x8000) ? -v : v;
                    };
                    s += f(A[i * K + k]) * f(B[j * K + k]);
                }
                maxerr = fmax(maxerr, fabs(s - C[i * N + j]));
            }
        fprintf(g_meta, "launch matmul_tma_wgmma grid %d,%d block 128 args tmapA tmapB C N=%d K=%d; max |C - exact| %g\n", N / 64, M / 64, N, K, maxerr);
    }
    fprintf(g_meta, "status %s\n", g_fail ? "failed" : "ok");
    fclose(g_meta);
    return g_fail;
}
