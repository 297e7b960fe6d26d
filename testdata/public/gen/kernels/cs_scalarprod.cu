// cuda-samples 2_Concepts_and_Techniques/scalarProd: scalarProdGPU.
#include "../../src/cuda-samples/Samples/2_Concepts_and_Techniques/scalarProd/scalarProd_kernel.cuh"
