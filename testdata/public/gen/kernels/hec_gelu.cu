// HeCBench gelu-cuda (from FasterTransformer): gelu_bias_loop (half2 bias add and tanh GELU).
#include "../../src/HeCBench/src/gelu-cuda/main.cu"
