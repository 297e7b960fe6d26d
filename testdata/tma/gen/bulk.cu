// bulk.cu: cp.async.bulk (non-tensor) on sm_90 for ptxvm issue 24 item 4:
// global->shared with mbarrier complete_tx (and expect_tx on its own),
// shared->global with bulk groups, shared::cta->shared::cluster into a peer
// block, L2 prefetch, elect.sync, fence.proxy.async. Usage: bulk OUTDIR CASE.
#include "rec.h"
#include "dev.h"

// g2s: 256 threads; buffer of 8 KiB pre-filled with 0xA5 by the generic
// proxy. Warp 0 elects one lane, which issues three copies on bar[0] (one
// arrive.expect_tx of their sum) and one on bar[1] (expect_tx, then a plain
// arrive). out: the buffer; st: per thread elect's lane and predicate, then
// the two waits' results.
extern "C" __global__ void bulk_g2s(const uint8_t* src, uint8_t* out, unsigned* st)
{
    __shared__ alignas(128) uint8_t buf[8192];
    __shared__ alignas(8) uint64_t bar[2];
    unsigned t = threadIdx.x;
    for (unsigned i = t; i < 8192; i += blockDim.x)
        buf[i] = 0xA5;
    if (t == 0) {
        mbarInit(smem(&bar[0]), 1);
        mbarInit(smem(&bar[1]), 1);
        fenceInit();
    }
    fenceProxyAsyncShared();
    __syncthreads();
    unsigned lane = 0, pred = 0;
    if (t < 32) {
        asm volatile("{\n\t.reg .pred P;\n\telect.sync %0|P, %2;\n\tselp.u32 %1, 1, 0, P;\n\t}"
                     : "=r"(lane), "=r"(pred)
                     : "r"(0xffffffffu));
        if (pred) {
            unsigned b0 = smem(&bar[0]), b1 = smem(&bar[1]);
            asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(src), "r"(4096u) : "memory");
            arriveExpectTx(b0, 1024 + 48 + 16);
            asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(smem(buf)),
                         "l"(src), "r"(1024u), "r"(b0)
                         : "memory");
            asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(smem(buf + 2048)),
                         "l"(src + 1040), "r"(48u), "r"(b0)
                         : "memory");
            asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(smem(buf + 4080)),
                         "l"(src + 4128), "r"(16u), "r"(b0)
                         : "memory");
            asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(b1), "r"(2032u) : "memory");
            asm volatile("{\n\t.reg .b64 st;\n\tmbarrier.arrive.shared::cta.b64 st, [%0];\n\t}" ::"r"(b1) : "memory");
            asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(smem(buf + 6144)),
                         "l"(src + 2048), "r"(2032u), "r"(b1)
                         : "memory");
        }
    }
    unsigned w0 = waitParity(smem(&bar[0]), 0);
    unsigned w1 = waitParity(smem(&bar[1]), 0);
    __syncthreads();
    for (unsigned i = t; i < 8192; i += blockDim.x)
        out[i] = buf[i];
    st[4 * t + 0] = lane;
    st[4 * t + 1] = pred;
    st[4 * t + 2] = w0;
    st[4 * t + 3] = w1;
}

// s2g: the block fills 4 KiB of shared memory from src (generic stores),
// fences the async proxy, and one thread copies three pieces to dst in two
// bulk groups, then waits for them (wait_group.read, then wait_group).
extern "C" __global__ void bulk_s2g(const uint32_t* src, uint8_t* dst)
{
    __shared__ alignas(128) uint32_t buf[1024];
    unsigned t = threadIdx.x;
    for (unsigned i = t; i < 1024; i += blockDim.x)
        buf[i] = src[i] ^ (t << 24);
    fenceProxyAsyncShared();
    __syncthreads();
    if (t == 0) {
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst + 16), "r"(smem(buf)), "r"(256u)
                     : "memory");
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst + 1024), "r"(smem(buf + 512)),
                     "r"(64u)
                     : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst + 2064), "r"(smem(buf + 256)),
                     "r"(2000u)
                     : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    }
}

// s2s: clusters of 2; each block fills 1 KiB of its shared memory, arms its
// own barrier for 512 incoming bytes, and (after a cluster barrier) copies
// 512 of its bytes into the peer's buffer, completing on the peer's barrier.
extern "C" __global__ void __cluster_dims__(2, 1, 1) bulk_s2s(const uint32_t* src, uint32_t* out, unsigned* st)
{
    __shared__ alignas(128) uint32_t mine[256];
    __shared__ alignas(128) uint32_t got[256];
    __shared__ alignas(8) uint64_t bar;
    unsigned t = threadIdx.x, rank;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    for (unsigned i = t; i < 256; i += blockDim.x) {
        mine[i] = src[blockIdx.x * 256 + i];
        got[i] = 0xdeadbeefu;
    }
    if (t == 0) {
        mbarInit(smem(&bar), 1);
        fenceInit();
        arriveExpectTx(smem(&bar), 512);
    }
    fenceProxyAsyncShared();
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
    if (t == 0) {
        unsigned peer = rank ^ 1, rdst, rbar;
        asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(rdst) : "r"(smem(got + 64)), "r"(peer));
        asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(rbar) : "r"(smem(&bar)), "r"(peer));
        asm volatile("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(rdst),
                     "r"(smem(mine + 16)), "r"(512u), "r"(rbar)
                     : "memory");
    }
    unsigned w = waitParity(smem(&bar), 0);
    for (unsigned i = t; i < 256; i += blockDim.x)
        out[blockIdx.x * 256 + i] = got[i];
    st[blockIdx.x * blockDim.x + t] = w;
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

int main(int argc, char** argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s OUTDIR g2s|s2g|s2s\n", argv[0]);
        return 2;
    }
    std::string c = argv[2];
    openCase(argv[1], argv[2]);
    if (c == "g2s") {
        std::vector<uint32_t> w = lcg(2048, 1);
        std::vector<uint8_t> in((uint8_t*)w.data(), (uint8_t*)w.data() + 8192);
        std::vector<uint8_t> z(8192, 0);
        std::vector<unsigned> z2(4 * 256, 0xffffffffu);
        uint8_t* din = dev(in);
        uint8_t* dout = dev(z);
        unsigned* dst = dev(z2);
        bulk_g2s<<<1, 256>>>(din, dout, dst);
        launched("bulk_g2s");
        save("src", in.data(), in.size());
        save("out", back(dout, 8192).data(), 8192);
        save("st", back(dst, z2.size()).data(), z2.size() * 4);
        fprintf(g_meta, "launch bulk_g2s grid 1 block 256 args src out st\n");
    } else if (c == "s2g") {
        std::vector<uint32_t> in = lcg(1024, 2);
        std::vector<uint8_t> z(4608, 0xEE);
        uint32_t* din = dev(in);
        uint8_t* dout = dev(z);
        bulk_s2g<<<1, 128>>>(din, dout);
        launched("bulk_s2g");
        save("src", in.data(), in.size() * 4);
        save("dst_init", z.data(), z.size());
        save("dst", back(dout, z.size()).data(), z.size());
        fprintf(g_meta, "launch bulk_s2g grid 1 block 128 args src dst(dst_init)\n");
    } else if (c == "s2s") {
        std::vector<uint32_t> in = lcg(4 * 256, 3);
        std::vector<uint32_t> z(4 * 256, 0);
        std::vector<unsigned> z2(4 * 64, 7);
        uint32_t* din = dev(in);
        uint32_t* dout = dev(z);
        unsigned* dst = dev(z2);
        bulk_s2s<<<4, 64>>>(din, dout, dst);
        launched("bulk_s2s");
        save("src", in.data(), in.size() * 4);
        save("out", back(dout, z.size()).data(), z.size() * 4);
        save("st", back(dst, z2.size()).data(), z2.size() * 4);
        fprintf(g_meta, "launch bulk_s2s grid 4 block 64 cluster 2 args src out st\n");
    } else {
        fprintf(stderr, "unknown case %s\n", c.c_str());
        return 2;
    }
    fprintf(g_meta, "status %s\n", g_fail ? "failed" : "ok");
    fclose(g_meta);
    return g_fail;
}
