// fake_cudart.cpp — a stand-in for the CUDA runtime, to run a probe's host
// code where there is no GPU (fake.sh): device memory is host memory,
// launches do nothing (the clock records stay zero), the device is an
// H100-shaped one of 132 SMs. What it is for: the records a probe writes
// (their launches, arguments and shapes) without the GPU's figures, so
// that the Go replay tests (scheduler/timing/mech_test.go) can be run
// against the PTX the local nvcc emits.
#include <cuda_runtime_api.h>

#include <cstdlib>
#include <cstring>

extern "C" {

void** __cudaRegisterFatBinary(void*)
{
    static void* h = nullptr;
    return &h;
}
void __cudaRegisterFatBinaryEnd(void**) {}
void __cudaUnregisterFatBinary(void**) {}
void __cudaRegisterFunction(void**, const char*, char*, const char*, int, uint3*, uint3*, dim3*, dim3*, int*) {}
void __cudaRegisterVar(void**, char*, char*, const char*, int, size_t, int, int) {}

static dim3 g_grid, g_block;
static size_t g_shared;
static void* g_stream;

unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem, void* stream)
{
    g_grid = gridDim;
    g_block = blockDim;
    g_shared = sharedMem;
    g_stream = stream;
    return 0;
}
cudaError_t __cudaPopCallConfiguration(dim3* gridDim, dim3* blockDim, size_t* sharedMem, void* stream)
{
    *gridDim = g_grid;
    *blockDim = g_block;
    *sharedMem = g_shared;
    *(void**)stream = g_stream;
    return cudaSuccess;
}

cudaError_t cudaLaunchKernel(const void*, dim3, dim3, void**, size_t, cudaStream_t) { return cudaSuccess; }
cudaError_t cudaDeviceSynchronize(void) { return cudaSuccess; }
cudaError_t cudaGetLastError(void) { return cudaSuccess; }
const char* cudaGetErrorString(cudaError_t) { return "fake error"; }

// Large allocations are not touched unless written (calloc), and memsets
// of them are skipped: nothing reads them back but the zeros they start as.
cudaError_t cudaMalloc(void** p, size_t n)
{
    *p = calloc(1, n ? n : 1);
    return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
cudaError_t cudaFree(void* p)
{
    free(p);
    return cudaSuccess;
}
cudaError_t cudaMemset(void* p, int v, size_t n)
{
    if (n <= (64u << 20)) memset(p, v, n);
    return cudaSuccess;
}
cudaError_t cudaMemcpy(void* d, const void* s, size_t n, cudaMemcpyKind)
{
    memcpy(d, s, n);
    return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t* e)
{
    *e = (cudaEvent_t)malloc(8);
    return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t e)
{
    free(e);
    return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t) { return cudaSuccess; }
cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t, cudaEvent_t)
{
    *ms = 0.001f;
    return cudaSuccess;
}

static void props(cudaDeviceProp* p)
{
    memset(p, 0, sizeof *p);
    strcpy(p->name, "fake H100 (no GPU: fake_cudart)");
    p->multiProcessorCount = 132;
    p->sharedMemPerMultiprocessor = 233472;
    p->sharedMemPerBlockOptin = 232448;
    p->maxThreadsPerMultiProcessor = 2048;
    p->l2CacheSize = 52428800;
    p->major = 9;
}
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int)
{
    props(p);
    return cudaSuccess;
}
#if CUDART_VERSION >= 12000
cudaError_t cudaGetDeviceProperties_v2(cudaDeviceProp* p, int)
{
    props(p);
    return cudaSuccess;
}
#endif
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* a, const void*)
{
    memset(a, 0, sizeof *a);
    a->numRegs = 32;
    return cudaSuccess;
}
cudaError_t cudaFuncSetAttribute(const void*, cudaFuncAttribute, int) { return cudaSuccess; }
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* n, const void*, int threads, size_t smem)
{
    int by_threads = threads > 0 ? 2048 / threads : 1;
    int by_smem = smem ? (int)(233472 / (smem + 1024)) : 32;
    int v = by_threads < by_smem ? by_threads : by_smem;
    *n = v < 32 ? v : 32;
    return cudaSuccess;
}
}
