// Planted barrier misuse for synccheck (ptxvm issue 25). sync_clean must
// report nothing. Launched with one block of 64 or 128 threads.

extern "C" __global__ void sync_divergent_block(float* out, const float* in)
{
    __shared__ float s[128];
    int t = threadIdx.x;
    s[t] = in[t];
    if (t < 64) {
        // warps 2 and 3 skip this barrier and stay alive
        __syncthreads();
        s[t] += s[t + 64];
    }
    __syncthreads();
    out[t] = s[t];
}

extern "C" __global__ void sync_divergent_warp(float* out, const float* in)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    if ((t & 31) < 16) {
        // half of each warp skips this barrier and stays alive
        __syncthreads();
        s[t] += 1.0f;
    }
    __syncthreads();
    out[t] = s[t];
}

extern "C" __global__ void sync_bar_count(float* out, const float* in)
{
    int t = threadIdx.x;
    float v = in[t];
    // a named barrier whose thread count (48, in a register) is not a
    // multiple of the warp size
    int n = 48 + (int)(v > 1e30f);
    asm volatile("bar.sync 1, %0;" ::"r"(n));
    out[t] = v;
}

extern "C" __global__ void sync_syncwarp_self(float* out, const float* in)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    // the mask leaves out lane 0, which executes it
    unsigned m = 0xfffffffeu | (unsigned)(in[0] > 1e30f);
    __syncwarp(m);
    out[t] = s[t ^ 1];
}

extern "C" __global__ void sync_syncwarp_mismatch(float* out, const float* in)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    // each half names only itself plus a lane of the other half that is
    // elsewhere: the lanes disagree on the mask
    if ((t & 31) < 16)
        __syncwarp(0x0001ffffu);
    else
        __syncwarp(0xffff0000u);
    out[t] = s[t];
}

extern "C" __global__ void sync_syncwarp_missing(float* out, const float* in)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    if ((t & 31) < 16) {
        // names lanes 16-31, which skip it and stay alive to the barrier
        __syncwarp(0xffffffffu);
        s[t] += 1.0f;
    }
    __syncthreads();
    out[t] = s[t];
}

extern "C" __global__ void sync_clean(float* out, const float* in)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    float v = s[63 - t];
    __syncwarp();
    __syncthreads();
    s[t] = v;
    __syncthreads();
    out[t] = s[(t + 1) % 64];
}
