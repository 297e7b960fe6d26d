// HeCBench addBiasResidualLayerNorm-cuda (from FasterTransformer): addBiasResidualPostLayerNorm and generalAddBiasResidualPostLayerNorm.
#include "../../src/HeCBench/src/addBiasResidualLayerNorm-cuda/main.cu"
