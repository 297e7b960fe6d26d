// HeCBench babelstream-cuda (BabelStream, University of Bristol): copy, mul, add, triad, nstream and dot kernels.
#include "../../src/HeCBench/src/babelstream-cuda/main.cu"
