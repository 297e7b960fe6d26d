// sm90.cu — instructions that need sm_89/sm_90 (inline PTX): the cluster
// special registers of a launch without clusters, fp8 (e4m3/e5m2) and tf32
// conversions. (elect.sync is in elect.cu, so that a JIT failure there
// cannot take these down.)

// Cluster special registers when the kernel is launched without a cluster
// (an implicit 1x1x1 cluster). out K=4 per thread.
__global__ void cluster_sregs(unsigned* out)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned rank, nrank, cid, ncid;
    asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(nrank));
    asm("mov.u32 %0, %%clusterid.x;" : "=r"(cid));
    asm("mov.u32 %0, %%nclusterid.x;" : "=r"(ncid));
    unsigned* o = out + i * 4;
    o[0] = rank;
    o[1] = nrank;
    o[2] = cid;
    o[3] = ncid;
}

// fp8 pack/unpack (sm_89+) and tf32 rounding (sm_80+). out K=6.
__global__ void cvt_fp8_tf32_asm(unsigned* out, const float* a, const float* b, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float x = a[i], y = b[i];
    unsigned short e4, e5, e4r;
    unsigned h4, h5, t;
    asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(e4) : "f"(x), "f"(y));
    asm("cvt.rn.satfinite.e5m2x2.f32 %0, %1, %2;" : "=h"(e5) : "f"(x), "f"(y));
    asm("cvt.rn.satfinite.relu.e4m3x2.f32 %0, %1, %2;" : "=h"(e4r) : "f"(x), "f"(y));
    asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(h4) : "h"(e4));
    asm("cvt.rn.f16x2.e5m2x2 %0, %1;" : "=r"(h5) : "h"(e5));
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(t) : "f"(x));
    unsigned* o = out + i * 6;
    o[0] = e4;
    o[1] = e5;
    o[2] = e4r;
    o[3] = h4;
    o[4] = h5;
    o[5] = t;
}
