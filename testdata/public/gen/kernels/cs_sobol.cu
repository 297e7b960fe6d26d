// cuda-samples 5_Domain_Specific/SobolQRNG: sobolGPU_kernel.
#include "../../src/cuda-samples/Samples/5_Domain_Specific/SobolQRNG/sobol_gpu.cu"
