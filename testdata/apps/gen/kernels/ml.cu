// Machine-learning kernels: k-means, back-propagation layers, layer norm,
// softmax, GELU, an Adam optimizer step, cross-entropy with cooperative
// groups and warp shuffles, a small convolution layer. Reductions have a
// fixed order (shuffle trees, shared-memory trees): outputs are deterministic.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_fp16.h>
namespace cg = cooperative_groups;

// k-means assignment (Rodinia kmeans): the nearest of k centroids by
// squared Euclidean distance over f features; ties go to the lower index.
__global__ void kmeans_assign(unsigned* __restrict__ member, const float* __restrict__ pts,
                              const float* __restrict__ cent, unsigned n, unsigned k, unsigned f)
{
    unsigned p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n) return;
    float best = 3.0e38f;
    unsigned bi = 0;
    for (unsigned c = 0; c < k; c++) {
        float d = 0.0f;
        for (unsigned j = 0; j < f; j++) {
            float t = pts[p * f + j] - cent[c * f + j];
            d += t * t;
        }
        if (d < best) {
            best = d;
            bi = c;
        }
    }
    member[p] = bi;
}

// k-means update: block c sums the points assigned to centroid c (each
// thread a strided subset, then a shared-memory tree per feature) and
// writes their mean and count. blockDim.x = 128, f <= 16.
__global__ void kmeans_update(float* __restrict__ cent, unsigned* __restrict__ count,
                              const float* __restrict__ pts, const unsigned* __restrict__ member,
                              unsigned n, unsigned f)
{
    __shared__ float acc[16][128];
    __shared__ unsigned cnt[128];
    unsigned c = blockIdx.x, t = threadIdx.x;
    float s[16];
    for (unsigned j = 0; j < 16; j++) s[j] = 0.0f;
    unsigned my = 0;
    for (unsigned p = t; p < n; p += blockDim.x)
        if (member[p] == c) {
            my++;
            for (unsigned j = 0; j < 16; j++)
                if (j < f) s[j] += pts[p * f + j];
        }
    for (unsigned j = 0; j < 16; j++) acc[j][t] = s[j];
    cnt[t] = my;
    __syncthreads();
    for (unsigned h = blockDim.x / 2; h > 0; h >>= 1) {
        if (t < h) {
            for (unsigned j = 0; j < 16; j++) acc[j][t] += acc[j][t + h];
            cnt[t] += cnt[t + h];
        }
        __syncthreads();
    }
    if (t < f) cent[c * f + t] = cnt[0] ? acc[t][0] / (float)cnt[0] : 0.0f;
    if (t == 0) count[c] = cnt[0];
}

// Back-propagation, forward layer (Rodinia bpnn_layerforward): a 16x16
// block multiplies 16 inputs by their weights to 16 hidden units and
// reduces over the inputs in shared memory; partial[chunk][j] per block row.
__global__ void backprop_forward(float* __restrict__ partial, const float* __restrict__ x,
                                 const float* __restrict__ w, unsigned hid)
{
    __shared__ float in_s[16];
    __shared__ float m[16][16];
    unsigned tx = threadIdx.x, ty = threadIdx.y;
    unsigned chunk = blockIdx.y, j = blockIdx.x * 16 + tx;
    unsigned i = chunk * 16 + ty;
    if (tx == 0) in_s[ty] = x[i];
    __syncthreads();
    m[ty][tx] = w[i * hid + j] * in_s[ty];
    __syncthreads();
    for (unsigned h = 8; h > 0; h >>= 1) {
        if (ty < h) m[ty][tx] += m[ty + h][tx];
        __syncthreads();
    }
    if (ty == 0) partial[chunk * hid + j] = m[0][tx];
}

// Back-propagation, second stage: sum the partials in order, squash.
__global__ void backprop_sum(float* __restrict__ hidden, const float* __restrict__ partial,
                             unsigned chunks, unsigned hid)
{
    unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= hid) return;
    float s = 0.0f;
    for (unsigned c = 0; c < chunks; c++) s += partial[c * hid + j];
    hidden[j] = 1.0f / (1.0f + expf(-s));
}

// Back-propagation, weight adjustment (Rodinia bpnn_adjust_weights):
// dw = eta * delta[j] * x[i] + momentum * oldw; w += dw; oldw = dw.
__global__ void backprop_adjust(float* __restrict__ w, float* __restrict__ oldw,
                                const float* __restrict__ delta, const float* __restrict__ x,
                                unsigned in, unsigned hid, float eta, float momentum)
{
    unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned i = blockIdx.y;
    if (j >= hid || i >= in) return;
    unsigned k = i * hid + j;
    float dw = eta * delta[j] * x[i] + momentum * oldw[k];
    w[k] += dw;
    oldw[k] = dw;
}

// Back-propagation, output error: delta = o (1 - o) (t - o).
__global__ void backprop_output_error(float* __restrict__ delta, const float* __restrict__ o,
                                      const float* __restrict__ target, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = o[i];
    delta[i] = v * (1.0f - v) * (target[i] - v);
}

__device__ __forceinline__ float warp_sum(float v)
{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__device__ __forceinline__ float warp_max(float v)
{
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

// Layer norm, one warp per row (cols a multiple of 32, at most 512):
// mean and variance by xor-shuffle butterflies, then gamma * xhat + beta.
__global__ void layernorm_warp(float* __restrict__ y, const float* __restrict__ x,
                               const float* __restrict__ gamma, const float* __restrict__ beta,
                               unsigned rows, unsigned cols, float eps)
{
    unsigned row = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x & 31;
    if (row >= rows) return;
    const float* xr = x + row * cols;
    float v[16];
    float s = 0.0f;
    unsigned per = cols / 32;
    for (unsigned k = 0; k < 16; k++)
        if (k < per) {
            v[k] = xr[k * 32 + lane];
            s += v[k];
        }
    float mean = warp_sum(s) / (float)cols;
    float q = 0.0f;
    for (unsigned k = 0; k < 16; k++)
        if (k < per) {
            float d = v[k] - mean;
            q += d * d;
        }
    float rstd = rsqrtf(warp_sum(q) / (float)cols + eps);
    for (unsigned k = 0; k < 16; k++)
        if (k < per) {
            unsigned c = k * 32 + lane;
            y[row * cols + c] = (v[k] - mean) * rstd * gamma[c] + beta[c];
        }
}

// Layer norm with half-precision input and output, float statistics.
__global__ void layernorm_f16(__half* __restrict__ y, const __half* __restrict__ x,
                              const __half* __restrict__ gamma, const __half* __restrict__ beta,
                              unsigned rows, unsigned cols, float eps)
{
    unsigned row = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x & 31;
    if (row >= rows) return;
    float s = 0.0f, q = 0.0f;
    for (unsigned c = lane; c < cols; c += 32) {
        float v = __half2float(x[row * cols + c]);
        s += v;
        q += v * v;
    }
    s = warp_sum(s);
    q = warp_sum(q);
    float mean = s / (float)cols;
    float var = fmaxf(q / (float)cols - mean * mean, 0.0f);
    float rstd = rsqrtf(var + eps);
    for (unsigned c = lane; c < cols; c += 32) {
        __half xh = x[row * cols + c];
        __half nh = __float2half((__half2float(xh) - mean) * rstd);
        y[row * cols + c] = nh * gamma[c] + beta[c];
    }
}

// Softmax over each row, one block per row: block max and block sum from
// warp shuffles and one shared slot per warp.
__global__ void softmax_block(float* __restrict__ y, const float* __restrict__ x, unsigned cols)
{
    __shared__ float sh[32];
    const float* xr = x + blockIdx.x * cols;
    unsigned t = threadIdx.x, lane = t & 31, wid = t / 32, nw = blockDim.x / 32;
    float m = -3.0e38f;
    for (unsigned c = t; c < cols; c += blockDim.x) m = fmaxf(m, xr[c]);
    m = warp_max(m);
    if (lane == 0) sh[wid] = m;
    __syncthreads();
    m = sh[0];
    for (unsigned k = 1; k < nw; k++) m = fmaxf(m, sh[k]);
    __syncthreads();
    float s = 0.0f;
    for (unsigned c = t; c < cols; c += blockDim.x) s += expf(xr[c] - m);
    s = warp_sum(s);
    if (lane == 0) sh[wid] = s;
    __syncthreads();
    s = 0.0f;
    for (unsigned k = 0; k < nw; k++) s += sh[k];
    float inv = 1.0f / s;
    for (unsigned c = t; c < cols; c += blockDim.x) y[blockIdx.x * cols + c] = expf(xr[c] - m) * inv;
}

// GELU, tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
__global__ void gelu_tanh(float* __restrict__ y, const float* __restrict__ x, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    float u = 0.7978845608f * (v + 0.044715f * v * v * v);
    y[i] = 0.5f * v * (1.0f + tanhf(u));
}

// GELU, exact form: 0.5 x (1 + erf(x / sqrt 2)).
__global__ void gelu_erf(float* __restrict__ y, const float* __restrict__ x, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    y[i] = 0.5f * v * (1.0f + erff(v * 0.70710678f));
}

// GELU (tanh form) on half2 pairs: the polynomial in __half2 arithmetic,
// tanh in float.
__global__ void gelu_f16x2(__half2* __restrict__ y, const __half2* __restrict__ x, unsigned n2)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n2) return;
    __half2 v = x[i];
    __half2 c = __float2half2_rn(0.044715f), k = __float2half2_rn(0.7978845608f);
    __half2 u = k * (v + c * v * v * v);
    float2 uf = __half22float2(u);
    __half2 t = __floats2half2_rn(tanhf(uf.x), tanhf(uf.y));
    __half2 half = __float2half2_rn(0.5f), one = __float2half2_rn(1.0f);
    y[i] = half * v * (one + t);
}

// One Adam step: m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2;
// p -= lr * (m * c1) / (sqrt(v * c2) + eps), c1 = 1/(1-b1^t), c2 = 1/(1-b2^t).
__global__ void adam_step(float* __restrict__ p, float* __restrict__ m, float* __restrict__ v,
                          const float* __restrict__ g, unsigned n, float lr, float b1, float b2,
                          float eps, float c1, float c2)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float gi = g[i];
    float mi = b1 * m[i] + (1.0f - b1) * gi;
    float vi = b2 * v[i] + (1.0f - b2) * gi * gi;
    m[i] = mi;
    v[i] = vi;
    p[i] -= lr * (mi * c1) / (sqrtf(vi * c2) + eps);
}

// Softmax cross-entropy per row with a cooperative-groups warp tile:
// loss[r] = logsumexp(z) - z[label], grad = softmax(z) - onehot(label).
__global__ void cross_entropy_cg(float* __restrict__ loss, float* __restrict__ grad,
                                 const float* __restrict__ z, const unsigned* __restrict__ label,
                                 unsigned rows, unsigned classes)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    unsigned row = blockIdx.x * (blockDim.x / 32) + tile.meta_group_rank();
    if (row >= rows) return;
    const float* zr = z + row * classes;
    float m = -3.0e38f;
    for (unsigned c = tile.thread_rank(); c < classes; c += 32) m = fmaxf(m, zr[c]);
    m = cg::reduce(tile, m, cg::greater<float>());
    float s = 0.0f;
    for (unsigned c = tile.thread_rank(); c < classes; c += 32) s += __expf(zr[c] - m);
    for (int o = 16; o > 0; o >>= 1) s += tile.shfl_xor(s, o);
    float lse = m + __logf(s);
    unsigned lab = label[row];
    if (tile.thread_rank() == 0) loss[row] = lse - zr[lab];
    float inv = 1.0f / s;
    for (unsigned c = tile.thread_rank(); c < classes; c += 32)
        grad[row * classes + c] = __expf(zr[c] - m) * inv - (c == lab ? 1.0f : 0.0f);
}

// Direct 3x3 convolution layer, NCHW, valid padding, bias and ReLU.
__global__ void conv2d_nchw(float* __restrict__ out, const float* __restrict__ in,
                            const float* __restrict__ wt, const float* __restrict__ bias, int C,
                            int H, int W, int K)
{
    int ox = blockIdx.x * blockDim.x + threadIdx.x, oy = blockIdx.y * blockDim.y + threadIdx.y;
    int k = blockIdx.z;
    int OH = H - 2, OW = W - 2;
    if (ox >= OW || oy >= OH) return;
    float acc = bias[k];
    for (int c = 0; c < C; c++)
        for (int dy = 0; dy < 3; dy++)
            for (int dx = 0; dx < 3; dx++)
                acc += wt[((k * C + c) * 3 + dy) * 3 + dx] * in[(c * H + oy + dy) * W + ox + dx];
    out[(k * OH + oy) * OW + ox] = fmaxf(acc, 0.0f);
}
