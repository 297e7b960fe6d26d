// cuda-samples 0_Introduction/matrixMul: MatrixMulCUDA<BLOCK_SIZE> (the sample's main instantiates 16 and 32).
#include "../../src/cuda-samples/Samples/0_Introduction/matrixMul/matrixMul.cu"
