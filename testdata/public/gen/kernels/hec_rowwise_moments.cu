// HeCBench rowwiseMoments-cuda (from PyTorch): RowwiseMomentsKernel<float> (Welford mean/rstd per row, block reduction).
#include "../../src/HeCBench/src/rowwiseMoments-cuda/main.cu"
