// Tensor-core and asynchronous-copy kernels of the tensor corpus
// (testdata/tensor, issue 24 item 9): the matrix multiplies a CUDA learner
// meets after the shared-memory one (wmma from global memory, wmma from
// shared tiles, tf32 wmma, mma.sync fed by ldmatrix from a cp.async double
// buffer), the three ways CUDA C++ stages data asynchronously
// (cuda::pipeline at block scope, the __pipeline_* primitives,
// cuda::memcpy_async on a cuda::barrier) and a reduction over a cluster's
// distributed shared memory. Written here for this corpus.
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda_fp16.h>
#include <cuda_pipeline_primitives.h>
#include <mma.h>

#pragma nv_diag_suppress 20054  // a function-scope __shared__ cuda::barrier (initialised by init())

namespace cg = cooperative_groups;
using namespace nvcuda;

// C = A B, n x n (n a multiple of 64), A and B half row-major, C float.
// Block: 128 threads (4 warps as 2x2), a 64x64 tile of C; each warp a 32x32
// tile as 2x2 accumulator fragments, fragments loaded straight from global
// memory (no shared memory).
__global__ void matmul_wmma(float* C, const half* A, const half* B, unsigned n)
{
    const unsigned warp = threadIdx.x / 32, wy = warp / 2, wx = warp % 2;
    const unsigned row0 = blockIdx.y * 64 + wy * 32, col0 = blockIdx.x * 64 + wx * 32;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            wmma::fill_fragment(acc[i][j], 0.0f);
    for (unsigned k = 0; k < n; k += 16) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a[2];
        wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> b[2];
        for (int i = 0; i < 2; i++)
            wmma::load_matrix_sync(a[i], A + (size_t)(row0 + 16 * i) * n + k, n);
        for (int j = 0; j < 2; j++)
            wmma::load_matrix_sync(b[j], B + (size_t)k * n + col0 + 16 * j, n);
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2; j++)
                wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
    }
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            wmma::store_matrix_sync(C + (size_t)(row0 + 16 * i) * n + col0 + 16 * j, acc[i][j], n,
                                    wmma::mem_row_major);
}

// matmul_wmma with the block's A (64x32) and B (32x64) tiles staged in
// shared memory by 16-byte loads, rows padded by 8 halves.
__global__ void matmul_wmma_shared(float* C, const half* A, const half* B, unsigned n)
{
    __shared__ __align__(32) half As[64][32 + 8];
    __shared__ __align__(32) half Bs[32][64 + 8];
    const unsigned tid = threadIdx.x, warp = tid / 32, wy = warp / 2, wx = warp % 2;
    const unsigned brow = blockIdx.y * 64, bcol = blockIdx.x * 64;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            wmma::fill_fragment(acc[i][j], 0.0f);
    for (unsigned k = 0; k < n; k += 32) {
        for (unsigned c = tid; c < 256; c += 128) {
            const unsigned ar = c / 4, ac = (c % 4) * 8;
            *(uint4*)&As[ar][ac] = *(const uint4*)&A[(size_t)(brow + ar) * n + k + ac];
            const unsigned br = c / 8, bc = (c % 8) * 8;
            *(uint4*)&Bs[br][bc] = *(const uint4*)&B[(size_t)(k + br) * n + bcol + bc];
        }
        __syncthreads();
        for (int kk = 0; kk < 32; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a[2];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> b[2];
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

// C = A B in tf32 tensor cores: float inputs (the matrices of matmul_tiled),
// each fragment element rounded to tf32 before the multiply. Block: 128
// threads, a 32x32 tile of C, a 16x16 tile per warp, k steps of 8.
__global__ void matmul_wmma_tf32(float* C, const float* A, const float* B, unsigned n)
{
    const unsigned warp = threadIdx.x / 32;
    const unsigned row0 = blockIdx.y * 32 + (warp / 2) * 16, col0 = blockIdx.x * 32 + (warp % 2) * 16;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (unsigned k = 0; k < n; k += 8) {
        wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a;
        wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> b;
        wmma::load_matrix_sync(a, A + (size_t)row0 * n + k, n);
        wmma::load_matrix_sync(b, B + (size_t)k * n + col0, n);
        for (int t = 0; t < a.num_elements; t++)
            a.x[t] = wmma::__float_to_tf32(a.x[t]);
        for (int t = 0; t < b.num_elements; t++)
            b.x[t] = wmma::__float_to_tf32(b.x[t]);
        wmma::mma_sync(acc, a, b, acc);
    }
    wmma::store_matrix_sync(C + (size_t)row0 * n + col0, acc, n, wmma::mem_row_major);
}

__device__ __forceinline__ unsigned smem_addr(const void* p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

// C = A B with mma.sync.m16n8k16 (f16 in, f32 accumulate) in inline PTX,
// the way CUTLASS-style kernels write it: the block's 64x32 A and 32x64 B
// tiles copied by cp.async.cg (16 bytes) into a double buffer, one tile
// ahead of the math (commit_group / wait_group 1), fragments read by
// ldmatrix (.x4 for A, .x4.trans for the row-major B). Block: 128 threads
// (2x2 warps), a 64x64 tile of C; a warp's 32x32 tile is 2x4 mma tiles.
__global__ void matmul_mma_cpasync(float* C, const half* A, const half* B, unsigned n)
{
    __shared__ __align__(128) half As[2][64][32 + 8];
    __shared__ __align__(128) half Bs[2][32][64 + 8];
    const unsigned tid = threadIdx.x, lane = tid % 32, warp = tid / 32, wy = warp / 2, wx = warp % 2;
    const unsigned brow = blockIdx.y * 64, bcol = blockIdx.x * 64;
    float acc[2][4][4];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 4; j++)
            for (int e = 0; e < 4; e++)
                acc[i][j][e] = 0.0f;

    auto load = [&](unsigned kt, int s) {
        for (unsigned c = tid; c < 256; c += 128) {
            const unsigned ar = c / 4, ac = (c % 4) * 8;
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_addr(&As[s][ar][ac])),
                         "l"(A + (size_t)(brow + ar) * n + kt * 32 + ac));
            const unsigned br = c / 8, bc = (c % 8) * 8;
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_addr(&Bs[s][br][bc])),
                         "l"(B + (size_t)(kt * 32 + br) * n + bcol + bc));
        }
        asm volatile("cp.async.commit_group;\n" ::);
    };

    const unsigned nk = n / 32;
    load(0, 0);
    for (unsigned kt = 0; kt < nk; kt++) {
        const int s = kt & 1;
        if (kt + 1 < nk) {
            load(kt + 1, s ^ 1);
            asm volatile("cp.async.wait_group 1;\n" ::);
        } else {
            asm volatile("cp.async.wait_group 0;\n" ::);
        }
        __syncthreads();
        for (int kk = 0; kk < 32; kk += 16) {
            unsigned a[2][4], b[4][2];
            for (int i = 0; i < 2; i++)
                asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                             : "=r"(a[i][0]), "=r"(a[i][1]), "=r"(a[i][2]), "=r"(a[i][3])
                             : "r"(smem_addr(&As[s][wy * 32 + i * 16 + lane % 16][kk + (lane / 16) * 8])));
            for (int j = 0; j < 4; j += 2)
                asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                             : "=r"(b[j][0]), "=r"(b[j][1]), "=r"(b[j + 1][0]), "=r"(b[j + 1][1])
                             : "r"(smem_addr(&Bs[s][kk + lane % 16][wx * 32 + j * 8 + (lane / 16) * 8])));
            for (int i = 0; i < 2; i++)
                for (int j = 0; j < 4; j++)
                    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                                 : "+f"(acc[i][j][0]), "+f"(acc[i][j][1]), "+f"(acc[i][j][2]), "+f"(acc[i][j][3])
                                 : "r"(a[i][0]), "r"(a[i][1]), "r"(a[i][2]), "r"(a[i][3]), "r"(b[j][0]),
                                   "r"(b[j][1]));
        }
        __syncthreads();
    }
    const unsigned g = lane / 4, t2 = (lane % 4) * 2;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 4; j++) {
            const unsigned r = brow + wy * 32 + i * 16 + g, c = bcol + wx * 32 + j * 8 + t2;
            *(float2*)&C[(size_t)r * n + c] = make_float2(acc[i][j][0], acc[i][j][1]);
            *(float2*)&C[(size_t)(r + 8) * n + c] = make_float2(acc[i][j][2], acc[i][j][3]);
        }
}

// y[i] = a*x[i] + x[i+1 within the tile] over tiles of 256 floats, each
// block walking its tiles with a two-stage cuda::pipeline at block scope:
// cuda::memcpy_async of the tile two ahead while the current one is used.
// Block: 256 threads; n a multiple of 256.
__global__ void pipeline_block(float* y, const float* x, unsigned n, float a)
{
    constexpr int stages = 2;
    __shared__ __align__(16) float buf[stages][256];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, stages> state;
    auto block = cg::this_thread_block();
    auto pipe = cuda::make_pipeline(block, &state);
    const unsigned ntiles = n / 256, tid = threadIdx.x;
    for (int s = 0; s < stages; s++) {
        const unsigned t = blockIdx.x + s * gridDim.x;
        pipe.producer_acquire();
        if (t < ntiles)
            cuda::memcpy_async(block, buf[s], x + (size_t)t * 256, cuda::aligned_size_t<16>(256 * sizeof(float)),
                               pipe);
        pipe.producer_commit();
    }
    int s = 0;
    for (unsigned t = blockIdx.x; t < ntiles; t += gridDim.x) {
        pipe.consumer_wait();
        const float v = a * buf[s][tid] + buf[s][(tid + 1) % 256];
        pipe.consumer_release();
        y[(size_t)t * 256 + tid] = v;
        const unsigned next = t + stages * gridDim.x;
        pipe.producer_acquire();
        if (next < ntiles)
            cuda::memcpy_async(block, buf[s], x + (size_t)next * 256,
                               cuda::aligned_size_t<16>(256 * sizeof(float)), pipe);
        pipe.producer_commit();
        s = (s + 1) % stages;
    }
}

// The same walk with the per-thread primitives (__pipeline_memcpy_async of
// 16 bytes, __pipeline_commit, __pipeline_wait_prior): each thread stages
// its own float4 and sums it. Block: 256 threads; n a multiple of 1024.
__global__ void pipeline_prims(float* y, const float4* x, unsigned n4)
{
    __shared__ float4 buf[2][256];
    const unsigned tid = threadIdx.x, stride = gridDim.x * 256;
    unsigned i = blockIdx.x * 256 + tid;
    if (i < n4)
        __pipeline_memcpy_async(&buf[0][tid], &x[i], sizeof(float4));
    __pipeline_commit();
    int s = 0;
    for (; i < n4; i += stride) {
        const unsigned next = i + stride;
        if (next < n4)
            __pipeline_memcpy_async(&buf[s ^ 1][tid], &x[next], sizeof(float4));
        __pipeline_commit();
        __pipeline_wait_prior(1);
        const float4 v = buf[s][tid];
        y[i] = (v.x + v.y) + (v.z + v.w);
        s ^= 1;
    }
}

// A block stages 1024 floats with cuda::memcpy_async on a cuda::barrier
// (on sm_90 a bulk copy completing on the barrier's transaction count),
// then writes each element minus its tile's first. Block: 256 threads.
__global__ void barrier_copy(float* y, const float* x, unsigned n)
{
    __shared__ __align__(16) float buf[1024];

    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0)
        init(&bar, block.size());
    block.sync();
    for (unsigned t = blockIdx.x; t < n / 1024; t += gridDim.x) {
        cuda::memcpy_async(block, buf, x + (size_t)t * 1024, cuda::aligned_size_t<16>(1024 * sizeof(float)), bar);
        bar.arrive_and_wait();
        for (unsigned i = threadIdx.x; i < 1024; i += blockDim.x)
            y[(size_t)t * 1024 + i] = buf[i] - buf[0];
        bar.arrive_and_wait();
    }
}

// Sum of x over clusters of 4 blocks: each block reduces a grid-stride
// slice in shared memory, then block 0 of each cluster reads the other
// blocks' sums through distributed shared memory and writes the cluster's
// sum to out[cluster]. Block: 256 threads.
__global__ void __cluster_dims__(4, 1, 1) cluster_reduce(float* out, const float* x, unsigned n)
{
    __shared__ float s[256];
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned tid = threadIdx.x;
    float v = 0.0f;
    for (unsigned i = blockIdx.x * 256 + tid; i < n; i += gridDim.x * 256)
        v += x[i];
    s[tid] = v;
    __syncthreads();
    for (unsigned w = 128; w > 0; w /= 2) {
        if (tid < w)
            s[tid] += s[tid + w];
        __syncthreads();
    }
    cluster.sync();
    if (cluster.block_rank() == 0 && tid == 0) {
        float sum = s[0];
        for (unsigned r = 1; r < cluster.num_blocks(); r++)
            sum += *cluster.map_shared_rank(&s[0], r);
        out[blockIdx.x / 4] = sum;
    }
    cluster.sync();
}
