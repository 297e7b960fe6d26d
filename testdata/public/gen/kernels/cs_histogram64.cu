// cuda-samples 2_Concepts_and_Techniques/histogram: histogram64Kernel and mergeHistogram64Kernel.
#include "../../src/cuda-samples/Samples/2_Concepts_and_Techniques/histogram/histogram64.cu"
