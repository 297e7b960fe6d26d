// Planted out-of-bounds and misaligned accesses for memcheck (ptxvm issue
// 25). mem_clean must report nothing.

extern "C" __global__ void mem_global_read_past(float* out, const float* in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i + 1]; // the last thread reads one element past in
}

extern "C" __global__ void mem_global_write_past(float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i + n - 16] = 1.0f; // the last 16 threads write past out
}

extern "C" __global__ void mem_shared_past(float* out, const float* in, int stride)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    out[t] = s[t * stride]; // stride 2: threads 32..63 read past s
}

extern "C" __global__ void mem_misaligned(float* out, const char* in)
{
    int t = threadIdx.x;
    out[t] = *reinterpret_cast<const float*>(in + 4 * t + 2); // 2 bytes off
}

extern "C" __global__ void mem_local_past(int* out, const int* in, int k)
{
    int a[16];
    int t = threadIdx.x;
    for (int j = 0; j < 16; j++)
        a[j] = in[t] + j;
    out[t] = a[(t * k) & 0xfffff]; // k = 4096: far past the thread's stack
}

extern "C" __global__ void mem_clean(float* out, const float* in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i] + in[n - 1 - i];
}
