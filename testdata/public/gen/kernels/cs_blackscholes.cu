// cuda-samples 5_Domain_Specific/BlackScholes: BlackScholesGPU.
#include "../../src/cuda-samples/Samples/5_Domain_Specific/BlackScholes/BlackScholes_kernel.cuh"
