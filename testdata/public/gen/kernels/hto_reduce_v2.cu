// How_to_optimize_in_GPU reduce/reduce_v2_no_bank_conflict.cu: reduce2 (sequential addressing).
#include "../../src/How_to_optimize_in_GPU/reduce/reduce_v2_no_bank_conflict.cu"
