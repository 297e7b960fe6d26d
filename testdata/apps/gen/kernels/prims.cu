// Parallel primitives: histogram, scans, sorts (bitonic, radix), an f64
// reduction. Integer atomics only; deterministic.

// 256-bin histogram: per-block shared histogram (shared atomics), then one
// global atomicAdd per bin and block (integer: order-independent).
__global__ void histogram256(unsigned* __restrict__ bins, const unsigned* __restrict__ data, unsigned n)
{
    __shared__ unsigned h[256];
    for (unsigned i = threadIdx.x; i < 256; i += blockDim.x) h[i] = 0;
    __syncthreads();
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&h[data[i] & 255u], 1u);
    __syncthreads();
    for (unsigned i = threadIdx.x; i < 256; i += blockDim.x)
        if (h[i]) atomicAdd(&bins[i], h[i]);
}

__device__ __forceinline__ unsigned warp_incl_scan(unsigned v, unsigned lane)
{
    for (int o = 1; o < 32; o <<= 1) {
        unsigned t = __shfl_up_sync(0xffffffffu, v, o);
        if (lane >= (unsigned)o) v += t;
    }
    return v;
}

// Block-wide inclusive scan of u32 (blockDim.x = 1024 elements per block):
// warp shuffle scans, the warp totals scanned by warp 0, then added.
__global__ void scan_block(unsigned* __restrict__ out, unsigned* __restrict__ block_sums,
                           const unsigned* __restrict__ in, unsigned n)
{
    __shared__ unsigned wsum[32];
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31, wid = threadIdx.x / 32;
    unsigned v = i < n ? in[i] : 0;
    v = warp_incl_scan(v, lane);
    if (lane == 31) wsum[wid] = v;
    __syncthreads();
    if (wid == 0) {
        unsigned nw = blockDim.x / 32;
        unsigned s = lane < nw ? wsum[lane] : 0;
        s = warp_incl_scan(s, lane);
        if (lane < nw) wsum[lane] = s;
    }
    __syncthreads();
    if (wid > 0) v += wsum[wid - 1];
    if (i < n) out[i] = v;
    if (threadIdx.x == blockDim.x - 1) block_sums[blockIdx.x] = v;
}

// Second pass of a multi-block scan: add the exclusive prefix of the block
// sums (computed serially by each block's thread 0 into shared memory).
__global__ void scan_add(unsigned* __restrict__ data, const unsigned* __restrict__ block_sums, unsigned n)
{
    __shared__ unsigned off;
    if (threadIdx.x == 0) {
        unsigned s = 0;
        for (unsigned b = 0; b < blockIdx.x; b++) s += block_sums[b];
        off = s;
    }
    __syncthreads();
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] += off;
}

// Inclusive scan of f32 within each block of 256 (Hillis-Steele in shared
// memory, double-buffered): the summation order is fixed by the algorithm.
__global__ void scan_f32_block(float* __restrict__ out, const float* __restrict__ in, unsigned n)
{
    __shared__ float buf[2][256];
    unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    int p = 0;
    buf[0][t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned o = 1; o < blockDim.x; o <<= 1) {
        buf[1 - p][t] = t >= o ? buf[p][t] + buf[p][t - o] : buf[p][t];
        __syncthreads();
        p = 1 - p;
    }
    if (i < n) out[i] = buf[p][t];
}

// Radix sort of 2048 keys per block (256 threads x 8 keys), LSD with 1-bit
// stable splits over all 32 bits: per bit a block-wide exclusive scan of
// the zero counts, then a scatter through shared memory.
__global__ void radix_sort_block(unsigned* __restrict__ keys)
{
    __shared__ unsigned k_s[2048];
    __shared__ unsigned wsum[8];
    unsigned t = threadIdx.x, lane = t & 31, wid = t / 32;
    unsigned* base = keys + blockIdx.x * 2048;
    for (unsigned j = 0; j < 8; j++) k_s[t * 8 + j] = base[t * 8 + j];
    __syncthreads();
    for (unsigned bit = 0; bit < 32; bit++) {
        unsigned mine[8], zeros = 0;
        for (unsigned j = 0; j < 8; j++) {
            mine[j] = k_s[t * 8 + j];
            zeros += ((mine[j] >> bit) & 1u) ^ 1u;
        }
        unsigned incl = warp_incl_scan(zeros, lane);
        if (lane == 31) wsum[wid] = incl;
        __syncthreads();
        unsigned before = 0, total = 0;
        for (unsigned w = 0; w < 8; w++) {
            if (w < wid) before += wsum[w];
            total += wsum[w];
        }
        unsigned zpos = before + incl - zeros;     // zeros before my first key
        unsigned opos = total + t * 8 - zpos;      // ones before my first key, after all zeros
        __syncthreads();
        for (unsigned j = 0; j < 8; j++) {
            if ((mine[j] >> bit) & 1u)
                k_s[opos++] = mine[j];
            else
                k_s[zpos++] = mine[j];
        }
        __syncthreads();
    }
    for (unsigned j = 0; j < 8; j++) base[t * 8 + j] = k_s[t * 8 + j];
}

// The digit histogram of one radix pass (4-bit digits at `shift`): 16
// counters per block (shared atomics), written block-major.
__global__ void radix_histogram(unsigned* __restrict__ hist, const unsigned* __restrict__ keys,
                                unsigned n, unsigned shift)
{
    __shared__ unsigned h[16];
    if (threadIdx.x < 16) h[threadIdx.x] = 0;
    __syncthreads();
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&h[(keys[i] >> shift) & 15u], 1u);
    __syncthreads();
    if (threadIdx.x < 16) hist[blockIdx.x * 16 + threadIdx.x] = h[threadIdx.x];
}

// One global bitonic merge step (k, j) over n keys (a power of two).
__global__ void bitonic_step(unsigned* __restrict__ keys, unsigned j, unsigned k)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned l = i ^ j;
    if (l > i) {
        unsigned a = keys[i], b = keys[l];
        bool up = (i & k) == 0;
        if ((a > b) == up) {
            keys[i] = b;
            keys[l] = a;
        }
    }
}

// Bitonic sort of 2048 floats in one block's shared memory (1024 threads),
// ascending; NaN-free inputs.
__global__ void bitonic_block_f32(float* __restrict__ v)
{
    __shared__ float s[2048];
    unsigned t = threadIdx.x;
    float* base = v + blockIdx.x * 2048;
    s[t] = base[t];
    s[t + 1024] = base[t + 1024];
    __syncthreads();
    for (unsigned k = 2; k <= 2048; k <<= 1)
        for (unsigned j = k >> 1; j > 0; j >>= 1) {
            unsigned i = 2 * t - (t & (j - 1));
            unsigned l = i + j;
            bool up = (i & k) == 0;
            float a = s[i], b = s[l];
            if ((a > b) == up) {
                s[i] = b;
                s[l] = a;
            }
            __syncthreads();
        }
    base[t] = s[t];
    base[t + 1024] = s[t + 1024];
}

// f64 sum: grid-stride partial sums, shuffle-down within warps, warp
// results through shared memory; one value per block.
__global__ void reduce_f64(double* __restrict__ partial, const double* __restrict__ in, unsigned n)
{
    __shared__ double ws[32];
    double s = 0.0;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) s += in[i];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    unsigned lane = threadIdx.x & 31, wid = threadIdx.x / 32;
    if (lane == 0) ws[wid] = s;
    __syncthreads();
    if (wid == 0) {
        s = lane < blockDim.x / 32 ? ws[lane] : 0.0;
        for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
        if (lane == 0) partial[blockIdx.x] = s;
    }
}
