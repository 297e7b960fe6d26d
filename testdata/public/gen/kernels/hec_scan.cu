// HeCBench scan-cuda: scan_bcao and the other block-scan kernels (bank-conflict-avoiding work-efficient scan).
#include "../../src/HeCBench/src/scan-cuda/main.cu"
