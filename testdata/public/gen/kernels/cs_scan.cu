// cuda-samples 2_Concepts_and_Techniques/scan: scanExclusiveShared, scanExclusiveShared2, uniformUpdate.
#include "../../src/cuda-samples/Samples/2_Concepts_and_Techniques/scan/scan.cu"
