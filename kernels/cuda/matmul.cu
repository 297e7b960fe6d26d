// matmul.cu — the mission's matrix multiplies (row-major, n x n).
//   matmul_naive     one thread per C element, A and B read from global memory
//   matmul_tiled     16x16 shared-memory tiles, __syncthreads between phases
//   matmul_naive_f64 double precision (fma.rn.f64, 64-bit loads)

#define TILE 16

// Global loads (A row-wise broadcast, B coalesced), f32 multiply-add chain.
__global__ void matmul_naive(float* C, const float* A, const float* B, unsigned n)
{
    unsigned row = blockIdx.y * blockDim.y + threadIdx.y;
    unsigned col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= n || col >= n) return;
    float acc = 0.0f;
    for (unsigned k = 0; k < n; ++k)
        acc += A[row * n + k] * B[k * n + col];
    C[row * n + col] = acc;
}

// Static shared tiles, bar.sync, bounds handled by zero padding (n need not be
// a multiple of TILE).
__global__ void matmul_tiled(float* C, const float* A, const float* B, unsigned n)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    unsigned tx = threadIdx.x, ty = threadIdx.y;
    unsigned row = blockIdx.y * TILE + ty;
    unsigned col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (unsigned t = 0; t < (n + TILE - 1) / TILE; ++t) {
        unsigned ac = t * TILE + tx;
        unsigned br = t * TILE + ty;
        As[ty][tx] = (row < n && ac < n) ? A[row * n + ac] : 0.0f;
        Bs[ty][tx] = (br < n && col < n) ? B[br * n + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < n && col < n)
        C[row * n + col] = acc;
}

// Double precision naive multiply.
__global__ void matmul_naive_f64(double* C, const double* A, const double* B, unsigned n)
{
    unsigned row = blockIdx.y * blockDim.y + threadIdx.y;
    unsigned col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= n || col >= n) return;
    double acc = 0.0;
    for (unsigned k = 0; k < n; ++k)
        acc += A[row * n + k] * B[k * n + col];
    C[row * n + col] = acc;
}
