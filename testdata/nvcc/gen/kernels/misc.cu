// misc.cu — small applications: Mandelbrot (divergent float loop), an n-body
// acceleration step (IEEE sqrt/div, and the rsqrtf approximation), sgemv, a
// dot product with a shared-memory reduction, and a per-block histogram
// without atomics.

// Escape-time iteration counts on a w x h grid of points.
__global__ void mandelbrot(unsigned* iters, unsigned w, unsigned h, float x0, float y0,
                           float dx, float dy, unsigned max_iter)
{
    const unsigned px = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= w || py >= h) return;
    const float cr = x0 + (float)px * dx;
    const float ci = y0 + (float)py * dy;
    float zr = 0.0f, zi = 0.0f;
    unsigned it = 0;
    while (it < max_iter && zr * zr + zi * zi <= 4.0f) {
        const float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        ++it;
    }
    iters[py * w + px] = it;
}

// Acceleration on each body from all n bodies (pos.w = mass), IEEE-exact
// arithmetic only.
__global__ void nbody_exact(float4* acc, const float4* pos, unsigned n, float soft2)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float4 p = pos[i];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (unsigned j = 0; j < n; ++j) {
        const float4 q = pos[j];
        const float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
        const float d2 = dx * dx + dy * dy + dz * dz + soft2;
        const float inv = 1.0f / sqrtf(d2);
        const float s = inv * inv * inv * q.w;
        ax += dx * s;
        ay += dy * s;
        az += dz * s;
    }
    acc[i] = make_float4(ax, ay, az, 0.0f);
}

// The same with rsqrtf (rsqrt.approx.f32): compare with a tolerance.
__global__ void nbody_rsqrt(float4* acc, const float4* pos, unsigned n, float soft2)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float4 p = pos[i];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (unsigned j = 0; j < n; ++j) {
        const float4 q = pos[j];
        const float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
        const float d2 = dx * dx + dy * dy + dz * dz + soft2;
        const float inv = rsqrtf(d2);
        const float s = inv * inv * inv * q.w;
        ax += dx * s;
        ay += dy * s;
        az += dz * s;
    }
    acc[i] = make_float4(ax, ay, az, 0.0f);
}

// y = A x, one thread per row (A is rows x cols, row-major).
__global__ void sgemv(float* y, const float* A, const float* x, unsigned rows, unsigned cols)
{
    const unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float acc = 0.0f;
    for (unsigned c = 0; c < cols; ++c)
        acc += A[r * cols + c] * x[c];
    y[r] = acc;
}

// Per-block partial dot products (grid-stride accumulation, then a shared
// tree reduction). blockDim.x = 256.
__global__ void dot_product(float* partial, const float* a, const float* b, unsigned n)
{
    __shared__ float s[256];
    const unsigned t = threadIdx.x;
    float acc = 0.0f;
    for (unsigned i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x)
        acc += a[i] * b[i];
    s[t] = acc;
    __syncthreads();
    for (unsigned st = blockDim.x / 2; st > 0; st >>= 1) {
        if (t < st) s[t] += s[t + st];
        __syncthreads();
    }
    if (t == 0) partial[blockIdx.x] = s[0];
}

// 64-bin histogram of each block's 256 bytes without atomics: the block
// stages its data in shared memory, then thread b (b < 64) counts bin b.
__global__ void histogram_private(unsigned* bins, const unsigned char* data)
{
    __shared__ unsigned char s[256];
    const unsigned t = threadIdx.x;
    s[t] = data[blockIdx.x * 256 + t];
    __syncthreads();
    if (t < 64) {
        unsigned c = 0;
        for (unsigned k = 0; k < 256; ++k)
            c += (s[k] & 63u) == t;
        bins[blockIdx.x * 64 + t] = c;
    }
}
