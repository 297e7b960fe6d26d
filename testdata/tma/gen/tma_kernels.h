// tma_kernels.h (written by the python snippet in gen/README.md):
// cp.async.bulk.tensor tile mode, 1D to 5D, loads into shared memory
// (mbarrier complete_tx) and stores from it (bulk_group), on sm_90, with
// tensor maps the host encodes (cuTensorMapEncodeTiled). Usage: tma OUTDIR CASE.
#include "tmap.h"
#include "dev.h"

#define SMEM 16384

extern "C" __global__ void tma_load_1d(const __grid_constant__ CUtensorMap tm, int c0, unsigned bytes, uint8_t* out, unsigned* st)
{
    __shared__ alignas(1024) uint8_t buf[SMEM];
    __shared__ alignas(8) uint64_t bar;
    unsigned t = threadIdx.x;
    for (unsigned i = t; i < SMEM; i += blockDim.x)
        buf[i] = 0xA5;
    if (t == 0) {
        mbarInit(smem(&bar), 1);
        fenceInit();
    }
    fenceProxyAsyncShared();
    __syncthreads();
    if (t == 0) {
        arriveExpectTx(smem(&bar), bytes);
        asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2}], [%3];"
                     ::"r"(smem(buf)), "l"(&tm), "r"(c0), "r"(smem(&bar)) : "memory");
    }
    unsigned w = waitParity(smem(&bar), 0);
    __syncthreads();
    for (unsigned i = t; i < SMEM; i += blockDim.x)
        out[i] = buf[i];
    st[t] = w;
}

extern "C" __global__ void tma_store_1d(const __grid_constant__ CUtensorMap tm, int c0, unsigned bytes, const uint8_t* in)
{
    __shared__ alignas(1024) uint8_t buf[SMEM];
    unsigned t = threadIdx.x;
    for (unsigned i = t; i < bytes; i += blockDim.x)
        buf[i] = in[i];
    fenceProxyAsyncShared();
    __syncthreads();
    if (t == 0) {
        asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%1}], [%2];"
                     ::"l"(&tm), "r"(c0), "r"(smem(buf)) : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    }
}

extern "C" __global__ void tma_load_2d(const __grid_constant__ CUtensorMap tm, int c0, int c1, unsigned bytes, uint8_t* out, unsigned* st)
{
    __shared__ alignas(1024) uint8_t buf[SMEM];
    __shared__ alignas(8) uint64_t bar;
    unsigned t = threadIdx.x;
    for (unsigned i = t; i < SMEM; i += blockDim.x)
        buf[i] = 0xA5;
    if (t == 0) {
        mbarInit(smem(&bar), 1);
        fenceInit();
    }
    fenceProxyAsyncShared();
    __syncthreads();
    if (t == 0) {
        arriveExpectTx(smem(&bar), bytes);
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                     ::"r"(smem(buf)), "l"(&tm), "r"(c0), "r"(c1), "r"(smem(&bar)) : "memory");
    }
    unsigned w = waitParity(smem(&bar), 0);
    __syncthreads();
    for (unsigned i = t; i < SMEM; i += blockDim.x)
        out[i] = buf[i];
    st[t] = w;
}

extern "C" __global__ void tma_store_2d(const __grid_constant__ CUtensorMap tm, int c0, int c1, unsigned bytes, const uint8_t* in)
{
    __shared__ alignas(1024) uint8_t buf[SMEM];
    unsigned t = threadIdx.x;
    for (unsigned i = t; i < bytes; i += blockDim.x)
        buf[i] = in[i];
    fenceProxyAsyncShared();
    __syncthreads();
    if (t == 0) {
        asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];"
                     ::"l"(&tm), "r"(c0), "r"(c1), "r"(smem(buf)) : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    }
}

extern "C" __global__ void tma_load_3d(const __grid_constant__ CUtensorMap tm, int c0, int c1, int c2, unsigned bytes, uint8_t* out, unsigned* st)
{
    __shared__ alignas(1024) uint8_t buf[SMEM];
    __shared__ alignas(8) uint64_t bar;
    unsigned t = threadIdx.x;
    for (unsigned i = t; i < SMEM; i += blockDim.x)
        buf[i] = 0xA5;
    if (t == 0) {
        mbarInit(smem(&bar), 1);
        fenceInit();
    }
    fenceProxyAsyncShared();
    __syncthreads();
    if (t == 0) {
        arriveExpectTx(smem(&bar), bytes);
        asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];"
                     ::"r"(smem(buf)), "l"(&tm), "r"(c0), "r"(c1), "r"(c2), "r"(smem(&bar)) : "memory");
    }
    unsigned w = waitParity(smem(&bar), 0);
    __syncthreads();
    for (unsigned i = t; i < SMEM; i += blockDim.x)
        out[i] = buf[i];
    st[t] = w;
}

extern "C" __global__ void tma_store_3d(const __grid_constant__ CUtensorMap tm, int c0, int c1, int c2, unsigned bytes, const uint8_t* in)
{
    __shared__ alignas(1024) uint8_t buf[SMEM];
    unsigned t = threadIdx.x;
    for (unsigned i = t; i < bytes; i += blockDim.x)
        buf[i] = in[i];
    fenceProxyAsyncShared();
    __syncthreads();
    if (t == 0) {
        asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%1, %2, %3}], [%4];"
                     ::"l"(&tm), "r"(c0), "r"(c1), "r"(c2), "r"(smem(buf)) : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    }
}

extern "C" __global__ void tma_load_4d(const __grid_constant__ CUtensorMap tm, int c0, int c1, int c2, int c3, unsigned bytes, uint8_t* out, unsigned* st)
{
    __shared__ alignas(1024) uint8_t buf[SMEM];
    __shared__ alignas(8) uint64_t bar;
    unsigned t = threadIdx.x;
    for (unsigned i = t; i < SMEM; i += blockDim.x)
        buf[i] = 0xA5;
    if (t == 0) {
        mbarInit(smem(&bar), 1);
        fenceInit();
    }
    fenceProxyAsyncShared();
    __syncthreads();
    if (t == 0) {
        arriveExpectTx(smem(&bar), bytes);
        asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], [%6];"
                     ::"r"(smem(buf)), "l"(&tm), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(smem(&bar)) : "memory");
    }
    unsigned w = waitParity(smem(&bar), 0);
    __syncthreads();
    for (unsigned i = t; i < SMEM; i += blockDim.x)
        out[i] = buf[i];
    st[t] = w;
}

extern "C" __global__ void tma_store_4d(const __grid_constant__ CUtensorMap tm, int c0, int c1, int c2, int c3, unsigned bytes, const uint8_t* in)
{
    __shared__ alignas(1024) uint8_t buf[SMEM];
    unsigned t = threadIdx.x;
    for (unsigned i = t; i < bytes; i += blockDim.x)
        buf[i] = in[i];
    fenceProxyAsyncShared();
    __syncthreads();
    if (t == 0) {
        asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.bulk_group [%0, {%1, %2, %3, %4}], [%5];"
                     ::"l"(&tm), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(smem(buf)) : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    }
}

extern "C" __global__ void tma_load_5d(const __grid_constant__ CUtensorMap tm, int c0, int c1, int c2, int c3, int c4, unsigned bytes, uint8_t* out, unsigned* st)
{
    __shared__ alignas(1024) uint8_t buf[SMEM];
    __shared__ alignas(8) uint64_t bar;
    unsigned t = threadIdx.x;
    for (unsigned i = t; i < SMEM; i += blockDim.x)
        buf[i] = 0xA5;
    if (t == 0) {
        mbarInit(smem(&bar), 1);
        fenceInit();
    }
    fenceProxyAsyncShared();
    __syncthreads();
    if (t == 0) {
        arriveExpectTx(smem(&bar), bytes);
        asm volatile("cp.async.bulk.tensor.5d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5, %6}], [%7];"
                     ::"r"(smem(buf)), "l"(&tm), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4), "r"(smem(&bar)) : "memory");
    }
    unsigned w = waitParity(smem(&bar), 0);
    __syncthreads();
    for (unsigned i = t; i < SMEM; i += blockDim.x)
        out[i] = buf[i];
    st[t] = w;
}

extern "C" __global__ void tma_store_5d(const __grid_constant__ CUtensorMap tm, int c0, int c1, int c2, int c3, int c4, unsigned bytes, const uint8_t* in)
{
    __shared__ alignas(1024) uint8_t buf[SMEM];
    unsigned t = threadIdx.x;
    for (unsigned i = t; i < bytes; i += blockDim.x)
        buf[i] = in[i];
    fenceProxyAsyncShared();
    __syncthreads();
    if (t == 0) {
        asm volatile("cp.async.bulk.tensor.5d.global.shared::cta.bulk_group [%0, {%1, %2, %3, %4, %5}], [%6];"
                     ::"l"(&tm), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4), "r"(smem(buf)) : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    }
}
