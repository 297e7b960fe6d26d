// cuda-samples 0_Introduction/vectorAdd: vectorAdd.
#include "../../src/cuda-samples/Samples/0_Introduction/vectorAdd/vectorAdd.cu"
