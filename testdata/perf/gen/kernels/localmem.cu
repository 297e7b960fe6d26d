// localmem.cu — local memory (issue 8): a dynamically indexed per-thread
// array (st.local / ld.local in the PTX itself) and register spills (none in
// the PTX: ptxas creates them under a register cap, so only the GPU's counters
// and the committed ptxas -v / SASS show them).

#define GID (blockIdx.x * blockDim.x + threadIdx.x)

// 64 words per thread, filled from global, then `reps` reads at indices that
// depend on the data (idx buffer, 64 entries). uniform != 0: every thread
// starts at index 0, so all lanes of a warp use the same index sequence;
// otherwise thread g starts at g % 64 (lanes at different indices).
extern "C" __global__ void local_dyn_index(unsigned* out, const unsigned* in, const unsigned* idx,
                                           unsigned reps, unsigned uniform)
{
    unsigned a[64];
    unsigned g = GID;
#pragma unroll
    for (int k = 0; k < 64; ++k)
        a[k] = in[(g * 7u + k) & 4095u];
    unsigned acc = 0, j = uniform ? 0u : (g & 63u);
    for (unsigned r = 0; r < reps; ++r) {
        j = idx[(j + r) & 63u] & 63u;
        acc = acc * 31u + a[j];
        a[(j + 1u) & 63u] = acc;   // a dynamically indexed store too
    }
    out[g] = acc;
}

// Register pressure under __launch_bounds__(256, 8) (at most 32 registers a
// thread): 48 live accumulators across a loop make ptxas spill.
extern "C" __global__ void __launch_bounds__(256, 8)
local_spill(unsigned* out, const unsigned* in, unsigned reps)
{
    unsigned v[48];
    unsigned g = GID;
#pragma unroll
    for (int k = 0; k < 48; ++k)
        v[k] = in[(g + k * 97u) & 4095u];
    for (unsigned r = 0; r < reps; ++r) {
#pragma unroll
        for (int k = 0; k < 48; ++k)
            v[k] = v[k] * 2654435761u + v[(k + 7) % 48] + r;
    }
    unsigned acc = 0;
#pragma unroll
    for (int k = 0; k < 48; ++k)
        acc ^= v[k] << (k & 7);
    out[g] = acc;
}
