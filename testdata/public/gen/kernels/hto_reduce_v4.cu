// How_to_optimize_in_GPU reduce/reduce_v4_unroll_last_warp.cu: reduce4 (last warp unrolled through volatile shared memory).
#include "../../src/How_to_optimize_in_GPU/reduce/reduce_v4_unroll_last_warp.cu"
