// hostmem6.cu — issue 26, a sixth recording: what makes the first launch
// after a copy into a buffer fresh from cudaMalloc cost more than after a
// copy into a buffer kernels have used (hostmem4: 0.5-10 µs more at 2-64
// MiB; hostmem5: 4-8 µs at 24 and 48 MiB), at more sizes (4-128 MiB), and
// whether it is the SMs' first sight of the allocation's pages. Three
// launches of a reading kernel (copy_perm) and an in-place one (scale)
// after, each on a buffer of its own but reused_copy:
//   fresh_copy       a new cudaMalloc filled by a pinned copy;
//   reused_copy      the same buffer, kernels having read it, copied again;
//   touched_copy     a new cudaMalloc read one word per 64 KiB by a small
//                    kernel, then filled by a pinned copy;
//   written_copy     a new cudaMalloc written whole by a kernel, then
//                    filled by a pinned copy;
//   realloc_copy     a cudaMalloc read whole by a kernel, freed, allocated
//                    again at the same size, then filled by a pinned copy;
//   memset_copy      a new cudaMalloc set by cudaMemset, then filled by a
//                    pinned copy;
//   fresh_pageable   a new cudaMalloc filled by a pageable copy.
// The variants are interleaved within each repeat (7 timed, one warm-up).
// Usage: hostmem6 SIZE_MiB (one size a process).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include "../../../kernels/cuda/hostmem.cu"
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(e_)); exit(1); } } while (0)
#define KL() CK(cudaGetLastError())
extern "C" __global__ void touch(const float* p, unsigned n, unsigned stride, float* sink) {
  unsigned i = (blockIdx.x * blockDim.x + threadIdx.x) * stride;
  if (i < n && p[i] == 12345.0f) *sink = p[i];
}
static cudaStream_t st; static cudaEvent_t e0, e1;
template <class F> static double ev(F f) { CK(cudaEventRecord(e0, st)); f(); CK(cudaEventRecord(e1, st)); CK(cudaEventSynchronize(e1)); float ms = 0; CK(cudaEventElapsedTime(&ms, e0, e1)); return ms * 1000.0; }
static double med(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
static std::string lst(const std::vector<double>& v) { std::string s = "["; char b[32]; for (size_t i = 0; i < v.size(); ++i) { snprintf(b, sizeof b, "%s%.3f", i ? "," : "", v[i]); s += b; } return s + "]"; }
static void emit(const std::string& n, size_t bytes, const std::vector<double>& v) {
  printf("{\"group\":\"managed6\",\"name\":\"%s\",\"bytes\":%zu,\"us\":%.3f,\"reps\":%zu,\"all\":%s}\n", n.c_str(), bytes, med(v), v.size(), lst(v).c_str()); fflush(stdout); }
int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: hostmem6 SIZE_MiB\n"); return 2; }
  size_t mb = (size_t)atoi(argv[1]), b = mb << 20;
  if (mb < 1 || mb > 128) { fprintf(stderr, "size %zu MiB out of range\n", mb); return 2; }
  unsigned n = (unsigned)(b / 4), bl = (unsigned)((n + 255) / 256);
  unsigned tstride = 16384, tbl = (n / tstride + 255) / 256 + 1; // a word per 64 KiB
  CK(cudaSetDevice(0)); CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking)); CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  float *dout, *dsrc, *sink, *pin;
  CK(cudaMalloc(&dout, b)); CK(cudaMalloc(&dsrc, b)); CK(cudaMalloc(&sink, 4)); CK(cudaMemset(dout, 0, b)); CK(cudaMemset(dsrc, 0, b));
  CK(cudaHostAlloc((void**)&pin, b, cudaHostAllocDefault));
  std::vector<float> host(b / 4); for (size_t i = 0; i < host.size(); ++i) host[i] = (float)(i & 1023);
  memcpy(pin, host.data(), b);
  CK(cudaDeviceSynchronize());
  const char* kn[2] = {"read_coalesced", "scale"};
  const int NV = 7;
  const char* vn[NV] = {"fresh_copy", "reused_copy", "touched_copy", "written_copy", "realloc_copy", "memset_copy", "fresh_pageable"};
  int same = 0, tries = 0;
  for (int k = 0; k < 2; ++k) {
    auto K = [&](float* p) { if (k) scale<<<bl, 256, 0, st>>>(p, n, 1.0f, 0.0f); else copy_perm<<<bl, 256, 0, st>>>(p, dout, n, 1, 2.0f); KL(); };
    auto pinned = [&](float* d) { CK(cudaMemcpyAsync(d, pin, b, cudaMemcpyHostToDevice, st)); CK(cudaStreamSynchronize(st)); };
    std::vector<double> L[NV][3];
    for (int r = -1; r < 7; ++r) {
      auto three = [&](int v, float* d) { for (int j = 0; j < 3; ++j) { double t = ev([&] { K(d); }); if (r >= 0) L[v][j].push_back(t); } };
      float* d;
      CK(cudaMalloc(&d, b)); pinned(d); three(0, d);
      pinned(d); three(1, d); CK(cudaFree(d));
      CK(cudaMalloc(&d, b)); touch<<<tbl, 256, 0, st>>>(d, n, tstride, sink); KL(); CK(cudaStreamSynchronize(st)); pinned(d); three(2, d); CK(cudaFree(d));
      CK(cudaMalloc(&d, b)); store_perm<<<bl, 256, 0, st>>>(dsrc, d, n, 1, 2.0f); KL(); CK(cudaStreamSynchronize(st)); pinned(d); three(3, d); CK(cudaFree(d));
      CK(cudaMalloc(&d, b)); copy_perm<<<bl, 256, 0, st>>>(d, dout, n, 1, 2.0f); KL(); CK(cudaStreamSynchronize(st));
      float* old = d; CK(cudaFree(d)); CK(cudaMalloc(&d, b)); same += d == old; tries++;
      pinned(d); three(4, d); CK(cudaFree(d));
      CK(cudaMalloc(&d, b)); CK(cudaMemsetAsync(d, 0, b, st)); CK(cudaStreamSynchronize(st)); pinned(d); three(5, d); CK(cudaFree(d));
      CK(cudaMalloc(&d, b)); CK(cudaMemcpy(d, host.data(), b, cudaMemcpyHostToDevice)); CK(cudaDeviceSynchronize()); three(6, d); CK(cudaFree(d));
    }
    for (int v = 0; v < NV; ++v)
      for (int j = 0; j < 3; ++j) emit(std::string(vn[v]) + "." + kn[k] + ".launch" + std::to_string(j + 1), b, L[v][j]);
  }
  fprintf(stderr, "%zu MiB: realloc_copy got the freed address back %d of %d times\n", mb, same, tries);
  return 0;
}
