// HeCBench softmax-cuda: softMax (a thread per row) and softMax2 (a warp per row, cooperative-groups reductions).
#include "../../src/HeCBench/src/softmax-cuda/main.cu"
