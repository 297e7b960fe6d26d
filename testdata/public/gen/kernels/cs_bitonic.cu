// cuda-samples 2_Concepts_and_Techniques/sortingNetworks: bitonic sort kernels.
#include "../../src/cuda-samples/Samples/2_Concepts_and_Techniques/sortingNetworks/bitonicSort.cu"
