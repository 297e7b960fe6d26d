// compare.cu — comparisons and selection: every ordered and unordered float
// comparison (C operators, their negations, isnan-based unordered tests, and setp
// through inline PTX), signed/unsigned integer comparisons, ?: (selp), set,
// slct, and predicate logic (setp with .and/.or/.xor, and/or/xor/not.pred).
#include <cmath>

// isunordered/isless/... from <cmath> are host-only under nvcc: spell them out.
template <typename T> __device__ __forceinline__ bool unord(T x, T y) { return isnan(x) || isnan(y); }
template <typename T> __device__ __forceinline__ bool lessgreater(T x, T y) { return (x < y) || (x > y); }

// The 14 setp comparison operators through inline PTX for one type; sets
// bits [base, base+14) of m. Order: eq ne lt le gt ge equ neu ltu leu gtu geu num nan.
#define SETP_ALL(T, C, x, y, m)                                              \
    asm("{\n\t.reg .pred p;\n\t.reg .u32 r;\n\tmov.u32 r, 0;\n\t"          \
        "setp.eq."  T " p, %1, %2; @p or.b32 r, r, 1;\n\t"                   \
        "setp.ne."  T " p, %1, %2; @p or.b32 r, r, 2;\n\t"                   \
        "setp.lt."  T " p, %1, %2; @p or.b32 r, r, 4;\n\t"                   \
        "setp.le."  T " p, %1, %2; @p or.b32 r, r, 8;\n\t"                   \
        "setp.gt."  T " p, %1, %2; @p or.b32 r, r, 16;\n\t"                  \
        "setp.ge."  T " p, %1, %2; @p or.b32 r, r, 32;\n\t"                  \
        "setp.equ." T " p, %1, %2; @p or.b32 r, r, 64;\n\t"                  \
        "setp.neu." T " p, %1, %2; @p or.b32 r, r, 128;\n\t"                 \
        "setp.ltu." T " p, %1, %2; @p or.b32 r, r, 256;\n\t"                 \
        "setp.leu." T " p, %1, %2; @p or.b32 r, r, 512;\n\t"                 \
        "setp.gtu." T " p, %1, %2; @p or.b32 r, r, 1024;\n\t"                \
        "setp.geu." T " p, %1, %2; @p or.b32 r, r, 2048;\n\t"                \
        "setp.num." T " p, %1, %2; @p or.b32 r, r, 4096;\n\t"                \
        "setp.nan." T " p, %1, %2; @p or.b32 r, r, 8192;\n\t"                \
        "mov.u32 %0, r;\n\t}"                                                \
        : "=r"(m) : C(x), C(y))

// out K=2 per pair: [0] C-level comparisons (bits 0..15), [1] setp forms
// (bits 0..13) and ftz forms (bits 16..18).
__global__ void fcmp_f32(unsigned* out, const float* a, const float* b, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float x = a[i], y = b[i];
    unsigned m = 0;
    m |= (x < y) << 0;
    m |= (x <= y) << 1;
    m |= (x > y) << 2;
    m |= (x >= y) << 3;
    m |= (x == y) << 4;
    m |= (x != y) << 5;
    m |= (!(x < y)) << 6;
    m |= (!(x <= y)) << 7;
    m |= (!(x > y)) << 8;
    m |= (!(x >= y)) << 9;
    m |= (!(x == y)) << 10;
    m |= (unord(x, y) ? 1u : 0u) << 11;
    m |= ((x < y) ? 1u : 0u) << 12;
    m |= (lessgreater(x, y) ? 1u : 0u) << 13;
    m |= ((x >= y) ? 1u : 0u) << 14;
    m |= (!unord(x, y) ? 1u : 0u) << 15;
    out[2 * i] = m;
    unsigned s, f;
    SETP_ALL("f32", "f", x, y, s);
    asm("{\n\t.reg .pred p;\n\t.reg .u32 r;\n\tmov.u32 r, 0;\n\t"
        "setp.lt.ftz.f32 p, %1, %2; @p or.b32 r, r, 1;\n\t"
        "setp.eq.ftz.f32 p, %1, %2; @p or.b32 r, r, 2;\n\t"
        "setp.geu.ftz.f32 p, %1, %2; @p or.b32 r, r, 4;\n\t"
        "mov.u32 %0, r;\n\t}"
        : "=r"(f) : "f"(x), "f"(y));
    out[2 * i + 1] = s | (f << 16);
}

__global__ void fcmp_f64(unsigned* out, const double* a, const double* b, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const double x = a[i], y = b[i];
    unsigned m = 0;
    m |= (x < y) << 0;
    m |= (x <= y) << 1;
    m |= (x > y) << 2;
    m |= (x >= y) << 3;
    m |= (x == y) << 4;
    m |= (x != y) << 5;
    m |= (!(x < y)) << 6;
    m |= (!(x <= y)) << 7;
    m |= (!(x > y)) << 8;
    m |= (!(x >= y)) << 9;
    m |= (!(x == y)) << 10;
    m |= (unord(x, y) ? 1u : 0u) << 11;
    m |= ((x < y) ? 1u : 0u) << 12;
    m |= (lessgreater(x, y) ? 1u : 0u) << 13;
    m |= ((x >= y) ? 1u : 0u) << 14;
    m |= (!unord(x, y) ? 1u : 0u) << 15;
    out[2 * i] = m;
    unsigned s;
    SETP_ALL("f64", "d", x, y, s);
    out[2 * i + 1] = s;
}

// Signed and unsigned 32/64-bit comparisons: out K=1, bits
// [0..5] s32 lt le gt ge eq ne, [6..11] u32, [12..17] s64, [18..23] u64,
// [24..27] setp.lo/ls/hi/hs.u32 via PTX.
__global__ void icmp(unsigned* out, const unsigned* a, const unsigned* b,
                     const unsigned long long* a64, const unsigned long long* b64, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned x = a[i], y = b[i];
    const int sx = (int)x, sy = (int)y;
    const unsigned long long X = a64[i], Y = b64[i];
    const long long SX = (long long)X, SY = (long long)Y;
    unsigned m = 0;
    m |= (sx < sy) << 0;  m |= (sx <= sy) << 1; m |= (sx > sy) << 2;
    m |= (sx >= sy) << 3; m |= (sx == sy) << 4; m |= (sx != sy) << 5;
    m |= (x < y) << 6;    m |= (x <= y) << 7;   m |= (x > y) << 8;
    m |= (x >= y) << 9;   m |= (x == y) << 10;  m |= (x != y) << 11;
    m |= (SX < SY) << 12; m |= (SX <= SY) << 13; m |= (SX > SY) << 14;
    m |= (SX >= SY) << 15; m |= (SX == SY) << 16; m |= (SX != SY) << 17;
    m |= (X < Y) << 18;   m |= (X <= Y) << 19;  m |= (X > Y) << 20;
    m |= (X >= Y) << 21;  m |= (X == Y) << 22;  m |= (X != Y) << 23;
    unsigned t;
    asm("{\n\t.reg .pred p;\n\t.reg .u32 r;\n\tmov.u32 r, 0;\n\t"
        "setp.lo.u32 p, %1, %2; @p or.b32 r, r, 1;\n\t"
        "setp.ls.u32 p, %1, %2; @p or.b32 r, r, 2;\n\t"
        "setp.hi.u32 p, %1, %2; @p or.b32 r, r, 4;\n\t"
        "setp.hs.u32 p, %1, %2; @p or.b32 r, r, 8;\n\t"
        "mov.u32 %0, r;\n\t}"
        : "=r"(t) : "r"(x), "r"(y));
    m |= t << 24;
    out[i] = m;
}

// Selection and predicate logic. out K=12.
__global__ void select_logic(unsigned* out, const int* a, const int* b, const float* f,
                             const float* g, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int x = a[i], y = b[i];
    const float fx = f[i], fy = g[i];
    unsigned* o = out + i * 12;
    o[0] = (x < y) ? (unsigned)x : (unsigned)y;           // selp.b32
    o[1] = __float_as_uint((fx > fy) ? fx : fy * 2.0f);   // selp.f32
    unsigned r;
    float rf;
    asm("set.lt.u32.s32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y));
    o[2] = r;
    asm("set.gtu.f32.f32 %0, %1, %2;" : "=f"(rf) : "f"(fx), "f"(fy));
    o[3] = __float_as_uint(rf);
    asm("set.eq.s32.f32 %0, %1, %2;" : "=r"(r) : "f"(fx), "f"(fy));
    o[4] = r;
    asm("slct.s32.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(x ^ y));
    o[5] = r;
    asm("slct.f32.f32 %0, %1, %2, %3;" : "=f"(rf) : "f"(fx), "f"(fy), "f"(fx - fy));
    o[6] = __float_as_uint(rf);
    asm("{\n\t.reg .pred p, q;\n\t"
        "setp.gt.s32 q, %1, 0;\n\t"
        "setp.lt.and.s32 p, %1, %2, q;\n\t"
        "selp.u32 %0, 1, 0, p;\n\t}"
        : "=r"(r) : "r"(x), "r"(y));
    o[7] = r;
    asm("{\n\t.reg .pred p, q;\n\t"
        "setp.num.f32 q, %1, %2;\n\t"
        "setp.gt.or.f32 p, %1, %2, !q;\n\t"
        "selp.u32 %0, 1, 0, p;\n\t}"
        : "=r"(r) : "f"(fx), "f"(fy));
    o[8] = r;
    asm("{\n\t.reg .pred p, q, s;\n\t"
        "setp.ne.s32 q, %1, %2;\n\t"
        "setp.ge.xor.s32 p, %1, 0, q;\n\t"
        "and.pred s, p, q;\n\t"
        "or.pred p, s, !p;\n\t"
        "xor.pred s, s, p;\n\t"
        "not.pred q, s;\n\t"
        "selp.u32 %0, 1, 0, q;\n\t}"
        : "=r"(r) : "r"(x), "r"(y));
    o[9] = r;
    asm("{\n\t.reg .pred p;\n\t"
        "setp.lt.s32 p, %1, %2;\n\t"
        "@p bra SEL_TAKEN;\n\t"       // divergent branch inside asm
        "mov.u32 %0, 7;\n\t"
        "bra.uni SEL_DONE;\n"
        "SEL_TAKEN:\n\t"
        "mov.u32 %0, 9;\n"
        "SEL_DONE:\n\t}"
        : "=r"(r) : "r"(x), "r"(y));
    o[10] = r;
    o[11] = (unsigned)((x > 0) && (y > 0)) | ((unsigned)((x < 0) || (fx < fy)) << 1)
          | ((unsigned)((x == y) != (fx == fy)) << 2);
}
