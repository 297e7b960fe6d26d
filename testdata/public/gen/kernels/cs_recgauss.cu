// cuda-samples 5_Domain_Specific/recursiveGaussian: d_recursiveGaussian_rgba (one thread per image column, walking down and back up).
#include "../../src/cuda-samples/Samples/5_Domain_Specific/recursiveGaussian/recursiveGaussian_kernel.cuh"
