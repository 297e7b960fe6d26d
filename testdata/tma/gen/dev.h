// dev.h: device helpers (inline PTX) shared by the recording kernels.
#pragma once
#include <cstdint>

__device__ __forceinline__ unsigned smem(const void* p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}
__device__ __forceinline__ void mbarInit(unsigned bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void fenceInit()
{
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
__device__ __forceinline__ void fenceProxyAsyncShared()
{
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
__device__ __forceinline__ void fenceProxyAsync()
{
    asm volatile("fence.proxy.async;" ::: "memory");
}
__device__ __forceinline__ void arriveExpectTx(unsigned bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
// waitParity spins on try_wait.parity at most limit times and says whether
// the phase completed (a recording never hangs on a wrong tx count).
__device__ __forceinline__ unsigned waitParity(unsigned bar, unsigned parity)
{
    unsigned done = 0;
    for (int i = 0; i < 200000 && !done; i++)
        asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
    return done;
}
