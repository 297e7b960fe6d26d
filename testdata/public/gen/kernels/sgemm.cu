// SGEMM_CUDA (siboehm): the kernel headers of src/kernels/, instantiated with
// the template arguments src/runner.cu launches them with (M, N >= 128).
// NDEBUG as the project's own build defines it (its Makefile configures CMake
// with CMAKE_BUILD_TYPE=Release, whose CUDA flags are -O3 -DNDEBUG): the
// kernels' device-side assert()s are compiled out.
#define NDEBUG
#include "../../src/SGEMM_CUDA/src/kernels/1_naive.cuh"
#include "../../src/SGEMM_CUDA/src/kernels/2_kernel_global_mem_coalesce.cuh"
#include "../../src/SGEMM_CUDA/src/kernels/3_kernel_shared_mem_blocking.cuh"
#include "../../src/SGEMM_CUDA/src/kernels/4_kernel_1D_blocktiling.cuh"
#include "../../src/SGEMM_CUDA/src/kernels/5_kernel_2D_blocktiling.cuh"
#include "../../src/SGEMM_CUDA/src/kernels/6_kernel_vectorize.cuh"
#include "../../src/SGEMM_CUDA/src/kernels/9_kernel_autotuned.cuh"
#include "../../src/SGEMM_CUDA/src/kernels/10_kernel_warptiling.cuh"

// run_sgemm_coalesce, run_sgemm_shared_mem_block: BLOCKSIZE 32
template __global__ void sgemm_global_mem_coalesce<32>(int, int, int, float, const float *,
                                                       const float *, float, float *);
template __global__ void sgemm_shared_mem_block<32>(int, int, int, float, const float *,
                                                    const float *, float, float *);
// runSgemm1DBlocktiling: BM 64, BN 64, BK 8, TM 8
template __global__ void sgemm1DBlocktiling<64, 64, 8, 8>(int, int, int, float, const float *,
                                                          const float *, float, float *);
// runSgemm2DBlocktiling, runSgemmVectorize: BM 128, BN 128, BK 8, TM 8, TN 8
template __global__ void sgemm2DBlocktiling<128, 128, 8, 8, 8>(int, int, int, float, const float *,
                                                               const float *, float, float *);
template __global__ void sgemmVectorize<128, 128, 8, 8, 8>(int, int, int, float, float *, float *,
                                                           float, float *);
// runSgemmAutotuned: BM 128, BN 128, BK 16, TM 8, TN 8 (256 threads)
template __global__ void sgemmAutotuned<128, 128, 16, 8, 8>(int, int, int, float, float *, float *,
                                                            float, float *);
// runSgemmWarptiling: BM 128, BN 128, BK 16, WM 64, WN 64, WNITER 4, TM 8, TN 4, 128 threads
template __global__ void sgemmWarptiling<128, 128, 16, 64, 64, 4, 8, 4, 128>(int, int, int, float,
                                                                            float *, float *, float,
                                                                            float *);
