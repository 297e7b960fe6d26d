// HeCBench adam-cuda (from ColossalAI): adam<float, float> (element-wise optimizer step, powf/sqrtf).
#include "../../src/HeCBench/src/adam-cuda/main.cu"
