// reduce_atomic.cu — sums of n u32 into one global counter, as a CUDA
// learner writes them (issue 23: warp-aggregated atomics to one address),
// one element a thread, blocks of 256:
//   reduce_warpatomic     a warp shuffle reduction (__shfl_down_sync, five
//                         levels), then one atomicAdd per warp into the
//                         counter
//   reduce_sharedatomic   the block's shared-memory tree (a barrier a
//                         level), then one atomicAdd per block into the
//                         counter
// Both leave the same value in out[0]: the sum of the inputs modulo 2^32,
// whatever the order of the atomics (deterministic outputs).

extern "C" __global__ void reduce_warpatomic(unsigned* out, const unsigned* in, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = i < n ? in[i] : 0u;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(out, v);
}

extern "C" __global__ void reduce_sharedatomic(unsigned* out, const unsigned* in, unsigned n)
{
    __shared__ unsigned s[256];
    unsigned t = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? in[i] : 0u;
    __syncthreads();
    for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0) atomicAdd(out, s[0]);
}
