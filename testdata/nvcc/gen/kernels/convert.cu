// convert.cu — conversions: float<->int in every rounding mode (with the
// saturation the cvt instruction defines for NaN and out-of-range values),
// int->float, f64<->f32, f16 and bf16, narrowing/widening integer casts and
// saturating cvt forms through inline PTX.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

// f32 -> s32/u32 (out32 K=8) and s64/u64 (out64 K=8), rn rz ru rd.
__global__ void cvt_f2i(unsigned* out32, unsigned long long* out64, const float* a, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float x = a[i];
    unsigned* o = out32 + i * 8;
    o[0] = (unsigned)__float2int_rn(x);
    o[1] = (unsigned)__float2int_rz(x);
    o[2] = (unsigned)__float2int_ru(x);
    o[3] = (unsigned)__float2int_rd(x);
    o[4] = __float2uint_rn(x);
    o[5] = __float2uint_rz(x);
    o[6] = __float2uint_ru(x);
    o[7] = __float2uint_rd(x);
    unsigned long long* p = out64 + i * 8;
    p[0] = (unsigned long long)__float2ll_rn(x);
    p[1] = (unsigned long long)__float2ll_rz(x);
    p[2] = (unsigned long long)__float2ll_ru(x);
    p[3] = (unsigned long long)__float2ll_rd(x);
    p[4] = __float2ull_rn(x);
    p[5] = __float2ull_rz(x);
    p[6] = __float2ull_ru(x);
    p[7] = __float2ull_rd(x);
}

// f64 -> s32/u32 (out32 K=8) and s64/u64 (out64 K=8), rn rz ru rd.
__global__ void cvt_d2i(unsigned* out32, unsigned long long* out64, const double* a, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const double x = a[i];
    unsigned* o = out32 + i * 8;
    o[0] = (unsigned)__double2int_rn(x);
    o[1] = (unsigned)__double2int_rz(x);
    o[2] = (unsigned)__double2int_ru(x);
    o[3] = (unsigned)__double2int_rd(x);
    o[4] = __double2uint_rn(x);
    o[5] = __double2uint_rz(x);
    o[6] = __double2uint_ru(x);
    o[7] = __double2uint_rd(x);
    unsigned long long* p = out64 + i * 8;
    p[0] = (unsigned long long)__double2ll_rn(x);
    p[1] = (unsigned long long)__double2ll_rz(x);
    p[2] = (unsigned long long)__double2ll_ru(x);
    p[3] = (unsigned long long)__double2ll_rd(x);
    p[4] = __double2ull_rn(x);
    p[5] = __double2ull_rz(x);
    p[6] = __double2ull_ru(x);
    p[7] = __double2ull_rd(x);
}

// s32/u32/s64/u64 -> f32 (outf K=16) and -> f64 (outd K=10).
__global__ void cvt_i2f(float* outf, double* outd, const unsigned* a32,
                        const unsigned long long* a64, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned u = a32[i];
    const int s = (int)u;
    const unsigned long long U = a64[i];
    const long long S = (long long)U;
    float* o = outf + i * 16;
    o[0] = __int2float_rn(s);  o[1] = __int2float_rz(s);  o[2] = __int2float_ru(s);  o[3] = __int2float_rd(s);
    o[4] = __uint2float_rn(u); o[5] = __uint2float_rz(u); o[6] = __uint2float_ru(u); o[7] = __uint2float_rd(u);
    o[8] = __ll2float_rn(S);   o[9] = __ll2float_rz(S);   o[10] = __ll2float_ru(S);  o[11] = __ll2float_rd(S);
    o[12] = __ull2float_rn(U); o[13] = __ull2float_rz(U); o[14] = __ull2float_ru(U); o[15] = __ull2float_rd(U);
    double* p = outd + i * 10;
    p[0] = __int2double_rn(s);
    p[1] = __uint2double_rn(u);
    p[2] = __ll2double_rn(S);  p[3] = __ll2double_rz(S);  p[4] = __ll2double_ru(S);  p[5] = __ll2double_rd(S);
    p[6] = __ull2double_rn(U); p[7] = __ull2double_rz(U); p[8] = __ull2double_ru(U); p[9] = __ull2double_rd(U);
}

// f64 -> f32 in each rounding (outf K=4), f32 -> f64 widening and hi/lo word
// access (outd K=2, outi K=2).
__global__ void cvt_fp_width(float* outf, double* outd, int* outi, const double* a,
                             const float* b, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const double x = a[i];
    const float y = b[i];
    float* o = outf + i * 4;
    o[0] = __double2float_rn(x);
    o[1] = __double2float_rz(x);
    o[2] = __double2float_ru(x);
    o[3] = __double2float_rd(x);
    outd[2 * i] = (double)y;                                        // cvt.f64.f32
    outd[2 * i + 1] = __hiloint2double(__double2loint(x), __double2hiint(x));  // words swapped
    outi[2 * i] = __double2hiint(x);
    outi[2 * i + 1] = __double2loint(x);
}

// f16: f32->f16 in each rounding, f64->f16, half2 packing, f16->f32, f16
// arithmetic (sm_53+ native), f16<->int. outh (raw bits) K=14, outf K=2.
__global__ void cvt_f16(unsigned short* outh, float* outf, int* outi, const float* a,
                        const unsigned short* h, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float x = a[i];
    unsigned short* o = outh + i * 14;
    o[0] = __half_as_ushort(__float2half_rn(x));
    o[1] = __half_as_ushort(__float2half_rz(x));
    o[2] = __half_as_ushort(__float2half_ru(x));
    o[3] = __half_as_ushort(__float2half_rd(x));
    o[4] = __half_as_ushort(__double2half((double)x * 1.0000001));
    const __half2 p = __floats2half2_rn(x, -x * 0.5f);
    o[5] = __half_as_ushort(__low2half(p));
    o[6] = __half_as_ushort(__high2half(p));
    const __half hv = __ushort_as_half(h[i]);
    const __half hw = __ushort_as_half(h[(i + 1) % n]);
    o[7] = __half_as_ushort(__hadd(hv, hw));
    o[8] = __half_as_ushort(__hmul(hv, hw));
    o[9] = __half_as_ushort(__hfma(hv, hw, hv));
    o[10] = __half_as_ushort(__hsub(hv, hw));
    o[11] = __half_as_ushort(__hneg(hv));
    const __half2 q = __hadd2(__halves2half2(hv, hw), __halves2half2(hw, hw));
    o[12] = __half_as_ushort(__low2half(q));
    o[13] = __half_as_ushort(__int2half_rn(__float2int_rz(x * 16.0f) & 0xFFFF));
    outf[2 * i] = __half2float(hv);
    outf[2 * i + 1] = __low2float(q);
    outi[i] = __half2int_rz(hv);
}

// bf16: f32->bf16 in each rounding, f64->bf16, bf16->f32, bf16 arithmetic
// (native add/mul/fma.bf16 on sm_90). outb (raw bits) K=10, outf K=1.
__global__ void cvt_bf16(unsigned short* outb, float* outf, const float* a,
                         const unsigned short* h, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float x = a[i];
    unsigned short* o = outb + i * 10;
    o[0] = __bfloat16_as_ushort(__float2bfloat16_rn(x));
    o[1] = __bfloat16_as_ushort(__float2bfloat16_rz(x));
    o[2] = __bfloat16_as_ushort(__float2bfloat16_ru(x));
    o[3] = __bfloat16_as_ushort(__float2bfloat16_rd(x));
    o[4] = __bfloat16_as_ushort(__double2bfloat16((double)x * 1.0000001));
    const __nv_bfloat162 p = __floats2bfloat162_rn(x, x * 3.0f);
    o[5] = __bfloat16_as_ushort(__high2bfloat16(p));
    const __nv_bfloat16 bv = __ushort_as_bfloat16(h[i]);
    const __nv_bfloat16 bw = __ushort_as_bfloat16(h[(i + 1) % n]);
    o[6] = __bfloat16_as_ushort(__hadd(bv, bw));
    o[7] = __bfloat16_as_ushort(__hmul(bv, bw));
    o[8] = __bfloat16_as_ushort(__hfma(bv, bw, bv));
    o[9] = __bfloat16_as_ushort(__hsub(bv, bw));
    outf[i] = __bfloat162float(bv);
}

// Narrowing and widening integer casts (out K=8) and saturating cvt through
// inline PTX into 16- and 32-bit registers (outs K=8).
__global__ void cvt_int_width(unsigned long long* out, unsigned* outs,
                              const unsigned long long* a, const float* f, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned long long x = a[i];
    unsigned long long* o = out + i * 8;
    o[0] = (unsigned char)x;
    o[1] = (unsigned long long)(long long)(signed char)x;
    o[2] = (unsigned short)x;
    o[3] = (unsigned long long)(long long)(short)x;
    o[4] = (unsigned)x;
    o[5] = (unsigned long long)(long long)(int)x;
    o[6] = (unsigned long long)(long long)(signed char)(short)(x >> 5);
    o[7] = (unsigned long long)(unsigned char)(int)(x >> 13);
    const unsigned u = (unsigned)x;
    const float y = f[i];
    unsigned short h0, h1, h2, h3;
    unsigned r0, r1, r2, r3;
    asm("cvt.sat.s8.s32 %0, %1;" : "=h"(h0) : "r"(u));
    asm("cvt.sat.u8.s32 %0, %1;" : "=h"(h1) : "r"(u));
    asm("cvt.rni.s8.f32 %0, %1;" : "=h"(h2) : "f"(y));
    asm("cvt.rzi.u16.f32 %0, %1;" : "=h"(h3) : "f"(y));
    asm("cvt.sat.s16.s32 %0, %1;" : "=r"(r0) : "r"(u));
    asm("cvt.sat.u16.s32 %0, %1;" : "=r"(r1) : "r"(u));
    asm("cvt.sat.s32.s64 %0, %1;" : "=r"(r2) : "l"(x));
    asm("cvt.sat.u32.s64 %0, %1;" : "=r"(r3) : "l"(x));
    unsigned* q = outs + i * 8;
    q[0] = h0; q[1] = h1; q[2] = h2; q[3] = h3;
    q[4] = r0; q[5] = r1; q[6] = r2; q[7] = r3;
}
