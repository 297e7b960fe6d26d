// cta.cu — CTA-level cooperation through shared memory and barriers: tree
// reduction, Blelloch scan, bitonic sort, 1D stencil with halo, named
// barriers (bar.sync/bar.arrive with thread counts) and barrier reductions
// (__syncthreads_count/_and/_or -> bar.red).

// Sum of 2*blockDim.x elements per block; pure shared memory, a barrier at
// every level. blockDim.x = 256.
__global__ void reduce_sum_f32(float* partial, const float* in, unsigned n)
{
    __shared__ float s[256];
    unsigned t = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x * 2 + t;
    float v = 0.0f;
    if (i < n) v = in[i];
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    s[t] = v;
    __syncthreads();
    for (unsigned st = blockDim.x / 2; st > 0; st >>= 1) {
        if (t < st) s[t] += s[t + st];
        __syncthreads();
    }
    if (t == 0) partial[blockIdx.x] = s[0];
}

// Work-efficient exclusive scan (Blelloch) of 512 u32 per block of 256
// threads; block_sums gets each block's total.
__global__ void scan_blelloch(unsigned* out, unsigned* block_sums, const unsigned* in)
{
    __shared__ unsigned temp[512];
    unsigned t = threadIdx.x;
    unsigned base = blockIdx.x * 512;
    temp[2 * t] = in[base + 2 * t];
    temp[2 * t + 1] = in[base + 2 * t + 1];
    unsigned offset = 1;
    for (unsigned d = 256; d > 0; d >>= 1) {        // up-sweep
        __syncthreads();
        if (t < d) {
            unsigned ai = offset * (2 * t + 1) - 1;
            unsigned bi = offset * (2 * t + 2) - 1;
            temp[bi] += temp[ai];
        }
        offset <<= 1;
    }
    if (t == 0) {
        block_sums[blockIdx.x] = temp[511];
        temp[511] = 0;
    }
    for (unsigned d = 1; d < 512; d <<= 1) {        // down-sweep
        offset >>= 1;
        __syncthreads();
        if (t < d) {
            unsigned ai = offset * (2 * t + 1) - 1;
            unsigned bi = offset * (2 * t + 2) - 1;
            unsigned x = temp[ai];
            temp[ai] = temp[bi];
            temp[bi] += x;
        }
    }
    __syncthreads();
    out[base + 2 * t] = temp[2 * t];
    out[base + 2 * t + 1] = temp[2 * t + 1];
}

// Bitonic sort of 1024 u32 keys per block (512 threads), in place.
__global__ void bitonic_sort(unsigned* data)
{
    __shared__ unsigned s[1024];
    unsigned t = threadIdx.x;
    unsigned base = blockIdx.x * 1024;
    s[t] = data[base + t];
    s[t + 512] = data[base + t + 512];
    __syncthreads();
    for (unsigned k = 2; k <= 1024; k <<= 1) {
        for (unsigned j = k >> 1; j > 0; j >>= 1) {
            for (unsigned idx = t; idx < 1024; idx += 512) {
                unsigned ixj = idx ^ j;
                if (ixj > idx) {
                    bool up = (idx & k) == 0;
                    unsigned a = s[idx], b = s[ixj];
                    if ((a > b) == up) { s[idx] = b; s[ixj] = a; }
                }
            }
            __syncthreads();
        }
    }
    data[base + t] = s[t];
    data[base + t + 512] = s[t + 512];
}

// 7-point 1D stencil with a halo of 3 on each side; blockDim.x = 256, n need
// not be a multiple of it.
#define RADIUS 3
__global__ void stencil_1d(float* out, const float* in, unsigned n)
{
    __shared__ float s[256 + 2 * RADIUS];
    const int N = (int)n;
    const int g = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    const int l = (int)threadIdx.x + RADIUS;
    s[l] = g < N ? in[g] : 0.0f;
    if ((int)threadIdx.x < RADIUS) {
        const int left = g - RADIUS;
        s[l - RADIUS] = left >= 0 ? in[left] : 0.0f;
        const int right = g + (int)blockDim.x;
        s[l + (int)blockDim.x] = right < N ? in[right] : 0.0f;
    }
    __syncthreads();
    if (g < N) {
        float r = 0.0f;
        for (int o = -RADIUS; o <= RADIUS; ++o)
            r += s[l + o] * (float)(o + 4) * 0.125f;
        out[g] = r;
    }
}

// Named barriers with thread counts: warp 0 produces and bar.arrive(1, 64)s,
// warp 1 bar.sync(1, 64)s and consumes; warps 2 and 3 meet on barrier 2;
// then all meet on barrier 0. blockDim.x = 128, out holds 192 per block.
__global__ void named_barrier(int* out, const int* in)
{
    __shared__ int buf[64];
    __shared__ int buf2[32];
    const unsigned t = threadIdx.x, warp = t / 32, lane = t % 32;
    const unsigned base = blockIdx.x * 128, obase = blockIdx.x * 192;
    if (warp == 0) {
        buf[lane] = in[base + lane] * 2;
        buf[lane + 32] = in[base + lane + 32] + 1;
        asm volatile("bar.arrive 1, 64;" ::: "memory");
    } else if (warp == 1) {
        asm volatile("bar.sync 1, 64;" ::: "memory");
        out[obase + lane] = buf[lane] + buf[63 - lane];
    } else {
        if (warp == 2) buf2[lane] = in[base + 64 + lane] ^ 0x5a;
        asm volatile("bar.sync 2, 64;" ::: "memory");
        if (warp == 3) out[obase + 32 + lane] = buf2[31 - lane] + in[base + 96 + lane];
    }
    __syncthreads();
    out[obase + 64 + t] = buf[t & 63] - buf2[t & 31];
}

// Barrier reductions; also __syncwarp and memory fences. out K=3 per block,
// all[i] is what thread i saw (identical within a block).
__global__ void bar_red(int* out, int* all, const int* in)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    const int v = in[i];
    const int c = __syncthreads_count(v > 0);
    const int a = __syncthreads_and(v > -50);
    const int o = __syncthreads_or(v == 7);
    __syncwarp();
    __threadfence_block();
    __threadfence();
    if (threadIdx.x == 0) {
        out[3 * blockIdx.x] = c;
        out[3 * blockIdx.x + 1] = a;
        out[3 * blockIdx.x + 2] = o;
    }
    all[i] = c * 4 + (a ? 2 : 0) + (o ? 1 : 0);
}
