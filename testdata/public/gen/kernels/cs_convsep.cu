// cuda-samples 2_Concepts_and_Techniques/convolutionSeparable: row and column passes, filter in __constant__ c_Kernel.
#include "../../src/cuda-samples/Samples/2_Concepts_and_Techniques/convolutionSeparable/convolutionSeparable.cu"
