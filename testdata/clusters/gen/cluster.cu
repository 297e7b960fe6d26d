// cluster.cu: thread-block clusters on sm_90, for ptxvm's issue 24 item 5.
// Each kernel writes its results to global memory; main() runs every launch
// with fixed inputs and writes the inputs and outputs as raw little-endian
// files (what numpy.ndarray.tofile writes) under the folder given as argv[1]:
//   <dir>/<launch>/<buffer>.bin   and   <dir>/launches.txt
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace cg = cooperative_groups;

// The PTX ISA 8.0 forms (.release/.acquire/.relaxed on barrier.cluster,
// cluster-scoped mbarrier and fence.mbarrier_init) need CUDA 12 or later;
// with an older nvcc (a syntax check only) they fall back to ISA 7.8 forms.
// Each asm statement holds a string literal (nvcc 13 wants one there, not a
// macro).
__device__ __forceinline__ void cluster_sync_release_acquire()
{
#if __CUDACC_VER_MAJOR__ >= 12
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
#else
    asm volatile("barrier.cluster.arrive.aligned;\n\tbarrier.cluster.wait.aligned;" ::: "memory");
#endif
}
__device__ __forceinline__ void cluster_arrive_relaxed()
{
#if __CUDACC_VER_MAJOR__ >= 12
    asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
#else
    asm volatile("barrier.cluster.arrive.aligned;" ::: "memory");
#endif
}
__device__ __forceinline__ void fence_mbarrier_init()
{
#if __CUDACC_VER_MAJOR__ >= 12
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#else
    asm volatile("fence.acq_rel.cluster;" ::: "memory");
#endif
}
__device__ __forceinline__ void mbarrier_arrive_remote(unsigned addr)
{
#if __CUDACC_VER_MAJOR__ >= 12
    asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(addr) : "memory");
#else
    asm volatile("mbarrier.arrive.shared.b64 _, [%0];" ::"r"(addr) : "memory");
#endif
}
__device__ __forceinline__ unsigned mbarrier_try_wait_parity0(unsigned addr)
{
    unsigned done;
#if __CUDACC_VER_MAJOR__ >= 12
    asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], 0;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(done)
                 : "r"(addr)
                 : "memory");
#else
    asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared.b64 p, [%1], 0;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(done)
                 : "r"(addr)
                 : "memory");
#endif
    return done;
}

// ---------------------------------------------------------------------------
// 1. The special registers, for every thread. No __cluster_dims__: the launch
// gives the cluster shape (or none).
#define SREG(i, name) asm volatile("mov.u32 %0, " name ";" : "=r"(v[i]))
extern "C" __global__ void cluster_regs(unsigned* out)
{
    unsigned v[21];
    SREG(0, "%%clusterid.x");
    SREG(1, "%%clusterid.y");
    SREG(2, "%%clusterid.z");
    SREG(3, "%%nclusterid.x");
    SREG(4, "%%nclusterid.y");
    SREG(5, "%%nclusterid.z");
    SREG(6, "%%cluster_ctaid.x");
    SREG(7, "%%cluster_ctaid.y");
    SREG(8, "%%cluster_ctaid.z");
    SREG(9, "%%cluster_nctaid.x");
    SREG(10, "%%cluster_nctaid.y");
    SREG(11, "%%cluster_nctaid.z");
    SREG(12, "%%cluster_ctarank");
    SREG(13, "%%cluster_nctarank");
    asm volatile("{\n\t.reg .pred p;\n\tmov.pred p, %%is_explicit_cluster;\n\tselp.u32 %0, 1, 0, p;\n\t}" : "=r"(v[14]));
    cg::cluster_group cl = cg::this_cluster();
    v[15] = cl.block_rank();
    v[16] = cl.num_blocks();
    v[17] = cl.block_index().x;
    v[18] = cl.block_index().y;
    v[19] = cl.dim_blocks().x;
    v[20] = __clusterDimIsSpecified() ? 1u : 0u;
    unsigned bid = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    unsigned g = bid * (blockDim.x * blockDim.y * blockDim.z) + tid;
    for (int i = 0; i < 21; i++)
        out[g * 21 + i] = v[i];
}

// ---------------------------------------------------------------------------
// 2. A cluster reduction through distributed shared memory (cooperative
// groups: map_shared_rank, sync). Each block reduces 256 floats in a fixed
// tree; after cluster.sync every block sums the cluster's partials in rank
// order; rank 0 also writes the cluster's sum.
extern "C" __global__ void __cluster_dims__(4, 1, 1) cluster_reduce(const float* in, float* out_cluster, float* out_block, unsigned n)
{
    __shared__ float part[256];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned t = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + t;
    part[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s)
            part[t] += part[t + s];
        __syncthreads();
    }
    cluster.sync();
    if (t == 0) {
        float sum = 0.0f;
        for (unsigned r = 0; r < cluster.num_blocks(); r++)
            sum += *cluster.map_shared_rank(&part[0], r);
        out_block[blockIdx.x] = sum;
        if (cluster.block_rank() == 0)
            out_cluster[blockIdx.x / cluster.num_blocks()] = sum;
    }
    // Each thread t < 32 of every block reads element t of the next rank's
    // reduced array (the tree left partial sums there).
    if (t < 32) {
        unsigned r = (cluster.block_rank() + 1) % cluster.num_blocks();
        out_block[gridDim.x + blockIdx.x * 32 + t] = cluster.map_shared_rank(part, r)[t];
    }
    cluster.sync(); // no block exits while another reads its shared memory
}

// ---------------------------------------------------------------------------
// 3. A ring exchange in clusters of 8 with mapa.shared::cluster,
// st/ld.shared::cluster and barrier.cluster.arrive/wait written out, also in
// their .relaxed and .aligned forms.
__device__ __forceinline__ unsigned smem_u32(const void* p)
{
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ unsigned mapa_u32(unsigned a, unsigned rank)
{
    unsigned d;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(rank));
    return d;
}
__device__ __forceinline__ unsigned ctarank()
{
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}
__device__ __forceinline__ unsigned nctarank()
{
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(r));
    return r;
}

extern "C" __global__ void __cluster_dims__(8, 1, 1) ring_exchange(const unsigned* in, unsigned* out, unsigned* out2)
{
    __shared__ unsigned inbox[128];
    __shared__ unsigned mine[128];
    unsigned t = threadIdx.x;
    unsigned rank = ctarank(), n = nctarank();
    unsigned g = blockIdx.x * blockDim.x + t;
    unsigned x = in[g];
    mine[t] = x ^ 0x5a5a5a5au;
    // Everyone's mine[] is written before anyone reads it remotely.
    cluster_sync_release_acquire();
    unsigned dst = mapa_u32(smem_u32(&inbox[t]), (rank + 1) % n);
    asm volatile("st.shared::cluster.u32 [%0], %1;" ::"r"(dst), "r"(x * 3u + rank) : "memory");
    unsigned src = mapa_u32(smem_u32(&mine[(t + 1) % 128]), (rank + n - 1) % n);
    unsigned y;
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(y) : "r"(src) : "memory");
    asm volatile("barrier.cluster.arrive;\n\tbarrier.cluster.wait;" ::: "memory");
    out[g] = inbox[t];
    out2[g] = y;
    // A relaxed arrive, work, then the wait: no block exits early.
    cluster_arrive_relaxed();
    out2[gridDim.x * blockDim.x + g] = rank * 1000u + n;
    asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
}

// ---------------------------------------------------------------------------
// 4. Atomics on another block's shared memory: atom.shared::cluster and
// red.shared::cluster written out, and atomicAdd/atomicMax through
// map_shared_rank (generic addresses from mapa.u64). Only final values are
// written (the order of the atomics is the GPU's).
extern "C" __global__ void __cluster_dims__(4, 1, 1) cluster_atomics(const unsigned* in, unsigned* out)
{
    __shared__ unsigned hist[16], hist2[16], hmax[16], hred[16], hor[16];
    __shared__ unsigned long long total;
    cg::cluster_group cluster = cg::this_cluster();
    unsigned t = threadIdx.x;
    if (t < 16)
        hist[t] = hist2[t] = hmax[t] = hred[t] = hor[t] = 0;
    if (t == 0)
        total = 0;
    cluster.sync();
    unsigned x = in[blockIdx.x * blockDim.x + t];
    unsigned key = x & 15;
    unsigned old, old2;
    unsigned a0 = mapa_u32(smem_u32(&hist[key]), 0);
    asm volatile("atom.shared::cluster.add.u32 %0, [%1], 1;" : "=r"(old) : "r"(a0) : "memory");
    unsigned owner = key % cluster.num_blocks();
    atomicAdd(cluster.map_shared_rank(&hist2[key], owner), x >> 4);
    atomicMax(cluster.map_shared_rank(&hmax[key], (owner + 1) % cluster.num_blocks()), x);
    unsigned a1 = mapa_u32(smem_u32(&hred[key]), (cluster.block_rank() + 2) % cluster.num_blocks());
    asm volatile("red.shared::cluster.add.u32 [%0], %1;" ::"r"(a1), "r"(x & 0xff) : "memory");
    unsigned a2 = mapa_u32(smem_u32(&hor[key]), cluster.num_blocks() - 1);
    asm volatile("atom.shared::cluster.or.b32 %0, [%1], %2;" : "=r"(old2) : "r"(a2), "r"(1u << (x >> 27)) : "memory");
    unsigned a3 = mapa_u32(smem_u32(&total), (cluster.block_rank() + 1) % cluster.num_blocks());
    asm volatile("red.shared::cluster.add.u64 [%0], %1;" ::"r"(a3), "l"((unsigned long long)x) : "memory");
    cluster.sync();
    if (t < 16) {
        unsigned b = blockIdx.x * 64;
        out[b + t] = hist[t];
        out[b + 16 + t] = hist2[t];
        out[b + 32 + t] = hmax[t];
        out[b + 48 + t] = hred[t];
        out[gridDim.x * 64 + blockIdx.x * 16 + t] = hor[t];
    }
    if (t == 0) {
        out[gridDim.x * 80 + blockIdx.x * 2] = (unsigned)total;
        out[gridDim.x * 80 + blockIdx.x * 2 + 1] = (unsigned)(total >> 32);
    }
    // the old value is order-dependent; keep it alive without writing it
    if (old == 0xffffffffu || old2 == 0xfffffff0u)
        out[0] = 0;
}

// ---------------------------------------------------------------------------
// 5. mbarrier across the cluster: each block stores into its peer's shared
// memory and arrives (release, cluster scope) on the peer's mbarrier; each
// waits on its own (acquire, cluster scope) and reads what the peer wrote.
extern "C" __global__ void __cluster_dims__(2, 1, 1) mbarrier_cluster(const unsigned* in, unsigned* out)
{
    __shared__ __align__(8) unsigned long long bar;
    __shared__ unsigned data[64];
    unsigned t = threadIdx.x;
    unsigned rank = ctarank();
    unsigned peer = rank ^ 1;
    unsigned barAddr = smem_u32(&bar);
    if (t == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(barAddr), "r"(blockDim.x) : "memory");
        fence_mbarrier_init();
    }
    cluster_sync_release_acquire();
    unsigned x = in[blockIdx.x * blockDim.x + t];
    unsigned dst = mapa_u32(smem_u32(&data[(t * 7) % 64]), peer);
    asm volatile("st.shared::cluster.u32 [%0], %1;" ::"r"(dst), "r"(x + rank) : "memory");
    unsigned rbar = mapa_u32(barAddr, peer);
    mbarrier_arrive_remote(rbar);
    unsigned done = 0;
    for (unsigned it = 0; !done && it < (1u << 22); it++) // bounded: a wrong guess must not hang the run
        done = mbarrier_try_wait_parity0(barAddr);
    out[blockIdx.x * blockDim.x + t] = done ? data[t] : 0xfeedfeedu;
    cluster_sync_release_acquire();
}

// ---------------------------------------------------------------------------
// 6. What mapa returns: the shared::cluster address of a variable in every
// rank, and the generic address mapa.u64 returns less the generic address of
// the variable in the executing block (informative: a VM's shared window
// need not be the GPU's).
extern "C" __global__ void __cluster_dims__(4, 1, 1) mapa_values(unsigned* out32, unsigned long long* out64)
{
    __shared__ unsigned var[4];
    unsigned t = threadIdx.x;
    if (t < 4)
        var[t] = t;
    unsigned n = nctarank();
    unsigned rank = ctarank();
    if (t < n) {
        unsigned a = smem_u32(&var[1]);
        unsigned b = blockIdx.x * 16 + t * 4;
        out32[b + 0] = a;
        out32[b + 1] = mapa_u32(a, t);
        out32[b + 2] = mapa_u32(mapa_u32(a, (t + 1) % n), t); // mapa of a mapped address
        unsigned rk;
        asm volatile("getctarank.shared::cluster.u32 %0, %1;" : "=r"(rk) : "r"(mapa_u32(a, t)));
        out32[b + 3] = rk;
        unsigned long long gp = reinterpret_cast<unsigned long long>(&var[1]);
        unsigned long long m;
        asm volatile("mapa.u64 %0, %1, %2;" : "=l"(m) : "l"(gp), "r"(t));
        out64[blockIdx.x * 8 + t * 2] = m - gp;
        out64[blockIdx.x * 8 + t * 2 + 1] = gp & 0xffffffffull;
    }
    (void)rank;
    asm volatile("barrier.cluster.arrive;\n\tbarrier.cluster.wait;" ::: "memory");
}

// ---------------------------------------------------------------------------
// 7. Latency: one thread chases a ring of indices through its own shared
// memory (ld.shared::cta) and through rank 1's (ld.shared::cluster),
// timing each with clock64.
extern "C" __global__ void __cluster_dims__(2, 1, 1) dsmem_latency(unsigned long long* out, unsigned steps)
{
    __shared__ unsigned ring[1024];
    unsigned t = threadIdx.x;
    for (unsigned i = t; i < 1024; i += blockDim.x)
        ring[i] = ((i + 33) % 1024) * 4;
    cluster_sync_release_acquire();
    if (ctarank() == 0 && t == 0) {
        unsigned base = smem_u32(ring);
        unsigned p = 0;
        long long t0 = clock64();
        for (unsigned i = 0; i < steps; i++) {
            unsigned v;
            asm volatile("ld.shared::cta.u32 %0, [%1];" : "=r"(v) : "r"(base + p) : "memory");
            p = v;
        }
        long long t1 = clock64();
        unsigned rbase = mapa_u32(base, 1);
        unsigned q = 0;
        long long t2 = clock64();
        for (unsigned i = 0; i < steps; i++) {
            unsigned v;
            asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(rbase + q) : "memory");
            q = v;
        }
        long long t3 = clock64();
        unsigned own = mapa_u32(base, 0);
        unsigned s = 0;
        long long t4 = clock64();
        for (unsigned i = 0; i < steps; i++) {
            unsigned v;
            asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(own + s) : "memory");
            s = v;
        }
        long long t5 = clock64();
        out[0] = t1 - t0;
        out[1] = t3 - t2;
        out[2] = t5 - t4;
        out[3] = p + q + s;
    }
    cluster_sync_release_acquire();
}

// ---------------------------------------------------------------------------
// Host side.

static std::string g_dir;
static FILE* g_list;
static int g_fail;

static void check(cudaError_t e, const char* what, const char* launch)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "%s: %s: %s\n", launch, what, cudaGetErrorString(e));
        fprintf(g_list, "%s error %s %s\n", launch, what, cudaGetErrorName(e));
        g_fail++;
    }
}

static void save(const char* launch, const char* name, const void* p, size_t n)
{
    std::string d = g_dir + "/" + launch;
    std::string cmd = "mkdir -p '" + d + "'";
    if (system(cmd.c_str()) != 0)
        fprintf(stderr, "mkdir %s failed\n", d.c_str());
    std::string f = d + "/" + name + ".bin";
    FILE* fp = fopen(f.c_str(), "wb");
    if (!fp) {
        fprintf(stderr, "cannot write %s\n", f.c_str());
        g_fail++;
        return;
    }
    fwrite(p, 1, n, fp);
    fclose(fp);
}

// lcg fills n words deterministically.
static std::vector<unsigned> lcg(size_t n, unsigned seed)
{
    std::vector<unsigned> v(n);
    unsigned s = seed;
    for (size_t i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        v[i] = s;
    }
    return v;
}

template <typename T>
static T* dev(const std::vector<T>& h, const char* launch)
{
    T* d = nullptr;
    check(cudaMalloc(&d, h.size() * sizeof(T)), "cudaMalloc", launch);
    check(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy H2D", launch);
    return d;
}

template <typename T>
static std::vector<T> back(const T* d, size_t n, const char* launch)
{
    std::vector<T> h(n);
    check(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy D2H", launch);
    return h;
}

static void listLaunch(const char* launch, const char* kernel, dim3 g, dim3 b, dim3 c)
{
    fflush(g_list);
    fprintf(g_list, "%s kernel %s grid %u,%u,%u block %u,%u,%u cluster %u,%u,%u\n", launch, kernel, g.x, g.y, g.z, b.x, b.y, b.z, c.x, c.y, c.z);
    fflush(g_list);
}

static void runRegs(const char* launch, dim3 grid, dim3 block, dim3 cluster, bool withCluster)
{
    size_t threads = (size_t)grid.x * grid.y * grid.z * block.x * block.y * block.z;
    std::vector<unsigned> init(threads * 21, 0xdeadbeefu);
    unsigned* d = dev(init, launch);
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = cluster.x;
    attr[0].val.clusterDim.y = cluster.y;
    attr[0].val.clusterDim.z = cluster.z;
    cfg.attrs = attr;
    cfg.numAttrs = withCluster ? 1 : 0;
    check(cudaLaunchKernelEx(&cfg, cluster_regs, d), "launch", launch);
    check(cudaDeviceSynchronize(), "sync", launch);
    std::vector<unsigned> h = back(d, threads * 21, launch);
    save(launch, "out", h.data(), h.size() * 4);
    listLaunch(launch, "cluster_regs", grid, block, withCluster ? cluster : dim3(0, 0, 0));
    cudaFree(d);
}

int main(int argc, char** argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    g_dir = argv[1];
    std::string cmd = "mkdir -p '" + g_dir + "'";
    if (system(cmd.c_str()) != 0)
        return 1;
    g_list = fopen((g_dir + "/launches.txt").c_str(), "w");
    if (!g_list)
        return 1;

    runRegs("regs_2x2x1", dim3(4, 4, 2), dim3(8, 4, 1), dim3(2, 2, 1), true);
    runRegs("regs_3x1x2", dim3(6, 2, 2), dim3(32, 1, 1), dim3(3, 1, 2), true);
    runRegs("regs_none", dim3(3, 2, 1), dim3(64, 1, 1), dim3(1, 1, 1), false);
    runRegs("regs_1x1x1", dim3(3, 2, 1), dim3(64, 1, 1), dim3(1, 1, 1), true);

    { // cluster_reduce: 32 blocks of 256 = 8 clusters of 4
        const char* L = "reduce";
        unsigned n = 32 * 256 - 100;
        std::vector<unsigned> bits = lcg(32 * 256, 11);
        std::vector<float> in(32 * 256);
        for (size_t i = 0; i < in.size(); i++)
            in[i] = (float)((int)(bits[i] >> 8) - (1 << 23)) / (float)(1 << 20);
        float* din = dev(in, L);
        std::vector<float> z1(8, -1.0f), z2(32 + 32 * 32, -1.0f);
        float* dc = dev(z1, L);
        float* db = dev(z2, L);
        cluster_reduce<<<32, 256>>>(din, dc, db, n);
        check(cudaGetLastError(), "launch", L);
        check(cudaDeviceSynchronize(), "sync", L);
        save(L, "in", in.data(), in.size() * 4);
        std::vector<float> hc = back(dc, 8, L), hb = back(db, z2.size(), L);
        save(L, "out_cluster", hc.data(), hc.size() * 4);
        save(L, "out_block", hb.data(), hb.size() * 4);
        listLaunch(L, "cluster_reduce", dim3(32), dim3(256), dim3(4, 1, 1));
        fprintf(g_list, "%s args in out_cluster out_block n=%u\n", L, n);
    }
    { // ring_exchange: 16 blocks of 128 = 2 clusters of 8
        const char* L = "ring";
        std::vector<unsigned> in = lcg(16 * 128, 22);
        unsigned* din = dev(in, L);
        std::vector<unsigned> z(16 * 128, 0xdeadbeefu), z2(2 * 16 * 128, 0xdeadbeefu);
        unsigned* d1 = dev(z, L);
        unsigned* d2 = dev(z2, L);
        ring_exchange<<<16, 128>>>(din, d1, d2);
        check(cudaGetLastError(), "launch", L);
        check(cudaDeviceSynchronize(), "sync", L);
        save(L, "in", in.data(), in.size() * 4);
        std::vector<unsigned> h1 = back(d1, z.size(), L), h2 = back(d2, z2.size(), L);
        save(L, "out", h1.data(), h1.size() * 4);
        save(L, "out2", h2.data(), h2.size() * 4);
        listLaunch(L, "ring_exchange", dim3(16), dim3(128), dim3(8, 1, 1));
    }
    { // cluster_atomics: 8 blocks of 256 = 2 clusters of 4
        const char* L = "atomics";
        std::vector<unsigned> in = lcg(8 * 256, 33);
        unsigned* din = dev(in, L);
        std::vector<unsigned> z(8 * 82, 0xdeadbeefu);
        unsigned* d1 = dev(z, L);
        cluster_atomics<<<8, 256>>>(din, d1);
        check(cudaGetLastError(), "launch", L);
        check(cudaDeviceSynchronize(), "sync", L);
        save(L, "in", in.data(), in.size() * 4);
        std::vector<unsigned> h1 = back(d1, z.size(), L);
        save(L, "out", h1.data(), h1.size() * 4);
        listLaunch(L, "cluster_atomics", dim3(8), dim3(256), dim3(4, 1, 1));
    }
    { // mbarrier_cluster: 6 blocks of 64 = 3 clusters of 2
        const char* L = "mbarrier";
        std::vector<unsigned> in = lcg(6 * 64, 44);
        unsigned* din = dev(in, L);
        std::vector<unsigned> z(6 * 64, 0xdeadbeefu);
        unsigned* d1 = dev(z, L);
        mbarrier_cluster<<<6, 64>>>(din, d1);
        check(cudaGetLastError(), "launch", L);
        check(cudaDeviceSynchronize(), "sync", L);
        save(L, "in", in.data(), in.size() * 4);
        std::vector<unsigned> h1 = back(d1, z.size(), L);
        save(L, "out", h1.data(), h1.size() * 4);
        listLaunch(L, "mbarrier_cluster", dim3(6), dim3(64), dim3(2, 1, 1));
    }
    { // mapa_values: 8 blocks of 32 = 2 clusters of 4
        const char* L = "mapa";
        std::vector<unsigned> z(8 * 16, 0xdeadbeefu);
        std::vector<unsigned long long> z64(8 * 8, 0xdeadbeefdeadbeefull);
        unsigned* d1 = dev(z, L);
        unsigned long long* d2 = dev(z64, L);
        mapa_values<<<8, 32>>>(d1, d2);
        check(cudaGetLastError(), "launch", L);
        check(cudaDeviceSynchronize(), "sync", L);
        std::vector<unsigned> h1 = back(d1, z.size(), L);
        std::vector<unsigned long long> h2 = back(d2, z64.size(), L);
        save(L, "out32", h1.data(), h1.size() * 4);
        save(L, "out64", h2.data(), h2.size() * 8);
        listLaunch(L, "mapa_values", dim3(8), dim3(32), dim3(4, 1, 1));
    }
    { // dsmem_latency: one cluster of 2, 32 threads
        const char* L = "latency";
        for (unsigned steps : {256u, 4096u}) {
            std::vector<unsigned long long> z(4, 0);
            unsigned long long* d1 = dev(z, L);
            dsmem_latency<<<2, 32>>>(d1, steps);
            check(cudaGetLastError(), "launch", L);
            check(cudaDeviceSynchronize(), "sync", L);
            std::vector<unsigned long long> h = back(d1, 4, L);
            fprintf(g_list, "%s steps %u cycles local %llu remote %llu own_via_cluster %llu (per step %.2f %.2f %.2f)\n", L, steps, h[0], h[1], h[2],
                    (double)h[0] / steps, (double)h[1] / steps, (double)h[2] / steps);
            cudaFree(d1);
        }
    }
    fprintf(g_list, "failures %d\n", g_fail);
    fclose(g_list);
    printf("done, %d failures\n", g_fail);
    return g_fail ? 1 : 0;
}
