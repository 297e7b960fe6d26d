// How_to_optimize_in_GPU reduce/reduce_v7_shuffle.cu: reduce7<blockSize, NUM_PER_THREAD> (warp shuffles).
#include "../../src/How_to_optimize_in_GPU/reduce/reduce_v7_shuffle.cu"
