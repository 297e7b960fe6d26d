// sweep.h — the kernel that flushes the L2 clean for the probes that need
// it (latency.cu's "read" rows, burst.cu): it reads n uint4 and writes
// nothing (but for an impossible XOR), so the L2 ends full of clean lines,
// as ncu's cache control leaves it. Included where each probe defined it,
// so that their PTX is what it was.
__global__ void sweep(unsigned* out, const uint4* in, size_t n)
{
    uint4 acc = make_uint4(0, 0, 0, 0);
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint4 v = in[i];
        acc.x ^= v.x;
        acc.y ^= v.y;
        acc.z ^= v.z;
        acc.w ^= v.w;
    }
    if ((acc.x ^ acc.y ^ acc.z ^ acc.w) == 0xdeadbeefu) out[0] = 1;
}
