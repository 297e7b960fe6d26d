// A device-side assert() (nvcc calls the runtime's __assertfail where it
// fails): y[i] = sqrt(x[i] - lo), asserting x[i] >= lo. The launch with
// every x[i] >= lo succeeds; the one with some below fails with
// cudaErrorAssert. In a module of its own: a failed assert ends the
// process's CUDA context.
#include <cassert>

__global__ void assert_range(float* y, const float* x, unsigned n, float lo)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        assert(x[i] >= lo && "input below the range");
        y[i] = sqrtf(x[i] - lo);
    }
}
