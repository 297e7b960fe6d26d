// constmem.cu — constant-cache patterns (issue 8): a uniform index (one
// broadcast per warp) against 2, 4, 8, 16 and 32 distinct words per warp
// (serialised per distinct address), the same patterns read from global
// memory, and an index that is a kernel parameter (uniform to the compiler).

#define GID (blockIdx.x * blockDim.x + threadIdx.x)
#define CWORDS 4096   // 16 KiB

__constant__ unsigned ctab[CWORDS];

// acc over reps passes of ctab[(pat[lane] + r * 64) % CWORDS].
extern "C" __global__ void const_pattern(unsigned* out, const unsigned* pat, unsigned reps)
{
    unsigned idx = pat[threadIdx.x & 31];
    unsigned acc = 0;
    for (unsigned r = 0; r < reps; ++r)
        acc = acc * 31u + ctab[(idx + r * 64u) & (CWORDS - 1)];
    out[GID] = acc;
}

// The same reads from a global buffer holding the same words.
extern "C" __global__ void global_pattern(unsigned* out, const unsigned* tab, const unsigned* pat,
                                          unsigned reps)
{
    unsigned idx = pat[threadIdx.x & 31];
    unsigned acc = 0;
    for (unsigned r = 0; r < reps; ++r)
        acc = acc * 31u + tab[(idx + r * 64u) & (CWORDS - 1)];
    out[GID] = acc;
}

// Index from a kernel parameter: the compiler knows it is uniform.
extern "C" __global__ void const_param_index(unsigned* out, unsigned base, unsigned reps)
{
    unsigned acc = 0;
    for (unsigned r = 0; r < reps; ++r)
        acc = acc * 31u + ctab[(base + r * 64u) & (CWORDS - 1)];
    out[GID] = acc;
}
