// How_to_optimize_in_GPU elementwise/elementwise_add.cu: add, vec2_add, vec4_add.
#include "../../src/How_to_optimize_in_GPU/elementwise/elementwise_add.cu"
