// float_libm.cu — CUDA math library calls. The full-precision functions are
// long FMA/integer sequences with local arrays (Payne-Hanek reduction for huge
// trig arguments) and module-level .global/.const tables; the intrinsics map
// to the special-function unit (ex2/lg2/sin/cos/rsqrt/rcp .approx).
#include <cmath>

// Full-precision f32 trig: sinf cosf sincosf. These compile to FMA and
// integer code only (Payne-Hanek reduction with a local array and the
// __cudart_i2opi_f table for huge arguments): bit-exact. out K=4.
__global__ void libm_f32_trig(float* out, const float* a, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float x = a[i];
    float* o = out + i * 4;
    o[0] = sinf(x);
    o[1] = cosf(x);
    float s, c;
    sincosf(x * 0.5f, &s, &c);
    o[2] = s;
    o[3] = c;
}

// f32 library functions whose code uses no approximate instruction (checked
// with nvcc 11.8; the manifest lists what nvcc 13 emitted). out K=10, outi K=2.
__global__ void libm_f32_exact(float* out, int* outi, const float* a, const float* b, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float x = a[i], y = b[i];
    float* o = out + i * 10;
    o[0] = logf(fabsf(x));
    o[1] = log2f(fabsf(x));
    o[2] = log1pf(x);
    o[3] = hypotf(x, y);
    o[4] = atan2f(x, y);
    o[5] = asinf(x);
    o[6] = atanf(x);
    o[7] = sinpif(x);
    o[8] = nextafterf(x, y);
    int e;
    o[9] = frexpf(x, &e);
    outi[2 * i] = e;
    outi[2 * i + 1] = ilogbf(x);
}

// f32 library functions whose code goes through ex2/lg2/rcp/div .approx:
// compare with a tolerance. out K=12.
__global__ void libm_f32_sfu(float* out, const float* a, const float* b, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float x = a[i], y = b[i];
    float* o = out + i * 12;
    o[0] = expf(x);
    o[1] = exp2f(x);
    o[2] = expm1f(x);
    o[3] = powf(fabsf(x), y);
    o[4] = tanhf(x);
    o[5] = tanf(x);
    o[6] = fmodf(x, y);
    o[7] = remainderf(x, y);
    o[8] = ldexpf(x, (int)y);
    o[9] = __frsqrt_rn(x);
    o[10] = cbrtf(x);
    o[11] = erff(x);
}

// f64 library functions without approximate instructions. out K=4.
__global__ void libm_f64(double* out, const double* a, const double* b, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const double x = a[i], y = b[i];
    double* o = out + i * 4;
    o[0] = sin(x);
    o[1] = cos(x);
    o[2] = exp(y);
    o[3] = atan2(x, y);
}

// f64 log and pow, which start from rcp.approx.ftz.f64. out K=2.
__global__ void libm_f64_sfu(double* out, const double* a, const double* b, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const double x = a[i], y = b[i];
    out[2 * i] = log(fabs(x));
    out[2 * i + 1] = pow(fabs(x), y * 0.125);
}

// Fast intrinsics (SFU approximations). out K=12.
__global__ void fast_intrinsics(float* out, const float* a, const float* p, const float* b, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float x = a[i];   // in [-pi, pi]
    const float q = p[i];   // positive
    const float y = b[i];   // in [-4, 4]
    float* o = out + i * 12;
    o[0] = __sinf(x);
    o[1] = __cosf(x);
    o[2] = __expf(y);
    o[3] = __logf(q);
    o[4] = __exp10f(y * 0.25f);
    o[5] = __log2f(q);
    o[6] = __log10f(q);
    o[7] = __powf(q, y * 0.25f);
    o[8] = rsqrtf(q);
    o[9] = __fdividef(x, q);
    o[10] = __tanf(x * 0.25f);
    float s, c;
    __sincosf(x, &s, &c);
    o[11] = s * c;
}

// The special-function-unit instructions themselves, through inline PTX.
// out K=10 f32, outd K=2 f64.
__global__ void sfu_asm(float* out, double* outd, const float* a, const float* p, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float x = a[i];   // in [-pi, pi]
    const float q = p[i];   // positive
    float r[10];
    asm("ex2.approx.f32 %0, %1;" : "=f"(r[0]) : "f"(x));
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r[1]) : "f"(x * 4.0f));
    asm("lg2.approx.f32 %0, %1;" : "=f"(r[2]) : "f"(q));
    asm("sin.approx.f32 %0, %1;" : "=f"(r[3]) : "f"(x));
    asm("cos.approx.f32 %0, %1;" : "=f"(r[4]) : "f"(x));
    asm("rcp.approx.f32 %0, %1;" : "=f"(r[5]) : "f"(q));
    asm("rsqrt.approx.f32 %0, %1;" : "=f"(r[6]) : "f"(q));
    asm("sqrt.approx.f32 %0, %1;" : "=f"(r[7]) : "f"(q));
    asm("div.approx.f32 %0, %1, %2;" : "=f"(r[8]) : "f"(x), "f"(q));
    asm("div.full.f32 %0, %1, %2;" : "=f"(r[9]) : "f"(x), "f"(q));
    float* o = out + i * 10;
    for (int k = 0; k < 10; ++k) o[k] = r[k];
    double d0, d1;
    asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(d0) : "d"((double)q));
    asm("rsqrt.approx.f64 %0, %1;" : "=d"(d1) : "d"((double)q));
    outd[2 * i] = d0;
    outd[2 * i + 1] = d1;
}

// tanh.approx.f32 (sm_75+): relative error about 2^-11.
__global__ void tanh_approx_asm(float* out, const float* a, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float r;
    asm("tanh.approx.f32 %0, %1;" : "=f"(r) : "f"(a[i]));
    out[i] = r;
}
