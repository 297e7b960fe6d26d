// How_to_optimize_in_GPU reduce/reduce_v1_no_divergence_branch.cu: reduce1 (strided index, shared-memory bank conflicts).
#include "../../src/How_to_optimize_in_GPU/reduce/reduce_v1_no_divergence_branch.cu"
