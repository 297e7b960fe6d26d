// transpose.cu — the mission's transposes of a width x height f32 matrix
// (row-major in, row-major out = height x width). Blocks are TILE_DIM x
// BLOCK_ROWS threads; each thread moves TILE_DIM/BLOCK_ROWS elements.
//   transpose_naive   coalesced reads, strided (uncoalesced) writes
//   transpose_shared  through a 32x32 shared tile: coalesced both ways, but
//                     the column read of the tile has 32-way bank conflicts
//   transpose_padded  the same with a TILE_DIM+1 row pitch: conflict-free

#define TILE_DIM 32
#define BLOCK_ROWS 8

__global__ void transpose_naive(float* out, const float* in, unsigned width, unsigned height)
{
    unsigned x = blockIdx.x * TILE_DIM + threadIdx.x;
    unsigned y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (unsigned j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < width && y + j < height)
            out[x * height + (y + j)] = in[(y + j) * width + x];
}

__global__ void transpose_shared(float* out, const float* in, unsigned width, unsigned height)
{
    __shared__ float tile[TILE_DIM][TILE_DIM];
    unsigned x = blockIdx.x * TILE_DIM + threadIdx.x;
    unsigned y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (unsigned j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < width && y + j < height)
            tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;   // transposed block offset
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (unsigned j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < height && y + j < width)
            out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

__global__ void transpose_padded(float* out, const float* in, unsigned width, unsigned height)
{
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];
    unsigned x = blockIdx.x * TILE_DIM + threadIdx.x;
    unsigned y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (unsigned j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < width && y + j < height)
            tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (unsigned j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < height && y + j < width)
            out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}
