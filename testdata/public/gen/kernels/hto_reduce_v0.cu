// How_to_optimize_in_GPU reduce/reduce_v0_baseline.cu: reduce0 (interleaved addressing, divergent tid % (2*s)).
#include "../../src/How_to_optimize_in_GPU/reduce/reduce_v0_baseline.cu"
