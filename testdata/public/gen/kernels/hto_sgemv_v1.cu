// How_to_optimize_in_GPU sgemv/Sgemv_v1.cu: Sgemv_v1 (a warp per row, float4 loads).
#include "../../src/How_to_optimize_in_GPU/sgemv/Sgemv_v1.cu"
