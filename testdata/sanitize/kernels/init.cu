// Planted reads of uninitialised global memory for initcheck (ptxvm issue
// 25). A buffer the launch gives neither contents nor a fill is never
// written by the host. init_clean and init_kernel_written must report
// nothing; init_shared_uninit reads shared memory before any write, which
// compute-sanitizer does not track.

extern "C" __global__ void init_read_input(float* out, const float* in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i] * 2.0f; // in was never written
}

extern "C" __global__ void init_accumulate(float* out, const float* in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] += in[i]; // out was never zeroed
}

extern "C" __global__ void init_odd_half(int* out, int* tmp)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if ((i & 1) == 0)
        tmp[i] = i;
    __syncthreads();
    out[i] = tmp[i ^ 1]; // the odd elements were never written
}

extern "C" __global__ void init_partial_word(unsigned* out, unsigned short* tmp)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tmp[2 * i] = (unsigned short)i; // the low half of each word only
    __syncthreads();
    out[i] = reinterpret_cast<unsigned*>(tmp)[i]; // the high half is uninitialised
}

extern "C" __global__ void init_atomic_counter(int* out, int* counter)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = atomicAdd(counter, 1); // counter was never zeroed
}

extern "C" __global__ void init_sum_scratch(float* out, const float* scratch)
{
    // one thread sums a scratch buffer nobody filled: 64 uninitialised
    // reads by one thread at one instruction
    float v = 0.0f;
    if (threadIdx.x == 0)
        for (int j = 0; j < 64; j++)
            v += scratch[j];
    out[threadIdx.x] = v;
}

extern "C" __global__ void init_shared_uninit(float* out)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    if (t < 32)
        s[t] = 1.0f;
    __syncthreads();
    out[t] = s[63 - t]; // s[32..63] were never written (shared: not tracked by compute-sanitizer)
}

extern "C" __global__ void init_kernel_written(float* out, float* tmp, const float* in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tmp[i] = in[i] + 1.0f;
    __syncthreads();
    out[i] = tmp[i ^ 1];
}

extern "C" __global__ void init_clean(float* out, const float* in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i] * 2.0f;
}
