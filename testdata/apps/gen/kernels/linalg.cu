// Dense and sparse linear algebra in the style of PolyBench and Rodinia:
// LU decomposition and Gaussian elimination steps (the a[i] -= m * a[j]
// pattern), GEMM, ATAX, CSR SpMV. Deterministic.

// LU without pivoting, step k, part 1: the multipliers a[i][k] /= a[k][k].
__global__ void lu_scale(float* __restrict__ a, unsigned n, unsigned k)
{
    unsigned i = k + 1 + blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i * n + k] /= a[k * n + k];
}

// LU step k, part 2: the trailing update a[i][j] -= a[i][k] * a[k][j].
__global__ void lu_update(float* __restrict__ a, unsigned n, unsigned k)
{
    unsigned j = k + 1 + blockIdx.x * blockDim.x + threadIdx.x;
    unsigned i = k + 1 + blockIdx.y * blockDim.y + threadIdx.y;
    if (i < n && j < n) a[i * n + j] -= a[i * n + k] * a[k * n + j];
}

// The whole LU decomposition (no pivoting) of an n x n matrix in global
// memory by one block, two __syncthreads per step.
__global__ void lu_block(float* __restrict__ a, unsigned n)
{
    for (unsigned k = 0; k + 1 < n; k++) {
        float piv = a[k * n + k];
        for (unsigned i = k + 1 + threadIdx.x; i < n; i += blockDim.x) a[i * n + k] /= piv;
        __syncthreads();
        unsigned m = n - k - 1;
        for (unsigned e = threadIdx.x; e < m * m; e += blockDim.x) {
            unsigned i = k + 1 + e / m, j = k + 1 + e % m;
            a[i * n + j] -= a[i * n + k] * a[k * n + j];
        }
        __syncthreads();
    }
}

// Rodinia-style Gaussian elimination, step t: Fan1 computes the multipliers
// of column t, Fan2 eliminates it from the rows below (and from b).
__global__ void gauss_fan1(float* __restrict__ m, const float* __restrict__ a, unsigned n, unsigned t)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n - 1 - t) m[n * (i + t + 1) + t] = a[n * (i + t + 1) + t] / a[n * t + t];
}

__global__ void gauss_fan2(float* __restrict__ a, float* __restrict__ b, const float* __restrict__ m,
                           unsigned n, unsigned t)
{
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= n - 1 - t || y >= n - t) return;
    float mult = m[n * (x + 1 + t) + t];
    a[n * (x + 1 + t) + (y + t)] -= mult * a[n * t + (y + t)];
    if (y == 0) b[x + 1 + t] -= mult * b[t];
}

// Gaussian elimination with back substitution of an n x (n+1) augmented
// system in f64, one block (forward elimination in parallel, back
// substitution with a block-wide tree reduction per row).
__global__ void gauss_block_f64(double* __restrict__ x, double* __restrict__ a, unsigned n)
{
    const unsigned W = n + 1;
    __shared__ double red[256];
    for (unsigned t = 0; t + 1 < n; t++) {
        double piv = a[t * W + t];
        unsigned rows = n - 1 - t, cols = n - t;    // columns t..n (b included)
        for (unsigned e = threadIdx.x; e < rows * cols; e += blockDim.x) {
            unsigned i = t + 1 + e / cols, j = t + e % cols;
            if (j == t) continue;
            a[i * W + j] -= a[i * W + t] / piv * a[t * W + j];
        }
        __syncthreads();
    }
    for (int i = (int)n - 1; i >= 0; i--) {
        double s = 0.0;
        for (unsigned j = i + 1 + threadIdx.x; j < n; j += blockDim.x) s += a[i * W + j] * x[j];
        red[threadIdx.x] = s;
        __syncthreads();
        for (unsigned h = blockDim.x / 2; h > 0; h >>= 1) {
            if (threadIdx.x < h) red[threadIdx.x] += red[threadIdx.x + h];
            __syncthreads();
        }
        if (threadIdx.x == 0) x[i] = (a[i * W + n] - red[0]) / a[i * W + i];
        __syncthreads();
    }
}

// PolyBench gemm: C = alpha * A * B + beta * C, 16x16 shared tiles.
__global__ void gemm(float* __restrict__ C, const float* __restrict__ A, const float* __restrict__ B,
                     unsigned n, float alpha, float beta)
{
    __shared__ float As[16][16], Bs[16][16];
    unsigned tx = threadIdx.x, ty = threadIdx.y;
    unsigned row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
    float acc = 0.0f;
    for (unsigned t = 0; t < n; t += 16) {
        As[ty][tx] = row < n && t + tx < n ? A[row * n + t + tx] : 0.0f;
        Bs[ty][tx] = col < n && t + ty < n ? B[(t + ty) * n + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < 16; k++) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < n && col < n) C[row * n + col] = alpha * acc + beta * C[row * n + col];
}

// PolyBench atax, y = A^T (A x): kernel 1 computes tmp = A x (a row per
// thread), kernel 2 y = A^T tmp (a column per thread).
__global__ void atax_k1(float* __restrict__ tmp, const float* __restrict__ A, const float* __restrict__ x,
                        unsigned m, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m) return;
    float s = 0.0f;
    for (unsigned j = 0; j < n; j++) s += A[i * n + j] * x[j];
    tmp[i] = s;
}

__global__ void atax_k2(float* __restrict__ y, const float* __restrict__ A, const float* __restrict__ tmp,
                        unsigned m, unsigned n)
{
    unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n) return;
    float s = 0.0f;
    for (unsigned i = 0; i < m; i++) s += A[i * n + j] * tmp[i];
    y[j] = s;
}

// CSR sparse matrix-vector product, one thread per row (scalar kernel).
__global__ void spmv_csr(float* __restrict__ y, const unsigned* __restrict__ rowptr,
                         const unsigned* __restrict__ col, const float* __restrict__ val,
                         const float* __restrict__ x, unsigned rows)
{
    unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float s = 0.0f;
    for (unsigned e = rowptr[r]; e < rowptr[r + 1]; e++) s += val[e] * x[col[e]];
    y[r] = s;
}

// CSR SpMV, one warp per row (vector kernel): strided partial sums, then a
// shuffle-down tree.
__global__ void spmv_csr_vector(float* __restrict__ y, const unsigned* __restrict__ rowptr,
                                const unsigned* __restrict__ col, const float* __restrict__ val,
                                const float* __restrict__ x, unsigned rows)
{
    unsigned gw = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x & 31;
    if (gw >= rows) return;
    float s = 0.0f;
    for (unsigned e = rowptr[gw] + lane; e < rowptr[gw + 1]; e += 32) s += val[e] * x[col[e]];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    if (lane == 0) y[gw] = s;
}

// Conjugate-gradient vector update in f64: x += alpha p; r -= alpha Ap;
// and each block's partial of the new r.r (shared-memory tree, 256 threads).
__global__ void cg_update_f64(double* __restrict__ x, double* __restrict__ r,
                              double* __restrict__ rr_partial, const double* __restrict__ p,
                              const double* __restrict__ Ap, unsigned n, double alpha)
{
    __shared__ double sh[256];
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    double rn = 0.0;
    if (i < n) {
        x[i] += alpha * p[i];
        rn = r[i] - alpha * Ap[i];
        r[i] = rn;
    }
    sh[threadIdx.x] = rn * rn;
    __syncthreads();
    for (unsigned h = blockDim.x / 2; h > 0; h >>= 1) {
        if (threadIdx.x < h) sh[threadIdx.x] += sh[threadIdx.x + h];
        __syncthreads();
    }
    if (threadIdx.x == 0) rr_partial[blockIdx.x] = sh[0];
}
