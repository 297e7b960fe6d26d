// texture.cu — texture fetches through texture objects (cudaTextureObject_t,
// a .u64 parameter): 1D/2D/3D CUDA arrays with point and linear filtering,
// clamp/wrap/mirror/border addressing, normalized coordinates, u8 data read
// as normalized floats, tex1Dfetch on linear memory, and tex2Dgather (tld4).
// The addressing/filtering modes are properties of the texture object, set by
// the launch spec; the same kernel serves several cases.

// 2D sample of a 1-channel texture at per-thread coordinates (x, y).
__global__ void tex2d_sample(float* out, cudaTextureObject_t tex, const float* coords, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = tex2D<float>(tex, coords[2 * i], coords[2 * i + 1]);
}

// 2D sample of a 4-channel float texture.
__global__ void tex2d_sample4(float4* out, cudaTextureObject_t tex, const float* coords, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = tex2D<float4>(tex, coords[2 * i], coords[2 * i + 1]);
}

// 2D point fetch of a signed 32-bit integer texture (element read mode).
__global__ void tex2d_int(int* out, cudaTextureObject_t tex, const float* coords, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = tex2D<int>(tex, coords[2 * i], coords[2 * i + 1]);
}

// tex1Dfetch gathers from linear memory: f32, s32 and 4 x f32 objects, with
// some indices out of range.
__global__ void tex1dfetch_gather(float* out, int* outi, float4* out4, cudaTextureObject_t tf,
                                  cudaTextureObject_t ti, cudaTextureObject_t t4, const int* idx,
                                  unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int j = idx[i];
    out[i] = tex1Dfetch<float>(tf, j);
    outi[i] = tex1Dfetch<int>(ti, j);
    out4[i] = tex1Dfetch<float4>(t4, j);
}

// 1D CUDA-array sample.
__global__ void tex1d_sample(float* out, cudaTextureObject_t tex, const float* x, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = tex1D<float>(tex, x[i]);
}

// 3D sample at (x, y, z).
__global__ void tex3d_sample(float* out, cudaTextureObject_t tex, const float* coords, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = tex3D<float>(tex, coords[3 * i], coords[3 * i + 1], coords[3 * i + 2]);
}

// tex2Dgather (tld4) of each of the 4 components: out K=4 float4.
__global__ void tex2d_gather(float4* out, cudaTextureObject_t tex, const float* coords, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float x = coords[2 * i], y = coords[2 * i + 1];
    out[4 * i] = tex2Dgather<float4>(tex, x, y, 0);
    out[4 * i + 1] = tex2Dgather<float4>(tex, x, y, 1);
    out[4 * i + 2] = tex2Dgather<float4>(tex, x, y, 2);
    out[4 * i + 3] = tex2Dgather<float4>(tex, x, y, 3);
}
