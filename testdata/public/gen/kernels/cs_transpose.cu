// cuda-samples 6_Performance/transpose (TILE_DIM 32, BLOCK_ROWS 16): the
// sample's file as it is; its kernels are plain __global__ functions.
#include "../../src/cuda-samples/Samples/6_Performance/transpose/transpose.cu"
