// NVIDIA developer blog code-samples series/cuda-cpp/finite-difference:
// derivative_x/y/z with sPencils and lPencils (64^3 grid, coefficients in __constant__).
#include "../../src/code-samples/series/cuda-cpp/finite-difference/finite-difference.cu"
