// Planted shared-memory races for racecheck (ptxvm issue 25). Each kernel
// says which hazard it plants; the *_clean kernels must report nothing.
// Launched with one or two blocks of 64 threads (two warps).

extern "C" __global__ void race_raw_nosync(float* out, const float* in)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    // missing __syncthreads(): the read of a neighbour's element races
    // with its write (RAW), across warps (t = 31 reads s[32]) and lanes
    out[blockIdx.x * 64 + t] = s[(t + 1) % 64];
}

extern "C" __global__ void race_war(float* out, const float* in)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    float v = s[(t + 32) % 64];
    // missing __syncthreads(): the other warp may still read s[t] (WAR)
    s[t] = v * 2.0f;
    __syncthreads();
    out[blockIdx.x * 64 + t] = s[t];
}

extern "C" __global__ void race_waw(int* out)
{
    __shared__ volatile int s[1];
    int t = threadIdx.x;
    // every thread writes its own id to one word (WAW, different values)
    s[0] = t;
    __syncthreads();
    if (t == 0)
        out[blockIdx.x] = s[0];
}

extern "C" __global__ void race_waw_same(float* out)
{
    __shared__ volatile float s[1];
    int t = threadIdx.x;
    // every thread writes the same value: a benign WAW
    s[0] = 1.0f;
    __syncthreads();
    if (t == 0)
        out[blockIdx.x] = s[0];
}

extern "C" __global__ void race_reduce_nosync(float* out, const float* in)
{
    __shared__ volatile float s[64];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * 64 + t];
    __syncthreads();
    for (int k = 32; k > 0; k >>= 1) {
        if (t < k)
            s[t] += s[t + k];
        // missing __syncthreads() inside the loop
    }
    if (t == 0)
        out[blockIdx.x] = s[0];
}

extern "C" __global__ void race_warp_nosyncwarp(float* out, const float* in)
{
    __shared__ volatile float s[64];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * 64 + t];
    __syncthreads();
    // the pre-Volta warp-synchronous tail without __syncwarp(): lanes of
    // one warp are not synchronised on sm_70+
    if (t < 32) {
        s[t] += s[t + 32];
        s[t] += s[t + 16];
        s[t] += s[t + 8];
        s[t] += s[t + 4];
        s[t] += s[t + 2];
        s[t] += s[t + 1];
    }
    if (t == 0)
        out[blockIdx.x] = s[0];
}

extern "C" __global__ void race_syncwarp_partial(float* out, const float* in)
{
    __shared__ float s[32];
    int t = threadIdx.x;
    int lane = t & 31;
    float v = 0.0f;
    if (t < 32) {
        if (lane < 16) {
            s[lane] = in[lane];
            // orders lanes 0-15 only; lanes 16-31 are not members
            __syncwarp(0x0000ffffu);
        } else {
            v = s[lane - 16];
        }
    }
    out[blockIdx.x * 64 + t] = v;
}

extern "C" __global__ void race_clean_syncwarp(float* out, const float* in)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * 64 + t];
    __syncthreads();
    if (t < 32) {
        float v = s[t] + s[t + 32];
        __syncwarp();
        s[t] = v;
        __syncwarp();
        for (int k = 16; k > 0; k >>= 1) {
            v = s[t] + (t < k ? s[t + k] : 0.0f);
            __syncwarp();
            s[t] = v;
            __syncwarp();
        }
    }
    if (t == 0)
        out[blockIdx.x] = s[0];
}

extern "C" __global__ void race_clean_atomic(int* out)
{
    __shared__ int s[1];
    int t = threadIdx.x;
    if (t == 0)
        s[0] = 0;
    __syncthreads();
    atomicAdd(&s[0], t); // atomics do not race
    __syncthreads();
    if (t == 0)
        out[blockIdx.x] = s[0];
}
