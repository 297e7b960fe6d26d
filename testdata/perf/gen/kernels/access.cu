// access.cu — global-memory access patterns for the memory-hierarchy model
// (issue 8): offset (misaligned) copies, strided copies of 4-, 8- and 16-byte
// elements, strided stores, write-back traffic, cache operators and L1/L2
// eviction hints through inline PTX, and L1 re-reads through __ldg.
//
// Every load whose count matters is inline PTX `asm volatile`, so nvcc can
// neither merge, hoist nor drop it: the PTX holds exactly the accesses the
// case describes. Kernels are extern "C" so that ncu rows carry plain names.

#include <cstdint>

#define GID (blockIdx.x * blockDim.x + threadIdx.x)

// ---------------------------------------------------------------------------
// Offset copies: out[i + off_out] = in[i + off_in], i < n. An offset that is
// not a multiple of 32 bytes makes each warp's 128 bytes straddle sectors
// (u32: 5 sectors instead of 4 when off_in % 8 != 0).

extern "C" __global__ void copy_u32_offset(unsigned* out, const unsigned* in, unsigned n,
                                           unsigned off_in, unsigned off_out)
{
    unsigned i = GID;
    if (i < n)
        out[i + off_out] = in[i + off_in];
}

extern "C" __global__ void copy_u64_offset(unsigned long long* out, const unsigned long long* in,
                                           unsigned n, unsigned off_in, unsigned off_out)
{
    unsigned i = GID;
    if (i < n)
        out[i + off_out] = in[i + off_in];
}

extern "C" __global__ void copy_v4_offset(uint4* out, const uint4* in, unsigned n,
                                          unsigned off_in, unsigned off_out)
{
    unsigned i = GID;
    if (i < n)
        out[i + off_out] = in[i + off_in];
}

// ---------------------------------------------------------------------------
// Strided reads, coalesced writes: out[i] = in[i * stride].

extern "C" __global__ void copy_u32_stride(unsigned* out, const unsigned* in, unsigned n,
                                           unsigned stride)
{
    unsigned i = GID;
    if (i < n)
        out[i] = in[(size_t)i * stride];
}

extern "C" __global__ void copy_u64_stride(unsigned long long* out, const unsigned long long* in,
                                           unsigned n, unsigned stride)
{
    unsigned i = GID;
    if (i < n)
        out[i] = in[(size_t)i * stride];
}

extern "C" __global__ void copy_v4_stride(uint4* out, const uint4* in, unsigned n, unsigned stride)
{
    unsigned i = GID;
    if (i < n)
        out[i] = in[(size_t)i * stride];
}

// Coalesced reads, strided writes: out[i * stride] = in[i].
extern "C" __global__ void store_u32_stride(unsigned* out, const unsigned* in, unsigned n,
                                            unsigned stride)
{
    unsigned i = GID;
    if (i < n)
        out[(size_t)i * stride] = in[i];
}

// ---------------------------------------------------------------------------
// Write traffic: every thread writes one value per iteration of a grid-stride
// loop over n elements (stride elements apart), no loads at all: DRAM write
// bytes and L2 write sectors for a footprint smaller or larger than the L2.
extern "C" __global__ void store_fill(unsigned* out, unsigned n, unsigned stride, unsigned salt)
{
    unsigned step = gridDim.x * blockDim.x;
    for (unsigned i = GID; i < n; i += step)
        out[(size_t)i * stride] = i ^ salt;
}

// ---------------------------------------------------------------------------
// Cache operators and eviction hints. Each block reads its own window of
// 4 * blockDim.x words `reps` times (u32 loads, coalesced): the first pass
// misses, later passes hit in L1 where the operator lets the line stay.

#define REREAD(NAME, LD)                                                              \
    extern "C" __global__ void NAME(unsigned* out, const unsigned* in, unsigned reps) \
    {                                                                                 \
        const unsigned* w = in + (size_t)blockIdx.x * blockDim.x * 4 + threadIdx.x;   \
        unsigned acc = 0;                                                             \
        for (unsigned r = 0; r < reps; ++r) {                                         \
            _Pragma("unroll") for (unsigned k = 0; k < 4; ++k)                        \
            {                                                                         \
                unsigned v;                                                           \
                asm volatile(LD " %0, [%1];" : "=r"(v) : "l"(w + k * blockDim.x));    \
                acc += v;                                                             \
            }                                                                         \
        }                                                                             \
        out[GID] = acc;                                                               \
    }

REREAD(reread_default, "ld.global.u32")
REREAD(reread_ca, "ld.global.ca.u32")
REREAD(reread_cg, "ld.global.cg.u32")
REREAD(reread_cs, "ld.global.cs.u32")
REREAD(reread_lu, "ld.global.lu.u32")
REREAD(reread_cv, "ld.global.cv.u32")
REREAD(reread_nc, "ld.global.nc.u32")
REREAD(reread_l1_evict_first, "ld.global.L1::evict_first.u32")
REREAD(reread_l1_evict_last, "ld.global.L1::evict_last.u32")
REREAD(reread_l1_evict_normal, "ld.global.L1::evict_normal.u32")
REREAD(reread_l1_evict_unchanged, "ld.global.L1::evict_unchanged.u32")
REREAD(reread_l1_no_allocate, "ld.global.L1::no_allocate.u32")
REREAD(reread_l2_prefetch_256b, "ld.global.L2::256B.u32")

// The same window read through __ldg (ld.global.nc as nvcc emits it). The
// word read in pass r, slot k is slot (k + r) % 4, so nvcc cannot hoist the
// loads out of the loop, and every pass reads the whole window again.
extern "C" __global__ void reread_ldg(unsigned* out, const unsigned* __restrict__ in, unsigned reps)
{
    const unsigned* w = in + (size_t)blockIdx.x * blockDim.x * 4 + threadIdx.x;
    unsigned acc = 0;
    for (unsigned r = 0; r < reps; ++r) {
#pragma unroll
        for (unsigned k = 0; k < 4; ++k)
            acc = acc * 3u + __ldg(w + ((k + r) & 3u) * blockDim.x);
    }
    out[GID] = acc;
}

// Strided reads through __ldg: out[i] = __ldg(in + i * stride).
extern "C" __global__ void copy_u32_stride_ldg(unsigned* out, const unsigned* __restrict__ in,
                                               unsigned n, unsigned stride)
{
    unsigned i = GID;
    if (i < n)
        out[i] = __ldg(in + (size_t)i * stride);
}

// An L2 access policy: createpolicy + ld.global.L2::cache_hint.
extern "C" __global__ void reread_l2_evict_last_policy(unsigned* out, const unsigned* in,
                                                       unsigned reps)
{
    const unsigned* w = in + (size_t)blockIdx.x * blockDim.x * 4 + threadIdx.x;
    unsigned long long pol;
    asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol));
    unsigned acc = 0;
    for (unsigned r = 0; r < reps; ++r) {
#pragma unroll
        for (unsigned k = 0; k < 4; ++k) {
            unsigned v;
            asm volatile("ld.global.L2::cache_hint.u32 %0, [%1], %2;"
                         : "=r"(v) : "l"(w + k * blockDim.x), "l"(pol));
            acc += v;
        }
    }
    out[GID] = acc;
}

// Store operators: each thread stores one word with the operator, then
// reloads it with a default load (does the store leave the line in L1?) and
// writes the sum to out2.
#define STORE_RELOAD(NAME, ST)                                                         \
    extern "C" __global__ void NAME(unsigned* out, unsigned* out2, unsigned salt)      \
    {                                                                                  \
        unsigned i = GID;                                                              \
        asm volatile(ST " [%0], %1;" ::"l"(out + i), "r"(i ^ salt) : "memory");        \
        unsigned v;                                                                    \
        asm volatile("ld.global.u32 %0, [%1];" : "=r"(v) : "l"(out + i) : "memory");   \
        out2[i] = v + 1;                                                               \
    }

STORE_RELOAD(store_reload_wb, "st.global.wb.u32")
STORE_RELOAD(store_reload_wt, "st.global.wt.u32")
STORE_RELOAD(store_reload_cs, "st.global.cs.u32")
STORE_RELOAD(store_reload_cg, "st.global.cg.u32")
STORE_RELOAD(store_reload_l1_evict_last, "st.global.L1::evict_last.u32")
STORE_RELOAD(store_reload_l1_no_allocate, "st.global.L1::no_allocate.u32")
