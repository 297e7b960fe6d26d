// atomics.cu — atomic operations. Only order-independent results reach the
// outputs: final memory states of commutative operations on contended
// addresses, or the returned old values of uncontended (per-thread) slots.
// Float sums use values whose every partial sum is exact.

// Histogram of bytes with global atomics (red.global.add: result unused).
__global__ void hist_global_atomic(unsigned* bins, const unsigned char* data, unsigned n)
{
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&bins[data[i]], 1u);
}

// Histogram with per-block shared-memory atomics, merged with global atomics.
// blockDim.x = 256.
__global__ void hist_shared_atomic(unsigned* bins, const unsigned char* data, unsigned n)
{
    __shared__ unsigned s[256];
    s[threadIdx.x] = 0;
    __syncthreads();
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&s[data[i]], 1u);
    __syncthreads();
    if (s[threadIdx.x] != 0)
        atomicAdd(&bins[threadIdx.x], s[threadIdx.x]);
}

// Every integer atomic on a few contended global words. Initial values come
// from the inputs; the final states do not depend on the order.
__global__ void atomic_contended(int* si, unsigned* ui, unsigned long long* ul, long long* sl,
                                 const int* in, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int v = in[i];
    atomicAdd(&si[0], v);
    atomicSub(&si[1], v);
    atomicMin(&si[2], v);
    atomicMax(&si[3], v);
    atomicAnd(&si[4], v | 0x10);
    atomicOr(&si[5], v & 0x0F0F);
    atomicXor(&si[6], v);
    const unsigned u = (unsigned)v;
    atomicAdd(&ui[0], u);
    atomicSub(&ui[1], u);
    atomicMin(&ui[2], u);
    atomicMax(&ui[3], u);
    atomicInc(&ui[4], 1000u);      // wraps to 0 after 1000
    atomicDec(&ui[5], 77u);        // wraps to 77 below 0
    atomicAnd(&ui[6], ~(1u << (u & 31)));
    atomicOr(&ui[7], 1u << (u % 29));
    atomicXor(&ui[8], u * 2654435761u);
    // CAS loop: multiply by an odd number mod 2^32 (commutative).
    unsigned old = ui[9], assumed;
    do {
        assumed = old;
        old = atomicCAS(&ui[9], assumed, assumed * (2u * u + 1u));
    } while (old != assumed);
    const unsigned long long w = (unsigned long long)u * 0x10001ull;
    atomicAdd(&ul[0], w);
    atomicMin(&ul[1], w);
    atomicMax(&ul[2], w);
    atomicAnd(&ul[3], ~(1ull << (u & 63)));
    atomicOr(&ul[4], 1ull << (u % 61));
    atomicXor(&ul[5], w << 7);
    // 64-bit CAS loop: add mod 2^64.
    unsigned long long o64 = ul[6], a64;
    do {
        a64 = o64;
        o64 = atomicCAS(&ul[6], a64, a64 + w);
    } while (o64 != a64);
    const long long sv = (long long)v * 3;
    atomicMin(&sl[0], sv);
    atomicMax(&sl[1], sv);
}

// Returned old values, each thread on its own slots (no contention), for
// every atomic and type. slots: 8 u32 per thread, slots64: 6 u64, fs/ds: 2.
// rets K=12, rets64 K=6, fr/dr K=2.
__global__ void atomic_ret_distinct(unsigned* slots, unsigned* rets,
                                    unsigned long long* slots64, unsigned long long* rets64,
                                    float* fs, float* fr, double* ds, double* dr,
                                    const unsigned* in, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned v = in[i];
    unsigned* s = slots + 8 * i;
    unsigned* r = rets + 12 * i;
    r[0] = atomicAdd(&s[0], v);
    r[1] = atomicSub(&s[0], 3u);
    r[2] = atomicExch(&s[1], v);
    r[3] = atomicMin(&s[2], v);
    r[4] = atomicMax(&s[3], v);
    r[5] = atomicInc(&s[4], v & 15u);
    r[6] = atomicDec(&s[5], v & 15u);
    r[7] = atomicCAS(&s[6], v, ~v);        // succeeds where s[6] == v
    r[8] = atomicCAS(&s[7], 0u, v);
    r[9] = atomicAnd(&s[1], 0xF0F0F0F0u);
    r[10] = atomicOr(&s[2], 1u);
    r[11] = (unsigned)atomicMin((int*)&s[3], (int)v);
    unsigned long long* s64 = slots64 + 6 * i;
    unsigned long long* r64 = rets64 + 6 * i;
    const unsigned long long w = ((unsigned long long)v << 32) | (v ^ 0x5555u);
    r64[0] = atomicAdd(&s64[0], w);
    r64[1] = atomicExch(&s64[1], w);
    r64[2] = atomicCAS(&s64[2], w, ~w);
    r64[3] = atomicMin(&s64[3], w);
    r64[4] = (unsigned long long)atomicMax((long long*)&s64[4], (long long)w);
    r64[5] = atomicXor(&s64[5], w);
    const float f = (float)(v & 0xFFFFu) * 0.5f;
    fr[2 * i] = atomicAdd(&fs[2 * i], f);
    fr[2 * i + 1] = atomicExch(&fs[2 * i + 1], f);
    dr[2 * i] = atomicAdd(&ds[2 * i], (double)v * 0.25);
    dr[2 * i + 1] = atomicAdd(&ds[2 * i + 1], -1.0e-3);
}

// Contended float/double atomicAdd with values k/8 (f32) and k/1024 (f64),
// small enough that every partial sum is exact: the result is order-
// independent. Also the _block and _system scoped forms. fsum[0..3],
// dsum[0..1]; in is in [-128, 128].
__global__ void atomic_float_exact(float* fsum, double* dsum, const int* in, unsigned n)
{
    __shared__ float sblock;
    if (threadIdx.x == 0) sblock = 0.0f;
    __syncthreads();
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    const int k = i < n ? in[i] : 0;               // in [-128, 128]
    const float f = (float)k * 0.125f;
    atomicAdd(&fsum[0], f);
    atomicAdd(&fsum[1], -f * 2.0f);
    atomicAdd_block(&sblock, f);
    atomicAdd(&dsum[0], (double)k / 1024.0);
    atomicAdd_system(&dsum[1], (double)k * 3.0);
    __syncthreads();
    if (threadIdx.x == 0) {
        atomicAdd(&fsum[2], sblock);
        atomicMax((int*)&fsum[3], __float_as_int(sblock) & 0x7fffffff);   // int max of |bits|
    }
}

// Every integer atomic on shared memory, final states written by thread 0.
// out K=10 per block; blockDim.x = 256.
__global__ void atomic_shared_ops(unsigned* out, const unsigned* in)
{
    __shared__ unsigned s[10];
    const unsigned t = threadIdx.x;
    if (t < 10) s[t] = (t == 2) ? 0xFFFFFFFFu : (t == 6 ? 0xFFFFFFFFu : t * 1000u);
    __syncthreads();
    const unsigned v = in[blockIdx.x * blockDim.x + t];
    atomicAdd(&s[0], v);
    atomicSub(&s[1], v & 0xFFu);
    atomicMin(&s[2], v);
    atomicMax(&s[3], v);
    atomicInc(&s[4], 100u);
    atomicDec(&s[5], 33u);
    atomicAnd(&s[6], ~(1u << (v & 31)));
    atomicOr(&s[7], 1u << (v % 31));
    atomicXor(&s[8], v);
    unsigned old = s[9], assumed;
    do {
        assumed = old;
        old = atomicCAS(&s[9], assumed, assumed + (v | 1u));
    } while (old != assumed);
    __syncthreads();
    if (t < 10) out[blockIdx.x * 10 + t] = s[t];
}
