// Physics, finance and signal kernels: n-body, Lennard-Jones forces over a
// neighbour list (SHOC MD style), Black-Scholes, a Monte Carlo estimate with
// an integer generator, a 256-point FFT per block, SRAD (Rodinia).
// Deterministic.

// All-pairs n-body accelerations with shared tiles of positions (float4:
// x, y, z, mass); softening eps2. blockDim.x = 128, n a multiple of 128.
__global__ void nbody_tiled(float4* __restrict__ acc, const float4* __restrict__ pos, unsigned n,
                            float eps2)
{
    __shared__ float4 sh[128];
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 p = pos[i];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (unsigned t = 0; t < n; t += 128) {
        sh[threadIdx.x] = pos[t + threadIdx.x];
        __syncthreads();
        for (int j = 0; j < 128; j++) {
            float4 q = sh[j];
            float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
            float r2 = dx * dx + dy * dy + dz * dz + eps2;
            float inv = rsqrtf(r2);
            float s = q.w * inv * inv * inv;
            ax += dx * s;
            ay += dy * s;
            az += dz * s;
        }
        __syncthreads();
    }
    acc[i] = make_float4(ax, ay, az, 0.0f);
}

// Lennard-Jones forces over a fixed-width neighbour list (SHOC MD).
__global__ void md_lj(float4* __restrict__ force, const float4* __restrict__ pos,
                      const unsigned* __restrict__ nbr, unsigned n, unsigned maxn, float cut2,
                      float lj1, float lj2)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 p = pos[i];
    float fx = 0.0f, fy = 0.0f, fz = 0.0f;
    for (unsigned k = 0; k < maxn; k++) {
        unsigned j = nbr[k * n + i];
        if (j == i) continue;
        float4 q = pos[j];
        float dx = p.x - q.x, dy = p.y - q.y, dz = p.z - q.z;
        float r2 = dx * dx + dy * dy + dz * dz;
        if (r2 < cut2) {
            float r2i = 1.0f / r2;
            float r6i = r2i * r2i * r2i;
            float f = r2i * r6i * (lj1 * r6i - lj2);
            fx += dx * f;
            fy += dy * f;
            fz += dz * f;
        }
    }
    force[i] = make_float4(fx, fy, fz, 0.0f);
}

__device__ __forceinline__ float cnd(float d)
{
    const float A1 = 0.31938153f, A2 = -0.356563782f, A3 = 1.781477937f, A4 = -1.821255978f,
                A5 = 1.330274429f, RSQRT2PI = 0.39894228040143267794f;
    float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
    float c = RSQRT2PI * expf(-0.5f * d * d) * (k * (A1 + k * (A2 + k * (A3 + k * (A4 + k * A5)))));
    return d > 0.0f ? 1.0f - c : c;
}

// Black-Scholes call and put prices (the CUDA samples' formula).
__global__ void black_scholes(float* __restrict__ call, float* __restrict__ put,
                              const float* __restrict__ S, const float* __restrict__ X,
                              const float* __restrict__ T, unsigned n, float r, float v)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float s = S[i], x = X[i], t = T[i];
    float sq = sqrtf(t);
    float d1 = (logf(s / x) + (r + 0.5f * v * v) * t) / (v * sq);
    float d2 = d1 - v * sq;
    float c1 = cnd(d1), c2 = cnd(d2);
    float e = expf(-r * t);
    call[i] = s * c1 - x * e * c2;
    put[i] = x * e * (1.0f - c2) - s * (1.0f - c1);
}

// Monte Carlo estimate of pi: xorshift32 per thread, points in the unit
// square counted inside the quarter circle; one count per thread.
__global__ void monte_carlo_pi(unsigned* __restrict__ hits, unsigned iters, unsigned seed)
{
    unsigned id = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned s = seed ^ (id * 2654435761u);
    if (s == 0) s = 1;
    unsigned h = 0;
    for (unsigned k = 0; k < iters; k++) {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        float x = (float)(s >> 8) * (1.0f / 16777216.0f);
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        float y = (float)(s >> 8) * (1.0f / 16777216.0f);
        if (x * x + y * y <= 1.0f) h++;
    }
    hits[id] = h;
}

// A 256-point complex FFT per block (128 threads, radix 2, decimation in
// time after a bit-reversal permutation), twiddles from sincosf.
__global__ void fft256(float2* __restrict__ out, const float2* __restrict__ in)
{
    __shared__ float2 s[256];
    unsigned t = threadIdx.x;
    const float2* src = in + blockIdx.x * 256;
    for (unsigned k = t; k < 256; k += 128) s[__brev(k) >> 24] = src[k];
    __syncthreads();
    for (unsigned len = 2; len <= 256; len <<= 1) {
        unsigned half = len >> 1;
        unsigned grp = t / half, pos = t % half;
        unsigned a = grp * len + pos, b = a + half;
        float sn, cs;
        sincosf(-6.283185307179586f * (float)pos / (float)len, &sn, &cs);
        float2 u = s[a], w = s[b];
        float2 tw = make_float2(w.x * cs - w.y * sn, w.x * sn + w.y * cs);
        __syncthreads();
        s[a] = make_float2(u.x + tw.x, u.y + tw.y);
        s[b] = make_float2(u.x - tw.x, u.y - tw.y);
        __syncthreads();
    }
    for (unsigned k = t; k < 256; k += 128) out[blockIdx.x * 256 + k] = s[k];
}

// SRAD (speckle reducing anisotropic diffusion), step 1: directional
// derivatives and the diffusion coefficient per pixel (clamped borders).
__global__ void srad_coeff(float* __restrict__ c, float* __restrict__ dN, float* __restrict__ dS,
                           float* __restrict__ dW, float* __restrict__ dE, const float* __restrict__ J,
                           int rows, int cols, float q0sqr)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= cols || y >= rows) return;
    int k = y * cols + x;
    float jc = J[k];
    float n = J[max(y - 1, 0) * cols + x] - jc, s = J[min(y + 1, rows - 1) * cols + x] - jc;
    float w = J[y * cols + max(x - 1, 0)] - jc, e = J[y * cols + min(x + 1, cols - 1)] - jc;
    float g2 = (n * n + s * s + w * w + e * e) / (jc * jc);
    float l = (n + s + w + e) / jc;
    float num = 0.5f * g2 - (1.0f / 16.0f) * (l * l);
    float den = 1.0f + 0.25f * l;
    float qsqr = num / (den * den);
    den = (qsqr - q0sqr) / (q0sqr * (1.0f + q0sqr));
    float cc = 1.0f / (1.0f + den);
    c[k] = fminf(fmaxf(cc, 0.0f), 1.0f);
    dN[k] = n;
    dS[k] = s;
    dW[k] = w;
    dE[k] = e;
}

// SRAD step 2: J += lambda/4 * (cN dN + cS dS + cW dW + cE dE).
__global__ void srad_update(float* __restrict__ J, const float* __restrict__ c,
                            const float* __restrict__ dN, const float* __restrict__ dS,
                            const float* __restrict__ dW, const float* __restrict__ dE, int rows,
                            int cols, float lambda)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= cols || y >= rows) return;
    int k = y * cols + x;
    float cn = c[k], cs = c[min(y + 1, rows - 1) * cols + x];
    float cw = c[k], ce = c[y * cols + min(x + 1, cols - 1)];
    float d = cn * dN[k] + cs * dS[k] + cw * dW[k] + ce * dE[k];
    J[k] += 0.25f * lambda * d;
}
