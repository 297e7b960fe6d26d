// smem.cu — shared-memory access patterns for the bank model (issue 8):
// 32-, 64- and 128-bit loads and stores whose lane -> element map is read from
// a 32-entry pattern buffer (conflict-free, 2-, 4-, 8-, 16-, 32-way,
// broadcast, pairs, mixed), and shared atomics under the same patterns.
//
// Each access of the pattern is repeated `reps` times, pass r shifted by a
// multiple of 128 bytes (same banks): wavefronts and conflicts per pattern
// are those of one access times reps, plus the fixed set-up and read-back
// traffic (conflict-free, documented per kernel).

#define GID (blockIdx.x * blockDim.x + threadIdx.x)
#define NWORDS 4096   // 16 KiB of shared memory per block

// ---------------------------------------------------------------------------
// Loads. Set-up: the block fills the array with coalesced 32-bit stores
// (NWORDS / blockDim.x conflict-free STS per thread), then syncs. Element
// index e of a W-byte access: idx = (pat[lane] + r * (128 / W) * 8) % (NWORDS * 4 / W).

extern "C" __global__ void smem_ld_b32(unsigned* out, const unsigned* pat, unsigned reps)
{
    __shared__ unsigned s[NWORDS];
    for (unsigned i = threadIdx.x; i < NWORDS; i += blockDim.x)
        s[i] = i * 2654435761u;
    __syncthreads();
    unsigned idx = pat[threadIdx.x & 31];
    unsigned acc = 0;
    for (unsigned r = 0; r < reps; ++r)
        acc = acc * 31u + s[(idx + r * 256u) & (NWORDS - 1)];
    out[GID] = acc;
}

extern "C" __global__ void smem_ld_b64(unsigned* out, const unsigned* pat, unsigned reps)
{
    __shared__ uint2 s[NWORDS / 2];
    unsigned* w = reinterpret_cast<unsigned*>(s);
    for (unsigned i = threadIdx.x; i < NWORDS; i += blockDim.x)
        w[i] = i * 2654435761u;
    __syncthreads();
    unsigned idx = pat[threadIdx.x & 31];
    unsigned acc = 0;
    for (unsigned r = 0; r < reps; ++r) {
        uint2 v = s[(idx + r * 128u) & (NWORDS / 2 - 1)];
        acc = acc * 31u + (v.x ^ (v.y << 1));
    }
    out[GID] = acc;
}

extern "C" __global__ void smem_ld_b128(unsigned* out, const unsigned* pat, unsigned reps)
{
    __shared__ uint4 s[NWORDS / 4];
    unsigned* w = reinterpret_cast<unsigned*>(s);
    for (unsigned i = threadIdx.x; i < NWORDS; i += blockDim.x)
        w[i] = i * 2654435761u;
    __syncthreads();
    unsigned idx = pat[threadIdx.x & 31];
    unsigned acc = 0;
    for (unsigned r = 0; r < reps; ++r) {
        uint4 v = s[(idx + r * 64u) & (NWORDS / 4 - 1)];
        acc = acc * 31u + (v.x ^ (v.y << 1) ^ (v.z << 2) ^ (v.w << 3));
    }
    out[GID] = acc;
}

// ---------------------------------------------------------------------------
// Stores. Set-up: zero the array (coalesced 32-bit stores), sync; then the
// pattern stores (lanes that share an element store the same value, so the
// result does not depend on which lane wins), sync; read-back: the block
// copies its array to out with coalesced 32-bit loads.

extern "C" __global__ void smem_st_b32(unsigned* out, const unsigned* pat, unsigned reps)
{
    __shared__ unsigned s[NWORDS];
    for (unsigned i = threadIdx.x; i < NWORDS; i += blockDim.x)
        s[i] = 0;
    __syncthreads();
    unsigned idx = pat[threadIdx.x & 31];
    for (unsigned r = 0; r < reps; ++r) {
        unsigned e = (idx + r * 256u) & (NWORDS - 1);
        s[e] = e * 3u + 1u;
    }
    __syncthreads();
    for (unsigned i = threadIdx.x; i < NWORDS; i += blockDim.x)
        out[blockIdx.x * NWORDS + i] = s[i];
}

extern "C" __global__ void smem_st_b64(unsigned* out, const unsigned* pat, unsigned reps)
{
    __shared__ uint2 s[NWORDS / 2];
    unsigned* w = reinterpret_cast<unsigned*>(s);
    for (unsigned i = threadIdx.x; i < NWORDS; i += blockDim.x)
        w[i] = 0;
    __syncthreads();
    unsigned idx = pat[threadIdx.x & 31];
    for (unsigned r = 0; r < reps; ++r) {
        unsigned e = (idx + r * 128u) & (NWORDS / 2 - 1);
        s[e] = make_uint2(e * 3u + 1u, e ^ 0x5555u);
    }
    __syncthreads();
    for (unsigned i = threadIdx.x; i < NWORDS; i += blockDim.x)
        out[blockIdx.x * NWORDS + i] = w[i];
}

extern "C" __global__ void smem_st_b128(unsigned* out, const unsigned* pat, unsigned reps)
{
    __shared__ uint4 s[NWORDS / 4];
    unsigned* w = reinterpret_cast<unsigned*>(s);
    for (unsigned i = threadIdx.x; i < NWORDS; i += blockDim.x)
        w[i] = 0;
    __syncthreads();
    unsigned idx = pat[threadIdx.x & 31];
    for (unsigned r = 0; r < reps; ++r) {
        unsigned e = (idx + r * 64u) & (NWORDS / 4 - 1);
        s[e] = make_uint4(e * 3u + 1u, e ^ 0x5555u, e + 7u, ~e);
    }
    __syncthreads();
    for (unsigned i = threadIdx.x; i < NWORDS; i += blockDim.x)
        out[blockIdx.x * NWORDS + i] = w[i];
}

// ---------------------------------------------------------------------------
// Shared atomics: zero (coalesced STS), sync, `reps` atomic adds per thread at
// the pattern's word (shifted by 256 words per pass), sync, read-back.
// Integer adds commute, so the result does not depend on the order.

extern "C" __global__ void smem_atom_add_u32(unsigned* out, const unsigned* pat, unsigned reps)
{
    __shared__ unsigned s[NWORDS];
    for (unsigned i = threadIdx.x; i < NWORDS; i += blockDim.x)
        s[i] = 0;
    __syncthreads();
    unsigned idx = pat[threadIdx.x & 31];
    for (unsigned r = 0; r < reps; ++r)
        atomicAdd(&s[(idx + r * 256u) & (NWORDS - 1)], threadIdx.x + 1u);
    __syncthreads();
    for (unsigned i = threadIdx.x; i < NWORDS; i += blockDim.x)
        out[blockIdx.x * NWORDS + i] = s[i];
}

// The returned old value is used (ATOMS with a destination). The old values
// depend on the order of the lanes' atomics: they go to `old`, a scratch
// buffer that the specs do not list as an output.
extern "C" __global__ void smem_atom_add_u32_ret(unsigned* out, unsigned* old, const unsigned* pat,
                                                 unsigned reps)
{
    __shared__ unsigned s[NWORDS];
    for (unsigned i = threadIdx.x; i < NWORDS; i += blockDim.x)
        s[i] = 0;
    __syncthreads();
    unsigned idx = pat[threadIdx.x & 31];
    unsigned acc = 0;
    for (unsigned r = 0; r < reps; ++r)
        acc += atomicAdd(&s[(idx + r * 256u) & (NWORDS - 1)], threadIdx.x + 1u);
    __syncthreads();
    old[GID] = acc;
    for (unsigned i = threadIdx.x; i < NWORDS; i += blockDim.x)
        out[blockIdx.x * NWORDS + i] = s[i];
}

extern "C" __global__ void smem_atom_add_u64(unsigned long long* out, const unsigned* pat,
                                             unsigned reps)
{
    __shared__ unsigned long long s[NWORDS / 2];
    for (unsigned i = threadIdx.x; i < NWORDS / 2; i += blockDim.x)
        s[i] = 0;
    __syncthreads();
    unsigned idx = pat[threadIdx.x & 31];
    for (unsigned r = 0; r < reps; ++r)
        atomicAdd(&s[(idx + r * 128u) & (NWORDS / 2 - 1)], (unsigned long long)threadIdx.x + 1ull);
    __syncthreads();
    for (unsigned i = threadIdx.x; i < NWORDS / 2; i += blockDim.x)
        out[blockIdx.x * (NWORDS / 2) + i] = s[i];
}
