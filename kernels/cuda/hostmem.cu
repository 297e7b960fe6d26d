// hostmem.cu — the kernels of the host-memory corpus (issue 26) and of
// kernels/programs. testdata/host/gen/hostmem.cu times them on the GPU over
// device, mapped (zero-copy) and managed buffers; testdata/host/gen/gen.sh
// compiles this file alone to PTX (testdata/host/ptx/hostmem.O3.ptx, copied
// to kernels/programs/hostmem.ptx), which the specs run.


// copy_perm: out[i] = in[p(i)] * f, where p reads `in` coalesced (stride
// 1) or with consecutive threads `stride` elements apart (p a permutation
// of 0..n-1: thread i reads element (i % (n/stride)) * stride + i /
// (n/stride)); n is a multiple of stride. The write is always coalesced.
extern "C" __global__ void copy_perm(const float* __restrict__ in, float* __restrict__ out, unsigned n,
                                     unsigned stride, float f)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned rows = n / stride;
    unsigned j = (i % rows) * stride + i / rows;
    out[i] = in[j] * f;
}

// store_perm: out[p(i)] = in[i] * f: the read coalesced, the write
// permuted as copy_perm's read.
extern "C" __global__ void store_perm(const float* __restrict__ in, float* __restrict__ out, unsigned n,
                                      unsigned stride, float f)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned rows = n / stride;
    unsigned j = (i % rows) * stride + i / rows;
    out[j] = in[i] * f;
}

// scale: a[i] = a[i] * f + g (read and written in place).
extern "C" __global__ void scale(float* a, unsigned n, float f, float g)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = a[i] * f + g;
}

// axpy: y[i] = a * x[i] + y[i], the second kernel of the two-kernel
// program (scale, then axpy over the same buffers).
extern "C" __global__ void axpy(const float* __restrict__ x, float* y, unsigned n, float a)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

// chase: one thread follows `hops` pointers (each element the index of the
// next) and records the cycles per hop in out[0] and the last index in
// out[1]: the latency of a load from wherever `next` lives.
extern "C" __global__ void chase(const unsigned* next, unsigned hops, unsigned long long* out)
{
    unsigned j = 0;
    long long t0 = clock64();
    for (unsigned h = 0; h < hops; ++h) j = __ldcg(next + j);
    long long t1 = clock64();
    out[0] = (unsigned long long)(t1 - t0);
    out[1] = j;
}

// readall reads every word of p (four at a time, grid-stride) and writes
// nothing unless their sum is 12345: testdata/host/gen/hostmem7.cu reads a
// buffer with it after each way of filling it.
extern "C" __global__ void readall(const float4* p, unsigned n4, float* sink) {
  float s = 0;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) {
    float4 v = p[i];
    s += v.x + v.y + v.z + v.w;
  }
  if (s == 12345.0f) *sink = s;
}
