// cuda-samples 5_Domain_Specific/fastWalshTransform: fwtBatch1Kernel, fwtBatch2Kernel, modulateKernel.
// The sample includes <helper_cuda.h> before this header (getLastCudaError).
#include <helper_cuda.h>
#include "../../src/cuda-samples/Samples/5_Domain_Specific/fastWalshTransform/fastWalshTransform_kernel.cuh"
