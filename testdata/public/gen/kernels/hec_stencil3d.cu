// HeCBench stencil3d-cuda (LLNL): stencil3d (variable-coefficient 3D stencil in doubles, planes in shared memory).
#include "../../src/HeCBench/src/stencil3d-cuda/main.cu"
