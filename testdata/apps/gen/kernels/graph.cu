// Graph kernels over CSR adjacency (Rodinia BFS style, Bellman-Ford
// relaxation, PageRank). Several threads may store the same value to one
// location (BFS levels); integer atomics only; outputs are deterministic.

// BFS expansion (Rodinia kernel 1): every frontier node marks its unvisited
// neighbours with level cost[node] + 1. All frontier nodes have the same
// cost, so concurrent stores to one neighbour store the same value.
__global__ void bfs_expand(int* __restrict__ cost, unsigned char* __restrict__ mask,
                           unsigned char* __restrict__ updating,
                           const unsigned char* __restrict__ visited,
                           const unsigned* __restrict__ rowptr, const unsigned* __restrict__ col,
                           unsigned n)
{
    unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n || !mask[v]) return;
    mask[v] = 0;
    int c = cost[v] + 1;
    for (unsigned e = rowptr[v]; e < rowptr[v + 1]; e++) {
        unsigned w = col[e];
        if (!visited[w]) {
            cost[w] = c;
            updating[w] = 1;
        }
    }
}

// BFS update (Rodinia kernel 2): the newly reached nodes become the frontier.
__global__ void bfs_update(unsigned char* __restrict__ mask, unsigned char* __restrict__ updating,
                           unsigned char* __restrict__ visited, unsigned* __restrict__ over, unsigned n)
{
    unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n || !updating[v]) return;
    mask[v] = 1;
    visited[v] = 1;
    updating[v] = 0;
    atomicOr(over, 1u);
}

// A whole level-synchronous BFS in one block: a sweep per level over all
// nodes, atomicCAS claims unvisited neighbours, __syncthreads_or ends it.
__global__ void bfs_block(int* __restrict__ cost, const unsigned* __restrict__ rowptr,
                          const unsigned* __restrict__ col, unsigned n, unsigned src)
{
    for (unsigned v = threadIdx.x; v < n; v += blockDim.x) cost[v] = v == src ? 0 : -1;
    __syncthreads();
    for (int level = 0;; level++) {
        int changed = 0;
        for (unsigned v = threadIdx.x; v < n; v += blockDim.x) {
            if (cost[v] != level) continue;
            for (unsigned e = rowptr[v]; e < rowptr[v + 1]; e++)
                if (atomicCAS(&cost[col[e]], -1, level + 1) == -1) changed = 1;
        }
        if (!__syncthreads_or(changed)) break;
    }
}

// One Bellman-Ford relaxation sweep over the edges (src, dst, weight):
// distances are read from din and lowered in dout with atomicMin, so the
// result does not depend on the order of the atomics.
__global__ void sssp_relax(int* __restrict__ dout, const int* __restrict__ din,
                           const unsigned* __restrict__ esrc, const unsigned* __restrict__ edst,
                           const int* __restrict__ w, unsigned m)
{
    unsigned e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= m) return;
    int du = din[esrc[e]];
    if (du < 0x3fffffff) atomicMin(&dout[edst[e]], du + w[e]);
}

// PageRank, pull form over in-edges: r'[v] = (1-d)/n + d * sum r[u]/deg[u].
__global__ void pagerank_pull(float* __restrict__ rout, const float* __restrict__ rin,
                              const unsigned* __restrict__ rowptr, const unsigned* __restrict__ src,
                              const float* __restrict__ inv_outdeg, unsigned n, float d, float base)
{
    unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    float s = 0.0f;
    for (unsigned e = rowptr[v]; e < rowptr[v + 1]; e++) {
        unsigned u = src[e];
        s += rin[u] * inv_outdeg[u];
    }
    rout[v] = base + d * s;
}
