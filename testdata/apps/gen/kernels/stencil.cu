// Stencils and time steps in the style of the classic GPU benchmark suites
// (Jacobi, hotspot, heat equation, convolution). Written for ptxvm's
// application corpus; every output is deterministic (no races, no float
// atomics).
#include <cuda_fp16.h>

// One 2D Jacobi step, 5-point: centre weight c0, neighbour weight c1.
// The boundary is copied.
__global__ void jacobi2d(float* __restrict__ out, const float* __restrict__ in,
                         unsigned nx, unsigned ny, float c0, float c1)
{
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny) return;
    size_t i = (size_t)y * nx + x;
    if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
        out[i] = in[i];
        return;
    }
    out[i] = c0 * in[i] + c1 * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx]);
}

// 3D 7-point Jacobi: each thread owns one (x, y) column and walks z with the
// previous, current and next planes in registers.
__global__ void jacobi3d(float* __restrict__ out, const float* __restrict__ in,
                         unsigned nx, unsigned ny, unsigned nz, float c0, float c1)
{
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny) return;
    size_t plane = (size_t)nx * ny;
    size_t i = (size_t)y * nx + x;
    bool edge = x == 0 || y == 0 || x == nx - 1 || y == ny - 1;
    float below = in[i], cur = in[i + plane];
    out[i] = below;
    for (unsigned z = 1; z + 1 < nz; z++) {
        size_t k = i + z * plane;
        float above = in[k + plane];
        float v = cur;
        if (!edge)
            v = c0 * cur + c1 * (in[k - 1] + in[k + 1] + in[k - nx] + in[k + nx] + below + above);
        out[k] = v;
        below = cur;
        cur = above;
    }
    out[i + (size_t)(nz - 1) * plane] = cur;
}

// Hotspot (thermal simulation): `iters` time steps per launch on a 16x16
// tile whose valid region shrinks by one cell per step (the pyramid scheme);
// each block writes its (16 - 2*iters)^2 inner cells.
#define HS 16
__global__ void hotspot(float* __restrict__ tout, const float* __restrict__ power,
                        const float* __restrict__ tin, int cols, int rows, int iters,
                        float cap, float rx, float ry, float rz, float amb)
{
    __shared__ float t_s[HS][HS];
    __shared__ float p_s[HS][HS];
    __shared__ float t2_s[HS][HS];
    int small = HS - 2 * iters;
    int tx = threadIdx.x, ty = threadIdx.y;
    int x0 = (int)blockIdx.x * small - iters, y0 = (int)blockIdx.y * small - iters;
    int gx = x0 + tx, gy = y0 + ty;
    int cx = min(max(gx, 0), cols - 1), cy = min(max(gy, 0), rows - 1);
    t_s[ty][tx] = tin[cy * cols + cx];
    p_s[ty][tx] = power[cy * cols + cx];
    __syncthreads();
    int lox = max(0, -x0), hix = min(HS - 1, cols - 1 - x0);
    int loy = max(0, -y0), hiy = min(HS - 1, rows - 1 - y0);
    for (int i = 0; i < iters; i++) {
        bool active = tx >= i + 1 && tx <= HS - 2 - i && ty >= i + 1 && ty <= HS - 2 - i &&
                      tx >= lox && tx <= hix && ty >= loy && ty <= hiy;
        if (active) {
            float t = t_s[ty][tx];
            int n = max(ty - 1, loy), s = min(ty + 1, hiy);
            int w = max(tx - 1, lox), e = min(tx + 1, hix);
            float d = cap * (p_s[ty][tx] + (t_s[s][tx] + t_s[n][tx] - 2.0f * t) * ry +
                             (t_s[ty][e] + t_s[ty][w] - 2.0f * t) * rx + (amb - t) * rz);
            t2_s[ty][tx] = t + d;
        }
        __syncthreads();
        if (active) t_s[ty][tx] = t2_s[ty][tx];
        __syncthreads();
    }
    if (tx >= iters && tx < HS - iters && ty >= iters && ty < HS - iters && gx >= 0 && gx < cols &&
        gy >= 0 && gy < rows)
        tout[gy * cols + gx] = t_s[ty][tx];
}

// 1D heat equation, `steps` explicit time steps inside one block, the whole
// rod in shared memory (2*n floats of dynamic shared memory).
__global__ void heat1d_block(float* __restrict__ out, const float* __restrict__ in, unsigned n,
                             unsigned steps, float r)
{
    extern __shared__ float u[];
    float* a = u;
    float* b = u + n;
    for (unsigned i = threadIdx.x; i < n; i += blockDim.x) a[i] = in[i];
    __syncthreads();
    for (unsigned s = 0; s < steps; s++) {
        for (unsigned i = threadIdx.x; i < n; i += blockDim.x) {
            float c = a[i];
            float l = i > 0 ? a[i - 1] : c;
            float rr = i + 1 < n ? a[i + 1] : c;
            b[i] = c + r * (l - 2.0f * c + rr);
        }
        __syncthreads();
        float* t = a;
        a = b;
        b = t;
    }
    for (unsigned i = threadIdx.x; i < n; i += blockDim.x) out[i] = a[i];
}

// 2D stencil of radius 2 (a 9-point cross) through a shared tile with halo.
#define ST 16
#define SR 2
__global__ void stencil2d_shared(float* __restrict__ out, const float* __restrict__ in, int nx,
                                 int ny, float w0, float w1, float w2)
{
    __shared__ float tile[ST + 2 * SR][ST + 2 * SR];
    int tx = threadIdx.x, ty = threadIdx.y;
    int gx = blockIdx.x * ST + tx, gy = blockIdx.y * ST + ty;
    for (int dy = ty; dy < ST + 2 * SR; dy += ST)
        for (int dx = tx; dx < ST + 2 * SR; dx += ST) {
            int x = min(max((int)blockIdx.x * ST + dx - SR, 0), nx - 1);
            int y = min(max((int)blockIdx.y * ST + dy - SR, 0), ny - 1);
            tile[dy][dx] = in[y * nx + x];
        }
    __syncthreads();
    if (gx >= nx || gy >= ny) return;
    int cx = tx + SR, cy = ty + SR;
    float v = w0 * tile[cy][cx];
    v += w1 * (tile[cy][cx - 1] + tile[cy][cx + 1] + tile[cy - 1][cx] + tile[cy + 1][cx]);
    v += w2 * (tile[cy][cx - 2] + tile[cy][cx + 2] + tile[cy - 2][cx] + tile[cy + 2][cx]);
    out[gy * nx + gx] = v;
}

// 2D convolution with a 5x5 filter in constant memory (clamped borders).
__constant__ float c_filter[25];
__global__ void conv2d_const(float* __restrict__ out, const float* __restrict__ in, int nx, int ny)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny) return;
    float acc = 0.0f;
    for (int j = -2; j <= 2; j++)
        for (int i = -2; i <= 2; i++) {
            int xx = min(max(x + i, 0), nx - 1), yy = min(max(y + j, 0), ny - 1);
            acc += c_filter[(j + 2) * 5 + (i + 2)] * in[yy * nx + xx];
        }
    out[y * nx + x] = acc;
}

// 1D convolution in half precision (7 taps), __half operators.
__global__ void conv1d_f16(__half* __restrict__ out, const __half* __restrict__ in,
                           const __half* __restrict__ w, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half acc = __float2half(0.0f);
    for (int k = 0; k < 7; k++) {
        unsigned j = i + k < 3 ? 0 : min(i + k - 3, n - 1);
        acc = acc + in[j] * w[k];
    }
    out[i] = acc;
}
