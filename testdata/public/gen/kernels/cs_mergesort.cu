// cuda-samples 0_Introduction/mergeSort: mergeSortSharedKernel and the merge kernels.
#include "../../src/cuda-samples/Samples/0_Introduction/mergeSort/mergeSort.cu"
