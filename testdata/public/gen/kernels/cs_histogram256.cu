// cuda-samples 2_Concepts_and_Techniques/histogram: histogram256Kernel and mergeHistogram256Kernel.
#include "../../src/cuda-samples/Samples/2_Concepts_and_Techniques/histogram/histogram256.cu"
