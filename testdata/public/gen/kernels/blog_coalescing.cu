// NVIDIA developer blog code-samples series/cuda-cpp/coalescing-global:
// offset<T> and stride<T> (the post's main() instantiates float and double).
#include "../../src/code-samples/series/cuda-cpp/coalescing-global/coalescing.cu"
