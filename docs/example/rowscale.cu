// rowscale.cu: out[r][c] = in[r][c] * scale[r] + bias, for a rows × cols
// matrix stored row by row.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void rowscale(float* out, const float* in, const float* scale, float bias, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols)
        out[r * cols + c] = in[r * cols + c] * scale[r] + bias;
}

int main()
{
    const int rows = 100, cols = 300;
    float *in = (float*)malloc(rows * cols * sizeof(float)), *scale = (float*)malloc(rows * sizeof(float));
    for (int i = 0; i < rows * cols; i++) in[i] = i;
    for (int r = 0; r < rows; r++) scale[r] = 0.5f * r;

    float *d_out, *d_in, *d_scale;
    cudaMalloc(&d_out, rows * cols * sizeof(float));
    cudaMalloc(&d_in, rows * cols * sizeof(float));
    cudaMalloc(&d_scale, rows * sizeof(float));
    cudaMemcpy(d_in, in, rows * cols * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_scale, scale, rows * sizeof(float), cudaMemcpyHostToDevice);

    dim3 block(32, 8);
    dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
    rowscale<<<grid, block>>>(d_out, d_in, d_scale, 1.0f, rows, cols);

    float* out = (float*)malloc(rows * cols * sizeof(float));
    cudaMemcpy(out, d_out, rows * cols * sizeof(float), cudaMemcpyDeviceToHost);
    printf("out[1][2] = %g\n", out[1 * cols + 2]);
    return 0;
}
