// How_to_optimize_in_GPU sgemv/Sgemv_v0.cu: Sgemv_v0 (a warp per row, shuffle reduction).
#include "../../src/How_to_optimize_in_GPU/sgemv/Sgemv_v0.cu"
