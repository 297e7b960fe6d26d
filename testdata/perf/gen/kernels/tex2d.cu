// tex2d.cu — 2D texture fetches for the texture-cache model (issue 8): row
// walks (a warp's lanes along x) and column walks (along y), point and
// linear filtering (the spec's texture decides), footprints set by a scale
// (1: one texel per thread, 2: every other texel, 0.5: two threads per texel)
// and 2D tiles of 8 x 4 threads per warp.
//
// Thread t of the launch samples at (u, v) = ((x + 0.5) * scale + offset,
// (y + 0.5) * scale + offset), unnormalized coordinates.

#define GID (blockIdx.x * blockDim.x + threadIdx.x)

// x fastest: a warp reads 32 consecutive texels of one row.
extern "C" __global__ void tex_rows(float* out, cudaTextureObject_t t, unsigned w, float scale,
                                    float offset)
{
    unsigned i = GID;
    unsigned x = i % w, y = i / w;
    out[i] = tex2D<float>(t, (x + 0.5f) * scale + offset, (y + 0.5f) * scale + offset);
}

// y fastest: a warp reads 32 texels of one column.
extern "C" __global__ void tex_cols(float* out, cudaTextureObject_t t, unsigned h, float scale,
                                    float offset)
{
    unsigned i = GID;
    unsigned y = i % h, x = i / h;
    out[i] = tex2D<float>(t, (x + 0.5f) * scale + offset, (y + 0.5f) * scale + offset);
}

// 2D blocks (blockDim 8 x 4 x k): a warp covers an 8 x 4 tile of texels.
extern "C" __global__ void tex_tiles(float* out, cudaTextureObject_t t, unsigned w, float scale,
                                     float offset)
{
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
    out[y * w + x] = tex2D<float>(t, (x + 0.5f) * scale + offset, (y + 0.5f) * scale + offset);
}

// Texels re-read: each thread samples its texel and its 8 neighbours (a 3x3
// footprint per thread, heavily shared across the warp).
extern "C" __global__ void tex_3x3(float* out, cudaTextureObject_t t, unsigned w)
{
    unsigned i = GID;
    float x = (i % w) + 0.5f, y = (i / w) + 0.5f;
    float acc = 0.0f;
#pragma unroll
    for (int dy = -1; dy <= 1; ++dy)
#pragma unroll
        for (int dx = -1; dx <= 1; ++dx)
            acc += tex2D<float>(t, x + dx, y + dy);
    out[i] = acc;
}
