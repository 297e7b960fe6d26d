// How_to_optimize_in_GPU sgemm/sgemm_v1.cu: Sgemm<128,8,128,8,8,false>, as its main instantiates it (8x8 register tiles, float4 loads).
#include "../../src/How_to_optimize_in_GPU/sgemm/sgemm_v1.cu"
