// control.cu — control flow: divergent loops with per-thread trip counts,
// break/continue, early return, nested divergence, switch (dense and sparse),
// non-inlined calls with several parameters, recursion, struct return, and a
// data-dependent loop exit.

// Collatz: per-thread trip counts, break at a cap, continue, 64-bit values.
__global__ void collatz(unsigned* steps, unsigned* peak, const unsigned* in, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long x = in[i];
    unsigned long long p = x;
    unsigned s = 0;
    while (x > 1) {
        if (s >= 1000) break;
        ++s;
        if ((x & 1) == 0) { x >>= 1; continue; }
        x = 3 * x + 1;
        if (x > p) p = x;
    }
    steps[i] = s;
    peak[i] = (unsigned)(p ^ (p >> 32));
}

// Nested divergence with an early return and a loop with continue/break.
// Inputs are in [-100000, 100000] so nothing overflows.
__global__ void nested_divergence(int* out, const int* in, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int x = in[i];
    int r = 0;
    if (x & 1) {
        if (x & 2) {
            for (int k = 0; k < (x & 7); ++k) r += k * x;
        } else {
            r = x ^ 0x55;
        }
    } else {
        if (x % 3 == 0) {
            r = -x;
            if (x % 9 == 0) { out[i] = 12345; return; }   // early return
        } else {
            int k = x & 15;
            while (k--) {
                if (k == 3) continue;
                r += k;
                if (r > 40) break;
            }
        }
    }
    out[i] = r;
}

// A dense switch (candidate for a brx.idx jump table) and a sparse one with
// fallthrough.
__global__ void switch_dense(unsigned* out, const unsigned* in, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned x = in[i];
    unsigned r;
    switch (x % 12) {
    case 0: r = x * 3; break;
    case 1: r = x ^ 0xdeadbeefu; break;
    case 2: r = x >> 3; break;
    case 3: r = ~x; break;
    case 4: r = x * x; break;
    case 5: r = x + 12345; break;
    case 6: r = __brev(x); break;
    case 7: r = x | 0xF0F0u; break;
    case 8: r = x & 0xFF00FFu; break;
    case 9: r = x - 777; break;
    case 10: r = __popc(x); break;
    default: r = 0; break;
    }
    switch (x & 0xFF) {
    case 3: r += 1; break;
    case 17: r += 2; break;
    case 100: r += 3; [[fallthrough]];
    case 200: r += 4; break;
    default: break;
    }
    out[i] = r;
}

// A non-inlined function with several parameters of different types and a
// return value (call.uni, .param space), called twice.
__device__ __noinline__ float combine(float a, int b, unsigned c, double d, const float* p, int k)
{
    float acc = a;
    for (int j = 0; j < k; ++j)
        acc = acc * 0.5f + p[j];
    return acc + (float)b * 0.25f + (float)(c & 0xFFu) + (float)d;
}

__global__ void noinline_call(float* out, const float* in, const int* bi, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int b = bi[i];                                // in [-1000, 1000]
    const float r1 = combine(in[i], b, i, 0.125, in, b & 7);
    const float r2 = combine(r1, -b, i * 3u, -1.5, in + 8, 3);
    out[2 * i] = r1;
    out[2 * i + 1] = r2;
}

// Recursion (needs a call stack; the spec raises the stack limit).
__device__ __noinline__ unsigned fib(unsigned n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__device__ __noinline__ unsigned ackermann(unsigned m, unsigned n)
{
    if (m == 0) return n + 1;
    if (n == 0) return ackermann(m - 1, 1);
    return ackermann(m - 1, ackermann(m, n - 1));
}

__device__ __noinline__ int tree_sum(const int* t, unsigned node, unsigned size)
{
    if (node >= size) return 0;
    return t[node] + tree_sum(t, 2 * node + 1, size) + tree_sum(t, 2 * node + 2, size);
}

__global__ void recursion(unsigned* out, const unsigned* in, const int* tree, unsigned tree_size,
                          unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned v = in[i];
    out[3 * i] = fib(v % 16);
    out[3 * i + 1] = ackermann(v % 3, (v >> 4) % 5);
    out[3 * i + 2] = (unsigned)tree_sum(tree, v % 15, tree_size);
}

// A function returning a struct by value.
struct Res {
    float f;
    int i;
    double d;
    short s;
};

__device__ __noinline__ Res make_res(float a, int b)
{
    Res r;
    r.f = a * 2.0f;
    r.i = b - 7;
    r.d = (double)a * b;
    r.s = (short)(b & 0x7fff);
    return r;
}

__global__ void struct_return(float* of, int* oi, double* od, const float* a, const int* b, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const Res r = make_res(a[i], b[i]);
    of[i] = r.f;
    oi[2 * i] = r.i;
    oi[2 * i + 1] = r.s;
    od[i] = r.d;
}

// Newton iteration for sqrt: the loop exit depends on the data (do-while).
__global__ void data_loop(float* out, unsigned* iters, const float* in, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float x = in[i];                 // positive
    float g = x > 1.0f ? x : 1.0f;
    float prev;
    unsigned it = 0;
    do {
        prev = g;
        g = 0.5f * (g + x / g);
        ++it;
    } while (g < prev && it < 100);
    out[i] = g;
    iters[i] = it;
}

// An indirect branch through a jump table (brx.idx with .branchtargets) via
// inline PTX; the index is always in range.
__global__ void brx_idx_asm(unsigned* out, const unsigned* in, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned x = in[i];
    unsigned r;
    asm("{\n\t"
        ".reg .u32 idx;\n\t"
        "and.b32 idx, %1, 3;\n"
        "BRX_TS: .branchtargets BRX_L0, BRX_L1, BRX_L2, BRX_L3;\n\t"
        "brx.idx idx, BRX_TS;\n"
        "BRX_L0:\n\t"
        "mul.lo.u32 %0, %1, 3;\n\t"
        "bra.uni BRX_END;\n"
        "BRX_L1:\n\t"
        "xor.b32 %0, %1, 0x5555;\n\t"
        "bra.uni BRX_END;\n"
        "BRX_L2:\n\t"
        "shr.u32 %0, %1, 2;\n\t"
        "bra.uni BRX_END;\n"
        "BRX_L3:\n\t"
        "not.b32 %0, %1;\n"
        "BRX_END:\n\t"
        "}"
        : "=r"(r) : "r"(x));
    out[i] = r;
}
