// The second tensor-core and async-copy corpus (testdata/tensor2, issue
// 24): kernels written after the cycle model was tuned on testdata/tensor,
// to check it on kernels it has not seen. Written here for this corpus.
#include <cooperative_groups.h>
#include <cuda/pipeline>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_pipeline_primitives.h>
#include <mma.h>

#pragma nv_diag_suppress 20054  // a function-scope __shared__ cuda::pipeline_shared_state

namespace cg = cooperative_groups;
using namespace nvcuda;

// C = A B in bf16 (f32 sums), n x n, n a multiple of 128, from f32
// matrices each element of which is rounded to bf16 as it is staged.
// Block: 256 threads (8 warps as 4x2), a 128x64 tile of C, a warp 32x32
// of it as 2x2 fragments; the block's 128x32 A and 32x64 B tiles staged in
// shared memory, the next tile's loads issued into registers before the
// current tile's math (a register prefetch).
__device__ __forceinline__ uint4 bf16x8(float4 a, float4 b)
{
    __nv_bfloat162 p[4] = {__floats2bfloat162_rn(a.x, a.y), __floats2bfloat162_rn(a.z, a.w),
                           __floats2bfloat162_rn(b.x, b.y), __floats2bfloat162_rn(b.z, b.w)};
    return *(uint4*)p;
}

__global__ void matmul_wmma_bf16(float* C, const float* A, const float* B, unsigned n)
{
    __shared__ __align__(32) __nv_bfloat16 As[128][32 + 8];
    __shared__ __align__(32) __nv_bfloat16 Bs[32][64 + 8];
    const unsigned tid = threadIdx.x, warp = tid / 32, wy = warp / 2, wx = warp % 2;
    const unsigned brow = blockIdx.y * 128, bcol = blockIdx.x * 64;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            wmma::fill_fragment(acc[i][j], 0.0f);
    uint4 ra[2], rb;
    auto fetch = [&](unsigned k) {
        for (int r = 0; r < 2; r++) {
            const unsigned c = tid + 256 * r, ar = c / 4, ac = (c % 4) * 8;
            const float4* p = (const float4*)&A[(size_t)(brow + ar) * n + k + ac];
            ra[r] = bf16x8(p[0], p[1]);
        }
        const unsigned br = tid / 8, bc = (tid % 8) * 8;
        const float4* p = (const float4*)&B[(size_t)(k + br) * n + bcol + bc];
        rb = bf16x8(p[0], p[1]);
    };
    fetch(0);
    for (unsigned k = 0; k < n; k += 32) {
        for (int r = 0; r < 2; r++) {
            const unsigned c = tid + 256 * r;
            *(uint4*)&As[c / 4][(c % 4) * 8] = ra[r];
        }
        *(uint4*)&Bs[tid / 8][(tid % 8) * 8] = rb;
        __syncthreads();
        if (k + 32 < n)
            fetch(k + 32);
        for (int kk = 0; kk < 32; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a[2];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> b[2];
            for (int i = 0; i < 2; i++)
                wmma::load_matrix_sync(a[i], &As[wy * 32 + 16 * i][kk], 32 + 8);
            for (int j = 0; j < 2; j++)
                wmma::load_matrix_sync(b[j], &Bs[kk][wx * 32 + 16 * j], 64 + 8);
            for (int i = 0; i < 2; i++)
                for (int j = 0; j < 2; j++)
                    wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            wmma::store_matrix_sync(C + (size_t)(brow + wy * 32 + 16 * i) * n + bcol + wx * 32 + 16 * j,
                                    acc[i][j], n, wmma::mem_row_major);
}

// C = A B in int8 (s32 sums), n x n, n a multiple of 32; A row-major, B
// column-major (B^T row-major), each warp one 16x16 tile from global.
// Block: 128 threads, a 32x32 tile of C.
__global__ void matmul_wmma_s8(int* C, const signed char* A, const signed char* Bt, unsigned n)
{
    const unsigned warp = threadIdx.x / 32;
    const unsigned row0 = blockIdx.y * 32 + (warp / 2) * 16, col0 = blockIdx.x * 32 + (warp % 2) * 16;
    wmma::fragment<wmma::accumulator, 16, 16, 16, int> acc;
    wmma::fill_fragment(acc, 0);
    for (unsigned k = 0; k < n; k += 16) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> a;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> b;
        wmma::load_matrix_sync(a, A + (size_t)row0 * n + k, n);
        wmma::load_matrix_sync(b, Bt + (size_t)col0 * n + k, n);
        wmma::mma_sync(acc, a, b, acc);
    }
    wmma::store_matrix_sync(C + (size_t)row0 * n + col0, acc, n, wmma::mem_row_major);
}

// Many small products: C_i = A_i B_i for 16x16 f16 matrices, one warp each
// (a batched GEMM of tiny matrices), f16 results. Block: 256 threads.
__global__ void batched_wmma16(half* C, const half* A, const half* B, unsigned batch)
{
    const unsigned i = blockIdx.x * 8 + threadIdx.x / 32;
    if (i >= batch)
        return;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, half> c;
    wmma::fill_fragment(c, __float2half(0.0f));
    wmma::load_matrix_sync(a, A + (size_t)i * 256, 16);
    wmma::load_matrix_sync(b, B + (size_t)i * 256, 16);
    wmma::mma_sync(c, a, b, c);
    wmma::store_matrix_sync(C + (size_t)i * 256, c, 16, wmma::mem_row_major);
}

__device__ __forceinline__ unsigned smem_u32(const void* p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

// y = A x for an m x n f32 matrix with tf32 tensor cores (mma.sync
// m16n8k8, x in the B operand's first column): each warp 16 rows, x staged
// in shared memory by cp.async. Block: 128 threads (64 rows); n a multiple
// of 8, at most 4096.
__global__ void gemv_mma_tf32(float* y, const float* A, const float* x, unsigned m, unsigned n)
{
    __shared__ __align__(16) float xs[4096];
    for (unsigned i = threadIdx.x * 4; i < n; i += blockDim.x * 4)
        asm volatile("cp.async.ca.shared.global [%0], [%1], 16;\n" ::"r"(smem_u32(&xs[i])), "l"(x + i));
    asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;\n" ::);
    __syncthreads();
    const unsigned lane = threadIdx.x % 32, g = lane / 4, q = lane % 4;
    const unsigned row0 = blockIdx.x * 64 + (threadIdx.x / 32) * 16;
    float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
    for (unsigned k = 0; k < n; k += 8) {
        unsigned a0, a1, a2, a3, b0, b1;
        asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(a0) : "f"(A[(size_t)(row0 + g) * n + k + q]));
        asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(a1) : "f"(A[(size_t)(row0 + g + 8) * n + k + q]));
        asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(a2) : "f"(A[(size_t)(row0 + g) * n + k + q + 4]));
        asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(a3) : "f"(A[(size_t)(row0 + g + 8) * n + k + q + 4]));
        const float xb0 = g == 0 ? xs[k + q] : 0.0f, xb1 = g == 0 ? xs[k + q + 4] : 0.0f;
        asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(b0) : "f"(xb0));
        asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(b1) : "f"(xb1));
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                     "{%0,%1,%2,%3};\n"
                     : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
                     : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    }
    if (q == 0 && row0 + g < m) {
        y[row0 + g] = d0;      // column 0 of rows g
        y[row0 + g + 8] = d2;  // and g + 8
    }
}

// A 5-point 2D stencil whose 32x8 tile and halo are staged in shared
// memory by 4-byte __pipeline_memcpy_async copies (cp.async.ca), the next
// tile's copies in flight while the current tile is computed (two
// stages). Block: 32x8 threads walking down a column of tiles; w a
// multiple of 32, h of 8 * tiles.
__global__ void stencil_cpasync(float* out, const float* in, unsigned w, unsigned h, unsigned tiles)
{
    __shared__ float t[2][10][34];
    const unsigned tx = threadIdx.x, ty = threadIdx.y;
    const unsigned x0 = blockIdx.x * 32, ybase = blockIdx.y * 8 * tiles;
    auto stage = [&](unsigned tile, int s) {
        const unsigned y0 = ybase + tile * 8;
        for (unsigned i = ty * 32 + tx; i < 10 * 34; i += 256) {
            const unsigned r = i / 34, c = i % 34;
            const int gy = (int)y0 + (int)r - 1, gx = (int)x0 + (int)c - 1;
            const int cy = min(max(gy, 0), (int)h - 1), cx = min(max(gx, 0), (int)w - 1);
            __pipeline_memcpy_async(&t[s][r][c], &in[(size_t)cy * w + cx], 4);
        }
        __pipeline_commit();
    };
    stage(0, 0);
    for (unsigned tile = 0; tile < tiles; tile++) {
        const int s = tile & 1;
        if (tile + 1 < tiles)
            stage(tile + 1, s ^ 1);
        else
            __pipeline_commit();
        __pipeline_wait_prior(1);
        __syncthreads();
        const float v = 0.5f * t[s][ty + 1][tx + 1] +
                        0.125f * (t[s][ty][tx + 1] + t[s][ty + 2][tx + 1] + t[s][ty + 1][tx] + t[s][ty + 1][tx + 2]);
        out[(size_t)(ybase + tile * 8 + ty) * w + x0 + tx] = v;
        __syncthreads();
    }
}

// C = A B (f16 in, f32 sums) with a three-stage cuda::pipeline at block
// scope staging 64x32 A and 32x64 B tiles by cuda::memcpy_async, wmma on
// the stage that has landed. Block: 128 threads (2x2 warps), a 64x64 tile.
__global__ void matmul_pipeline3(float* C, const half* A, const half* B, unsigned n)
{
    constexpr int S = 3;
    __shared__ __align__(128) half As[S][64][32 + 8];
    __shared__ __align__(128) half Bs[S][32][64 + 8];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, S> state;
    auto block = cg::this_thread_block();
    auto pipe = cuda::make_pipeline(block, &state);
    const unsigned tid = threadIdx.x, warp = tid / 32, wy = warp / 2, wx = warp % 2;
    const unsigned brow = blockIdx.y * 64, bcol = blockIdx.x * 64, nk = n / 32;
    auto produce = [&](unsigned kt) {
        pipe.producer_acquire();
        if (kt < nk) {
            const int s = kt % S;
            for (unsigned c = tid; c < 256; c += 128) {
                const unsigned ar = c / 4, ac = (c % 4) * 8, br = c / 8, bc = (c % 8) * 8;
                cuda::memcpy_async(&As[s][ar][ac], &A[(size_t)(brow + ar) * n + kt * 32 + ac],
                                   cuda::aligned_size_t<16>(16), pipe);
                cuda::memcpy_async(&Bs[s][br][bc], &B[(size_t)(kt * 32 + br) * n + bcol + bc],
                                   cuda::aligned_size_t<16>(16), pipe);
            }
        }
        pipe.producer_commit();
    };
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            wmma::fill_fragment(acc[i][j], 0.0f);
    for (unsigned kt = 0; kt < S - 1; kt++)
        produce(kt);
    for (unsigned kt = 0; kt < nk; kt++) {
        produce(kt + S - 1);
        pipe.consumer_wait();
        __syncthreads();
        const int s = kt % S;
        for (int kk = 0; kk < 32; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a[2];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> b[2];
            for (int i = 0; i < 2; i++)
                wmma::load_matrix_sync(a[i], &As[s][wy * 32 + 16 * i][kk], 32 + 8);
            for (int j = 0; j < 2; j++)
                wmma::load_matrix_sync(b[j], &Bs[s][kk][wx * 32 + 16 * j], 64 + 8);
            for (int i = 0; i < 2; i++)
                for (int j = 0; j < 2; j++)
                    wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
        __syncthreads();
        pipe.consumer_release();
    }
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            wmma::store_matrix_sync(C + (size_t)(brow + wy * 32 + 16 * i) * n + bcol + wx * 32 + 16 * j,
                                    acc[i][j], n, wmma::mem_row_major);
}
