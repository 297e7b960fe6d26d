// NVIDIA developer blog code-samples posts/parallel_reduction_with_shfl: the
// device_reduce_* kernels of its headers (main.cu is not used: it needs CUB).
// The post predates CUDA 9: __shfl_down (without _sync) no longer exists for
// sm_70+, so it is defined here as the full-warp __shfl_down_sync it meant.
#define __shfl_down(val, offset) __shfl_down_sync(0xffffffffu, (val), (offset))
#include "../../src/code-samples/posts/parallel_reduction_with_shfl/device_reduce_atomic.h"
#include "../../src/code-samples/posts/parallel_reduction_with_shfl/device_reduce_warp_atomic.h"
#include "../../src/code-samples/posts/parallel_reduction_with_shfl/device_reduce_block_atomic.h"
#include "../../src/code-samples/posts/parallel_reduction_with_shfl/device_reduce_stable.h"
