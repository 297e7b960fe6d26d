// Dynamic programming wavefronts (Needleman-Wunsch, pathfinder) and
// Floyd-Warshall, integer arithmetic, shared-memory tiles. Deterministic.

// Needleman-Wunsch over an (n+1)x(n+1) score matrix in one block: the
// 32x32 tiles of one tile anti-diagonal are independent and go to the
// block's warps; inside a tile a warp sweeps the 63 cell anti-diagonals
// (lane = tile row) with __syncwarp; __syncthreads between tile diagonals.
// n must be a multiple of 32, blockDim.x a multiple of 32 (at most 256).
__global__ void nw_block(int* __restrict__ score, const int* __restrict__ ref, int n, int penalty)
{
    const int W = n + 1;
    int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, nwarps = blockDim.x >> 5;
    __shared__ int tile[8][33][33];
    for (int i = tid; i <= n; i += blockDim.x) {
        score[i] = -penalty * i;
        score[i * W] = -penalty * i;
    }
    __syncthreads();
    int T = n / 32;
    int(*t)[33] = tile[warp];
    for (int d = 0; d < 2 * T - 1; d++) {
        int first = max(0, d - T + 1), last = min(d, T - 1);
        for (int tr = first + warp; tr <= last; tr += nwarps) {
            int tc = d - tr;
            int r0 = tr * 32, c0 = tc * 32;
            t[0][lane + 1] = score[r0 * W + c0 + lane + 1];
            t[lane + 1][0] = score[(r0 + lane + 1) * W + c0];
            if (lane == 0) t[0][0] = score[r0 * W + c0];
            __syncwarp();
            for (int k = 0; k < 63; k++) {
                int i = lane, j = k - lane;
                if (j >= 0 && j < 32) {
                    int m = t[i][j] + ref[(r0 + i) * n + c0 + j];
                    m = max(m, t[i][j + 1] - penalty);
                    m = max(m, t[i + 1][j] - penalty);
                    t[i + 1][j + 1] = m;
                }
                __syncwarp();
            }
            for (int i = 0; i < 32; i++) score[(r0 + i + 1) * W + c0 + lane + 1] = t[i + 1][lane + 1];
            __syncwarp();
        }
        __syncthreads();
    }
}

// Needleman-Wunsch, one launch per tile anti-diagonal (the multi-block
// scheme): block b computes tile (first + b, diag - first - b) of 16x16 cells
// with 16 threads, reading its top row and left column from the matrix.
__global__ void nw_tile_diag(int* __restrict__ score, const int* __restrict__ ref, int n,
                             int penalty, int diag)
{
    const int TS = 16, W = n + 1, T = n / TS;
    __shared__ int t[TS + 1][TS + 1];
    __shared__ int r[TS][TS];
    int first = max(0, diag - T + 1);
    int tr = first + blockIdx.x, tc = diag - tr;
    int r0 = tr * TS, c0 = tc * TS, tx = threadIdx.x;
    t[0][tx + 1] = score[r0 * W + c0 + tx + 1];
    t[tx + 1][0] = score[(r0 + tx + 1) * W + c0];
    if (tx == 0) t[0][0] = score[r0 * W + c0];
    for (int j = 0; j < TS; j++) r[tx][j] = ref[(r0 + tx) * n + c0 + j];
    __syncthreads();
    for (int k = 0; k < 2 * TS - 1; k++) {
        int i = tx, j = k - tx;
        if (j >= 0 && j < TS) {
            int m = max(t[i][j] + r[i][j], max(t[i][j + 1] - penalty, t[i + 1][j] - penalty));
            t[i + 1][j + 1] = m;
        }
        __syncthreads();
    }
    for (int i = 0; i < TS; i++) score[(r0 + i + 1) * W + c0 + tx + 1] = t[i + 1][tx + 1];
}

// Pathfinder: the cheapest path from the top row to each cell of the bottom
// row, moving down, down-left or down-right; one block walks all rows with
// two rows of dynamic shared memory (2*cols ints).
__global__ void pathfinder_block(int* __restrict__ result, const int* __restrict__ wall, int cols,
                                 int rows)
{
    extern __shared__ int rowbuf[];
    int* prev = rowbuf;
    int* cur = rowbuf + cols;
    for (int j = threadIdx.x; j < cols; j += blockDim.x) prev[j] = wall[j];
    __syncthreads();
    for (int r = 1; r < rows; r++) {
        for (int j = threadIdx.x; j < cols; j += blockDim.x) {
            int m = prev[j];
            if (j > 0) m = min(m, prev[j - 1]);
            if (j + 1 < cols) m = min(m, prev[j + 1]);
            cur[j] = m + wall[r * cols + j];
        }
        __syncthreads();
        int* tmp = prev;
        prev = cur;
        cur = tmp;
    }
    for (int j = threadIdx.x; j < cols; j += blockDim.x) result[j] = prev[j];
}

// Floyd-Warshall all-pairs shortest paths on an n x n matrix (n <= 64) in
// shared memory, one block, one __syncthreads per k. Distances are small
// unsigned integers (no overflow).
__global__ void floyd_block(unsigned* __restrict__ dist, int n)
{
    __shared__ unsigned d[64 * 64];
    int nn = n * n;
    for (int e = threadIdx.x; e < nn; e += blockDim.x) d[e] = dist[e];
    __syncthreads();
    for (int k = 0; k < n; k++) {
        // Each thread reads row k and column k, which no thread changes in
        // step k (d[k][k] = 0 is not assumed: min with itself).
        unsigned vals[16];
        int cnt = 0;
        for (int e = threadIdx.x; e < nn && cnt < 16; e += blockDim.x, cnt++) {
            int i = e / n, j = e - i * n;
            vals[cnt] = min(d[e], d[i * n + k] + d[k * n + j]);
        }
        __syncthreads();
        cnt = 0;
        for (int e = threadIdx.x; e < nn && cnt < 16; e += blockDim.x, cnt++) d[e] = vals[cnt];
        __syncthreads();
    }
    for (int e = threadIdx.x; e < nn; e += blockDim.x) dist[e] = d[e];
}
