// HeCBench stddev-cuda (from RAFT): sopKernel (column sums of squares, shared and global float atomics) and sampleKernel.
#include "../../src/HeCBench/src/stddev-cuda/main.cu"
