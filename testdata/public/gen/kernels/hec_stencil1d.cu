// HeCBench stencil1d-cuda: stencil_1d (radius-7 1D stencil through shared memory, integers).
#include "../../src/HeCBench/src/stencil1d-cuda/stencil_1d.cu"
