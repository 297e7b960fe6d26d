// cuda-samples 2_Concepts_and_Techniques/threadFenceReduction: reduceSinglePass (last block sums the partials, __threadfence + atomicInc ticket).
#include "../../src/cuda-samples/Samples/2_Concepts_and_Techniques/threadFenceReduction/threadFenceReduction_kernel.cuh"
