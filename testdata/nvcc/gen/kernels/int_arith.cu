// int_arith.cu — integer ALU coverage. Every kernel reads per-element inputs
// and writes K results per element to out[i*K + k]. Signed overflow and
// out-of-range shifts, which are undefined in C++, are done in unsigned
// arithmetic or through inline PTX, whose semantics are defined.
#include <climits>

// add/sub/mul.lo/mul.hi/mul.wide/mad/mul24/sad/abs/min/max on 32-bit values.
__global__ void int_basic32(unsigned* out, const unsigned* a, const unsigned* b,
                            const unsigned* c, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned x = a[i], y = b[i], z = c[i];
    const int sx = (int)x, sy = (int)y;
    unsigned* o = out + i * 20;
    o[0] = x + y;
    o[1] = x - y;
    o[2] = x * y;                              // mul.lo
    o[3] = __umulhi(x, y);                     // mul.hi.u32
    o[4] = (unsigned)__mulhi(sx, sy);          // mul.hi.s32
    o[5] = x * y + z;                          // mad.lo
    unsigned long long w = (unsigned long long)x * y;      // mul.wide.u32
    o[6] = (unsigned)w;
    o[7] = (unsigned)(w >> 32);
    long long sw = (long long)sx * sy;                      // mul.wide.s32
    o[8] = (unsigned)sw;
    o[9] = (unsigned)((unsigned long long)sw >> 32);
    o[10] = __umul24(x, y);
    o[11] = (unsigned)__mul24(sx, sy);
    o[12] = __usad(x, y, z);
    o[13] = __sad(sx, sy, z);
    o[14] = (unsigned)abs((int)(x | 1u));      // abs.s32 (operand never INT_MIN)
    o[15] = (unsigned)min(sx, sy);
    o[16] = (unsigned)max(sx, sy);
    o[17] = min(x, y);
    o[18] = max(x, y);
    o[19] = z - x * y;
}

// 64-bit add/sub/mul/mul.hi/mad/min/max/abs/shifts/bit counts.
__global__ void int_basic64(unsigned long long* out, const unsigned long long* a,
                            const unsigned long long* b, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned long long x = a[i], y = b[i];
    const long long sx = (long long)x, sy = (long long)y;
    unsigned long long* o = out + i * 16;
    o[0] = x + y;
    o[1] = x - y;
    o[2] = x * y;
    o[3] = __umul64hi(x, y);
    o[4] = (unsigned long long)__mul64hi(sx, sy);
    o[5] = x * y + (x ^ y);
    o[6] = (unsigned long long)llmin(sx, sy);
    o[7] = (unsigned long long)llmax(sx, sy);
    o[8] = ullmin(x, y);
    o[9] = ullmax(x, y);
    o[10] = (unsigned long long)llabs(sx | 1);
    o[11] = x << (y & 63);
    o[12] = x >> (y & 63);
    o[13] = (unsigned long long)(sx >> (y & 63));          // shr.s64
    o[14] = (unsigned long long)__popcll(x) | ((unsigned long long)__clzll(sx) << 8)
          | ((unsigned long long)__ffsll(sx) << 16);
    o[15] = __brevll(x);
}

// Division and remainder in C, skipping the cases C++ leaves undefined
// (divisor 0, INT_MIN / -1): those elements get the sentinel 0xDEADBEEF.
__global__ void int_divrem32(unsigned* out, const unsigned* a, const unsigned* b, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned x = a[i], y = b[i];
    const int sx = (int)x, sy = (int)y;
    unsigned* o = out + i * 4;
    if (y != 0) { o[0] = x / y; o[1] = x % y; }
    else        { o[0] = 0xDEADBEEFu; o[1] = 0xDEADBEEFu; }
    if (sy != 0 && !(sx == INT_MIN && sy == -1)) { o[2] = (unsigned)(sx / sy); o[3] = (unsigned)(sx % sy); }
    else                                          { o[2] = 0xDEADBEEFu; o[3] = 0xDEADBEEFu; }
}

__global__ void int_divrem64(unsigned long long* out, const unsigned long long* a,
                             const unsigned long long* b, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned long long x = a[i], y = b[i];
    const long long sx = (long long)x, sy = (long long)y;
    unsigned long long* o = out + i * 4;
    const unsigned long long bad = 0xDEADBEEFDEADBEEFull;
    if (y != 0) { o[0] = x / y; o[1] = x % y; }
    else        { o[0] = bad; o[1] = bad; }
    if (sy != 0 && !(sx == LLONG_MIN && sy == -1)) {
        o[2] = (unsigned long long)(sx / sy);
        o[3] = (unsigned long long)(sx % sy);
    } else { o[2] = bad; o[3] = bad; }
}

// div/rem through inline PTX for every pair, including divisor 0 and
// INT_MIN / -1, whose results PTX leaves to the machine: this records what
// the GPU does.
__global__ void int_div_edge32_asm(unsigned* out, const unsigned* a, const unsigned* b, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned x = a[i], y = b[i];
    unsigned q, r, qs, rs;
    asm("div.u32 %0, %1, %2;" : "=r"(q) : "r"(x), "r"(y));
    asm("rem.u32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y));
    asm("div.s32 %0, %1, %2;" : "=r"(qs) : "r"(x), "r"(y));
    asm("rem.s32 %0, %1, %2;" : "=r"(rs) : "r"(x), "r"(y));
    unsigned* o = out + i * 4;
    o[0] = q; o[1] = r; o[2] = qs; o[3] = rs;
}

__global__ void int_div_edge64_asm(unsigned long long* out, const unsigned long long* a,
                                   const unsigned long long* b, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned long long x = a[i], y = b[i];
    unsigned long long q, r, qs, rs;
    asm("div.u64 %0, %1, %2;" : "=l"(q) : "l"(x), "l"(y));
    asm("rem.u64 %0, %1, %2;" : "=l"(r) : "l"(x), "l"(y));
    asm("div.s64 %0, %1, %2;" : "=l"(qs) : "l"(x), "l"(y));
    asm("rem.s64 %0, %1, %2;" : "=l"(rs) : "l"(x), "l"(y));
    unsigned long long* o = out + i * 4;
    o[0] = q; o[1] = r; o[2] = qs; o[3] = rs;
}

// popc/clz/ffs/brev/prmt/shf/fns, 32- and 64-bit.
__global__ void int_bits(unsigned* out, const unsigned* a, const unsigned* b,
                         const unsigned* c, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned x = a[i], y = b[i], z = c[i];
    unsigned* o = out + i * 16;
    o[0] = __popc(x);
    o[1] = (unsigned)__clz((int)x);
    o[2] = (unsigned)__ffs((int)x);
    o[3] = __brev(x);
    o[4] = __byte_perm(x, y, z);                 // prmt.b32
    o[5] = __funnelshift_l(x, y, z);             // shf.l.wrap
    o[6] = __funnelshift_r(x, y, z);             // shf.r.wrap
    o[7] = __funnelshift_lc(x, y, z);            // shf.l.clamp
    o[8] = __funnelshift_rc(x, y, z);            // shf.r.clamp
    const unsigned long long xy = ((unsigned long long)y << 32) | x;
    o[9] = (unsigned)__popcll(xy);
    o[10] = (unsigned)__clzll((long long)xy);
    o[11] = (unsigned)__ffsll((long long)xy);
    const unsigned long long br = __brevll(xy);
    o[12] = (unsigned)br;
    o[13] = (unsigned)(br >> 32);
    o[14] = x & ~y;
    o[15] = __fns(x, y & 31, (int)(z % 64) - 32);  // fns.b32: n-th set bit
}

// SIMD-in-a-word intrinsics and dp4a/dp2a.
__global__ void int_simd(unsigned* out, const unsigned* a, const unsigned* b,
                         const unsigned* c, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned x = a[i], y = b[i], z = c[i];
    unsigned* o = out + i * 13;
    o[0] = __vadd4(x, y);
    o[1] = __vsub4(x, y);
    o[2] = __vabsdiffu4(x, y);
    o[3] = __vcmpgtu4(x, y);
    o[4] = __vmaxu4(x, y);
    o[5] = __vavgu4(x, y);
    o[6] = __vadd2(x, y);
    o[7] = __vsubss2(x, y);
    o[8] = __vhaddu2(x, y);
    o[9] = (unsigned)__dp4a((int)x, (int)y, (int)z);   // dp4a.s32.s32
    o[10] = __dp4a(x, y, z);                            // dp4a.u32.u32
    o[11] = (unsigned)__dp2a_lo((int)x, (int)y, (int)z);
    o[12] = __dp2a_hi(x, y, z);
}

// Shifts with counts 0..70 and beyond (clamped by PTX), via inline asm; the C
// shift with a masked count; shf with both modes. out32 K=8, out64 K=3.
__global__ void int_shift_asm(unsigned* out32, unsigned long long* out64, const unsigned* a,
                              const unsigned long long* a64, const unsigned* cnt, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned x = a[i], s = cnt[i];
    const unsigned long long X = a64[i];
    unsigned r0, r1, r2, r3, r4;
    asm("shl.b32 %0, %1, %2;" : "=r"(r0) : "r"(x), "r"(s));
    asm("shr.u32 %0, %1, %2;" : "=r"(r1) : "r"(x), "r"(s));
    asm("shr.s32 %0, %1, %2;" : "=r"(r2) : "r"(x), "r"(s));
    asm("shf.l.wrap.b32 %0, %1, %2, %3;" : "=r"(r3) : "r"(x), "r"(~x), "r"(s));
    asm("shf.r.clamp.b32 %0, %1, %2, %3;" : "=r"(r4) : "r"(x), "r"(~x), "r"(s));
    unsigned* o = out32 + i * 8;
    o[0] = r0; o[1] = r1; o[2] = r2; o[3] = r3; o[4] = r4;
    o[5] = x << (s & 31);
    o[6] = x >> (s & 31);
    o[7] = (unsigned)((int)x >> (s & 31));
    unsigned long long q0, q1, q2;
    asm("shl.b64 %0, %1, %2;" : "=l"(q0) : "l"(X), "r"(s));
    asm("shr.u64 %0, %1, %2;" : "=l"(q1) : "l"(X), "r"(s));
    asm("shr.s64 %0, %1, %2;" : "=l"(q2) : "l"(X), "r"(s));
    unsigned long long* p = out64 + i * 3;
    p[0] = q0; p[1] = q1; p[2] = q2;
}

// bfe/bfi with positions and lengths from data (including 0, >= width, > 255).
__global__ void int_bfe_bfi_asm(unsigned* out32, unsigned long long* out64, const unsigned* a,
                                const unsigned* b, const unsigned long long* a64,
                                const unsigned* pos, const unsigned* len, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned x = a[i], y = b[i], p = pos[i], l = len[i];
    const unsigned long long X = a64[i], Y = ~a64[i] * 0x9E3779B97F4A7C15ull;
    unsigned r0, r1, r2;
    asm("bfe.u32 %0, %1, %2, %3;" : "=r"(r0) : "r"(x), "r"(p), "r"(l));
    asm("bfe.s32 %0, %1, %2, %3;" : "=r"(r1) : "r"(x), "r"(p), "r"(l));
    asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(r2) : "r"(x), "r"(y), "r"(p), "r"(l));
    unsigned long long q0, q1, q2;
    asm("bfe.u64 %0, %1, %2, %3;" : "=l"(q0) : "l"(X), "r"(p), "r"(l));
    asm("bfe.s64 %0, %1, %2, %3;" : "=l"(q1) : "l"(X), "r"(p), "r"(l));
    asm("bfi.b64 %0, %1, %2, %3, %4;" : "=l"(q2) : "l"(X), "l"(Y), "r"(p), "r"(l));
    unsigned* o = out32 + i * 3;
    o[0] = r0; o[1] = r1; o[2] = r2;
    unsigned long long* q = out64 + i * 3;
    q[0] = q0; q[1] = q1; q[2] = q2;
}

// Mixed boolean expressions (nvcc -O3 folds them into lop3.b32) and lop3
// with explicit truth tables.
__global__ void int_lop3(unsigned* out, const unsigned* a, const unsigned* b,
                         const unsigned* c, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned x = a[i], y = b[i], z = c[i];
    unsigned* o = out + i * 14;
    o[0] = (x & y) | (~x & z);
    o[1] = x ^ y ^ z;
    o[2] = (x | y) & ~z;
    o[3] = ~(x & y) ^ z;
    o[4] = (x & y) | (y & z) | (x & z);
    o[5] = (x & ~y) | (~x & y & z);
    unsigned r[8];
    asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(r[0]) : "r"(x), "r"(y), "r"(z));
    asm("lop3.b32 %0, %1, %2, %3, 0xE8;" : "=r"(r[1]) : "r"(x), "r"(y), "r"(z));
    asm("lop3.b32 %0, %1, %2, %3, 0xCA;" : "=r"(r[2]) : "r"(x), "r"(y), "r"(z));
    asm("lop3.b32 %0, %1, %2, %3, 0x1E;" : "=r"(r[3]) : "r"(x), "r"(y), "r"(z));
    asm("lop3.b32 %0, %1, %2, %3, 0x00;" : "=r"(r[4]) : "r"(x), "r"(y), "r"(z));
    asm("lop3.b32 %0, %1, %2, %3, 0xFF;" : "=r"(r[5]) : "r"(x), "r"(y), "r"(z));
    asm("lop3.b32 %0, %1, %2, %3, 0x80;" : "=r"(r[6]) : "r"(x), "r"(y), "r"(z));
    asm("lop3.b32 %0, %1, %2, %3, 0x6A;" : "=r"(r[7]) : "r"(x), "r"(y), "r"(z));
    for (int k = 0; k < 8; ++k) o[6 + k] = r[k];
}

// Multi-word arithmetic with carry chains (add.cc/addc/sub.cc/subc/mad.cc/
// madc), saturating add/sub, mul24.hi, mad.hi.sat. Each element is a pair of
// 128-bit numbers given as 4 little-endian 32-bit limbs. out K=24.
__global__ void int_carry_asm(unsigned* out, const unsigned* a, const unsigned* b, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned a0 = a[4 * i], a1 = a[4 * i + 1], a2 = a[4 * i + 2], a3 = a[4 * i + 3];
    const unsigned b0 = b[4 * i], b1 = b[4 * i + 1], b2 = b[4 * i + 2], b3 = b[4 * i + 3];
    unsigned* o = out + i * 24;
    unsigned s0, s1, s2, s3;
    asm("add.cc.u32 %0, %4, %8;\n\t"
        "addc.cc.u32 %1, %5, %9;\n\t"
        "addc.cc.u32 %2, %6, %10;\n\t"
        "addc.u32 %3, %7, %11;"
        : "=r"(s0), "=r"(s1), "=r"(s2), "=r"(s3)
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "r"(b2), "r"(b3));
    o[0] = s0; o[1] = s1; o[2] = s2; o[3] = s3;
    asm("sub.cc.u32 %0, %4, %8;\n\t"
        "subc.cc.u32 %1, %5, %9;\n\t"
        "subc.cc.u32 %2, %6, %10;\n\t"
        "subc.u32 %3, %7, %11;"
        : "=r"(s0), "=r"(s1), "=r"(s2), "=r"(s3)
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "r"(b2), "r"(b3));
    o[4] = s0; o[5] = s1; o[6] = s2; o[7] = s3;
    // (a1:a0) * (b1:b0) -> 128 bits with mad.lo.cc / madc.hi chains.
    unsigned p0, p1, p2, p3;
    asm("{\n\t"
        ".reg .u32 t0, t1, t2, t3;\n\t"
        "mul.lo.u32 t0, %4, %6;\n\t"
        "mul.hi.u32 t1, %4, %6;\n\t"
        "mad.lo.cc.u32 t1, %4, %7, t1;\n\t"
        "madc.hi.u32 t2, %4, %7, 0;\n\t"
        "mad.lo.cc.u32 t1, %5, %6, t1;\n\t"
        "madc.hi.cc.u32 t2, %5, %6, t2;\n\t"
        "madc.hi.u32 t3, %5, %7, 0;\n\t"
        "mad.lo.cc.u32 t2, %5, %7, t2;\n\t"
        "addc.u32 t3, t3, 0;\n\t"
        "mov.u32 %0, t0;\n\t"
        "mov.u32 %1, t1;\n\t"
        "mov.u32 %2, t2;\n\t"
        "mov.u32 %3, t3;\n\t"
        "}"
        : "=r"(p0), "=r"(p1), "=r"(p2), "=r"(p3)
        : "r"(a0), "r"(a1), "r"(b0), "r"(b1));
    o[8] = p0; o[9] = p1; o[10] = p2; o[11] = p3;
    // The same product with native 64-bit multiplies, for comparison.
    const unsigned long long A = ((unsigned long long)a1 << 32) | a0;
    const unsigned long long B = ((unsigned long long)b1 << 32) | b0;
    const unsigned long long lo = A * B, hi = __umul64hi(A, B);
    o[12] = (unsigned)lo; o[13] = (unsigned)(lo >> 32);
    o[14] = (unsigned)hi; o[15] = (unsigned)(hi >> 32);
    // 128-bit add with 64-bit carry ops.
    const unsigned long long AH = ((unsigned long long)a3 << 32) | a2;
    const unsigned long long BH = ((unsigned long long)b3 << 32) | b2;
    unsigned long long rl, rh;
    asm("add.cc.u64 %0, %2, %4;\n\t"
        "addc.u64 %1, %3, %5;"
        : "=l"(rl), "=l"(rh) : "l"(A), "l"(AH), "l"(B), "l"(BH));
    o[16] = (unsigned)rl; o[17] = (unsigned)(rl >> 32);
    o[18] = (unsigned)rh; o[19] = (unsigned)(rh >> 32);
    unsigned t0, t1, t2, t3;
    asm("add.sat.s32 %0, %1, %2;" : "=r"(t0) : "r"(a0), "r"(b0));
    asm("sub.sat.s32 %0, %1, %2;" : "=r"(t1) : "r"(a0), "r"(b0));
    asm("mul24.hi.u32 %0, %1, %2;" : "=r"(t2) : "r"(a0), "r"(b0));
    asm("mad.hi.sat.s32 %0, %1, %2, %3;" : "=r"(t3) : "r"(a0), "r"(b0), "r"(a1));
    o[20] = t0; o[21] = t1; o[22] = t2; o[23] = t3;
}

// 8- and 16-bit loads and stores, sign and zero extension, narrow wraparound.
__global__ void int_small_types(int* out, signed char* o8, short* o16, const signed char* s8,
                                const unsigned char* u8, const short* s16,
                                const unsigned short* u16, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const signed char a = s8[i];
    const unsigned char b = u8[i];
    const short c = s16[i];
    const unsigned short d = u16[i];
    int* o = out + i * 8;
    o[0] = a;                                  // ld.global.s8
    o[1] = b;                                  // ld.global.u8
    o[2] = c;                                  // ld.global.s16
    o[3] = d;                                  // ld.global.u16
    o[4] = (int)(unsigned char)(a + b);
    o[5] = (int)(short)(c * d);
    o[6] = (int)(signed char)(c >> 3);
    o[7] = a * (int)c + b - d;
    o8[i] = (signed char)(a ^ (signed char)b); // st.global.u8
    o16[i] = (short)(c + d);                   // st.global.u16
}
