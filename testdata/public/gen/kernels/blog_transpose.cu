// NVIDIA developer blog code-samples series/cuda-cpp/transpose (TILE_DIM 32,
// BLOCK_ROWS 8): copy, copySharedMem, transposeNaive, transposeCoalesced,
// transposeNoBankConflicts; the matrix width is gridDim.x * TILE_DIM.
#include "../../src/code-samples/series/cuda-cpp/transpose/transpose.cu"
