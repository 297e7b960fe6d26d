// float_arith.cu — IEEE f32/f64 arithmetic on edge values: default-rounded
// operators, every rounding-mode intrinsic, min/max/abs/copysign/saturate,
// flush-to-zero forms via inline PTX, rounding to integral values, and
// classification (isnan/isinf/... and testp).
// Inputs are usually the cross product of an edge-value set, so a[i], b[i]
// run over all pairs; c[i] is a third operand for the fused forms.
#include <cmath>

// out K=10: + - * / sqrt fma, a*b+c (contracted to fma at -O3), rn-mul then
// add (never contracted), neg, reciprocal.
__global__ void f32_arith(float* out, const float* a, const float* b, const float* c, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float x = a[i], y = b[i], z = c[i];
    float* o = out + i * 10;
    o[0] = x + y;
    o[1] = x - y;
    o[2] = x * y;
    o[3] = x / y;                  // div.rn.f32 (IEEE)
    o[4] = sqrtf(x);               // sqrt.rn.f32
    o[5] = fmaf(x, y, z);
    o[6] = x * y + z;
    o[7] = __fmul_rn(x, y) + z;
    o[8] = -x;
    o[9] = 1.0f / x;               // rcp.rn.f32
}

// out K=28: add sub mul div fma rcp sqrt, each in rn rz ru rd.
__global__ void f32_round(float* out, const float* a, const float* b, const float* c, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float x = a[i], y = b[i], z = c[i];
    float* o = out + i * 28;
    o[0] = __fadd_rn(x, y);  o[1] = __fadd_rz(x, y);  o[2] = __fadd_ru(x, y);  o[3] = __fadd_rd(x, y);
    o[4] = __fsub_rn(x, y);  o[5] = __fsub_rz(x, y);  o[6] = __fsub_ru(x, y);  o[7] = __fsub_rd(x, y);
    o[8] = __fmul_rn(x, y);  o[9] = __fmul_rz(x, y);  o[10] = __fmul_ru(x, y); o[11] = __fmul_rd(x, y);
    o[12] = __fdiv_rn(x, y); o[13] = __fdiv_rz(x, y); o[14] = __fdiv_ru(x, y); o[15] = __fdiv_rd(x, y);
    o[16] = __fmaf_rn(x, y, z); o[17] = __fmaf_rz(x, y, z); o[18] = __fmaf_ru(x, y, z); o[19] = __fmaf_rd(x, y, z);
    o[20] = __frcp_rn(x);    o[21] = __frcp_rz(x);    o[22] = __frcp_ru(x);    o[23] = __frcp_rd(x);
    o[24] = __fsqrt_rn(x);   o[25] = __fsqrt_rz(x);   o[26] = __fsqrt_ru(x);   o[27] = __fsqrt_rd(x);
}

__global__ void f64_arith(double* out, const double* a, const double* b, const double* c, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const double x = a[i], y = b[i], z = c[i];
    double* o = out + i * 10;
    o[0] = x + y;
    o[1] = x - y;
    o[2] = x * y;
    o[3] = x / y;
    o[4] = sqrt(x);
    o[5] = fma(x, y, z);
    o[6] = x * y + z;
    o[7] = __dmul_rn(x, y) + z;
    o[8] = -x;
    o[9] = 1.0 / x;
}

__global__ void f64_round(double* out, const double* a, const double* b, const double* c, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const double x = a[i], y = b[i], z = c[i];
    double* o = out + i * 28;
    o[0] = __dadd_rn(x, y);  o[1] = __dadd_rz(x, y);  o[2] = __dadd_ru(x, y);  o[3] = __dadd_rd(x, y);
    o[4] = __dsub_rn(x, y);  o[5] = __dsub_rz(x, y);  o[6] = __dsub_ru(x, y);  o[7] = __dsub_rd(x, y);
    o[8] = __dmul_rn(x, y);  o[9] = __dmul_rz(x, y);  o[10] = __dmul_ru(x, y); o[11] = __dmul_rd(x, y);
    o[12] = __ddiv_rn(x, y); o[13] = __ddiv_rz(x, y); o[14] = __ddiv_ru(x, y); o[15] = __ddiv_rd(x, y);
    o[16] = __fma_rn(x, y, z); o[17] = __fma_rz(x, y, z); o[18] = __fma_ru(x, y, z); o[19] = __fma_rd(x, y, z);
    o[20] = __drcp_rn(x);    o[21] = __drcp_rz(x);    o[22] = __drcp_ru(x);    o[23] = __drcp_rd(x);
    o[24] = __dsqrt_rn(x);   o[25] = __dsqrt_rz(x);   o[26] = __dsqrt_ru(x);   o[27] = __dsqrt_rd(x);
}

// out K=12: fminf fmaxf fabsf copysignf __saturatef fdimf, and through PTX
// min/max.NaN, min/max.ftz, min.xorsign.abs (sm_86+).
__global__ void f32_minmax(float* out, const float* a, const float* b, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float x = a[i], y = b[i];
    float* o = out + i * 12;
    o[0] = fminf(x, y);
    o[1] = fmaxf(x, y);
    o[2] = fabsf(x);
    o[3] = copysignf(x, y);
    o[4] = __saturatef(x);
    o[5] = fdimf(x, y);
    float r0, r1, r2, r3, r4, r5;
    asm("min.NaN.f32 %0, %1, %2;" : "=f"(r0) : "f"(x), "f"(y));
    asm("max.NaN.f32 %0, %1, %2;" : "=f"(r1) : "f"(x), "f"(y));
    asm("min.ftz.f32 %0, %1, %2;" : "=f"(r2) : "f"(x), "f"(y));
    asm("max.ftz.f32 %0, %1, %2;" : "=f"(r3) : "f"(x), "f"(y));
    asm("min.xorsign.abs.f32 %0, %1, %2;" : "=f"(r4) : "f"(x), "f"(y));
    asm("max.xorsign.abs.f32 %0, %1, %2;" : "=f"(r5) : "f"(x), "f"(y));
    o[6] = r0; o[7] = r1; o[8] = r2; o[9] = r3; o[10] = r4; o[11] = r5;
}

// out K=6: fmin fmax fabs copysign fdim, neg.f64 via asm.
__global__ void f64_minmax(double* out, const double* a, const double* b, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const double x = a[i], y = b[i];
    double* o = out + i * 6;
    o[0] = fmin(x, y);
    o[1] = fmax(x, y);
    o[2] = fabs(x);
    o[3] = copysign(x, y);
    o[4] = fdim(x, y);
    double r;
    asm("neg.f64 %0, %1;" : "=d"(r) : "d"(x));
    o[5] = r;
}

// Flush-to-zero and saturating forms through inline PTX (what -ftz=true
// would make nvcc emit). out K=14.
__global__ void f32_ftz_asm(float* out, const float* a, const float* b, const float* c, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float x = a[i], y = b[i], z = c[i];
    float r[13];
    asm("add.ftz.f32 %0, %1, %2;" : "=f"(r[0]) : "f"(x), "f"(y));
    asm("sub.ftz.f32 %0, %1, %2;" : "=f"(r[1]) : "f"(x), "f"(y));
    asm("mul.ftz.f32 %0, %1, %2;" : "=f"(r[2]) : "f"(x), "f"(y));
    asm("fma.rn.ftz.f32 %0, %1, %2, %3;" : "=f"(r[3]) : "f"(x), "f"(y), "f"(z));
    asm("div.rn.ftz.f32 %0, %1, %2;" : "=f"(r[4]) : "f"(x), "f"(y));
    asm("sqrt.rn.ftz.f32 %0, %1;" : "=f"(r[5]) : "f"(x));
    asm("rcp.rn.ftz.f32 %0, %1;" : "=f"(r[6]) : "f"(x));
    asm("add.sat.f32 %0, %1, %2;" : "=f"(r[7]) : "f"(x), "f"(y));
    asm("mul.ftz.sat.f32 %0, %1, %2;" : "=f"(r[8]) : "f"(x), "f"(y));
    asm("min.ftz.f32 %0, %1, %2;" : "=f"(r[9]) : "f"(x), "f"(y));
    asm("cvt.rni.ftz.f32.f32 %0, %1;" : "=f"(r[10]) : "f"(x));
    asm("fma.rn.sat.f32 %0, %1, %2, %3;" : "=f"(r[11]) : "f"(x), "f"(y), "f"(z));
    asm("{\n\t.reg .pred p;\n\t"
        "setp.lt.ftz.f32 p, %1, %2;\n\t"
        "selp.f32 %0, 1.0, 0.0, p;\n\t}"
        : "=f"(r[12]) : "f"(x), "f"(y));
    float* o = out + i * 14;
    for (int k = 0; k < 13; ++k) o[k] = r[k];
    double d;
    asm("cvt.ftz.f64.f32 %0, %1;" : "=d"(d) : "f"(x));
    o[13] = (float)(d * 0.5);
}

// Rounding to integral values: outf K=6 (rintf truncf floorf ceilf roundf
// modff), outd K=6 (f64 likewise, then modff's integral part), outl K=2
// (llrintf, llround on clamped values).
__global__ void fp_roundint(float* outf, double* outd, long long* outl, const float* a,
                            const double* ad, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float x = a[i];
    const double d = ad[i];
    float* o = outf + i * 6;
    o[0] = rintf(x);
    o[1] = truncf(x);
    o[2] = floorf(x);
    o[3] = ceilf(x);
    o[4] = roundf(x);
    float ip;
    o[5] = modff(x, &ip);
    double* p = outd + i * 6;
    p[0] = rint(d);
    p[1] = trunc(d);
    p[2] = floor(d);
    p[3] = ceil(d);
    p[4] = round(d);
    p[5] = (double)ip;
    // llrintf/llround are only defined for in-range values: clamp first.
    const float xc = fminf(fmaxf(x, -1.0e18f), 1.0e18f);
    const double dc = fmin(fmax(d, -1.0e18), 1.0e18);
    outl[2 * i] = (x == x) ? llrintf(xc) : 0;
    outl[2 * i + 1] = (d == d) ? llround(dc) : 0;
}

// Classification bits: f32 in bits 0..9, f64 in bits 16..25:
// isnan isinf isfinite signbit, testp.finite .infinite .number .notanumber
// .normal .subnormal.
__global__ void fp_classify(unsigned* out, const float* a, const double* ad, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float x = a[i];
    const double d = ad[i];
    unsigned m = 0;
    m |= isnan(x) ? 1u : 0u;
    m |= isinf(x) ? 2u : 0u;
    m |= isfinite(x) ? 4u : 0u;
    m |= signbit(x) ? 8u : 0u;
    unsigned t;
    asm("{\n\t.reg .pred p;\n\t"
        ".reg .u32 r;\n\t"
        "mov.u32 r, 0;\n\t"
        "testp.finite.f32 p, %1;     @p or.b32 r, r, 16;\n\t"
        "testp.infinite.f32 p, %1;   @p or.b32 r, r, 32;\n\t"
        "testp.number.f32 p, %1;     @p or.b32 r, r, 64;\n\t"
        "testp.notanumber.f32 p, %1; @p or.b32 r, r, 128;\n\t"
        "testp.normal.f32 p, %1;     @p or.b32 r, r, 256;\n\t"
        "testp.subnormal.f32 p, %1;  @p or.b32 r, r, 512;\n\t"
        "mov.u32 %0, r;\n\t}"
        : "=r"(t) : "f"(x));
    m |= t;
    m |= isnan(d) ? (1u << 16) : 0u;
    m |= isinf(d) ? (2u << 16) : 0u;
    m |= isfinite(d) ? (4u << 16) : 0u;
    m |= signbit(d) ? (8u << 16) : 0u;
    asm("{\n\t.reg .pred p;\n\t"
        ".reg .u32 r;\n\t"
        "mov.u32 r, 0;\n\t"
        "testp.finite.f64 p, %1;     @p or.b32 r, r, 16;\n\t"
        "testp.infinite.f64 p, %1;   @p or.b32 r, r, 32;\n\t"
        "testp.number.f64 p, %1;     @p or.b32 r, r, 64;\n\t"
        "testp.notanumber.f64 p, %1; @p or.b32 r, r, 128;\n\t"
        "testp.normal.f64 p, %1;     @p or.b32 r, r, 256;\n\t"
        "testp.subnormal.f64 p, %1;  @p or.b32 r, r, 512;\n\t"
        "mov.u32 %0, r;\n\t}"
        : "=r"(t) : "d"(d));
    m |= t << 16;
    out[i] = m;
}
