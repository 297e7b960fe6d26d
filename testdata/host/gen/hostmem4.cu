// hostmem4.cu — issue 26, fourth recording: what the first launch after
// data came to the device pays for. The third recording's device case
// allocated its buffer afresh before each copy, so "after a copy" and "the
// first kernel to touch a new allocation" were the same event. Here, at
// 2-64 MiB, the first three launches of a reading kernel (copy_perm) and of
// an in-place one (scale) over:
//   fresh_copy   a new cudaMalloc filled by a pageable copy (the third
//                recording's case);
//   reused_copy  the same buffer, already read by kernels, copied again;
//   fresh_memset a new cudaMalloc filled by cudaMemset (no host link);
//   fresh_none   a new cudaMalloc, not filled;
//   fresh_touch  a new cudaMalloc filled by a copy, then a kernel that
//                reads one word per 64 KiB of it (timed itself as
//                touch_kernel), then the three launches;
//   prefetch_touch managed memory prefetched to the device, then the
//                touching kernel, then the three launches.
// Each case 5 times; the median and every run are printed as JSON lines.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include "../../../kernels/cuda/hostmem.cu"
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1); } } while (0)
extern "C" __global__ void touch(const float* p, unsigned n, unsigned stride, float* sink) {
  unsigned i = (blockIdx.x * blockDim.x + threadIdx.x) * stride;
  if (i < n && p[i] == 12345.0f) *sink = p[i];
}
static cudaStream_t st; static cudaEvent_t e0, e1;
template <class F> static double ev(F f) { CK(cudaEventRecord(e0, st)); f(); CK(cudaEventRecord(e1, st)); CK(cudaEventSynchronize(e1)); float ms = 0; CK(cudaEventElapsedTime(&ms, e0, e1)); return ms * 1000.0; }
static double med(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
static std::string lst(const std::vector<double>& v) { std::string s = "["; char b[32]; for (size_t i = 0; i < v.size(); ++i) { snprintf(b, sizeof b, "%s%.3f", i ? "," : "", v[i]); s += b; } return s + "]"; }
static void emit(const std::string& n, size_t bytes, const std::vector<double>& v) {
  printf("{\"group\":\"managed4\",\"name\":\"%s\",\"bytes\":%zu,\"us\":%.3f,\"reps\":%zu,\"all\":%s}\n", n.c_str(), bytes, med(v), v.size(), lst(v).c_str()); fflush(stdout); }
static void prefetch(void* p, size_t b) {
#if CUDART_VERSION >= 13000
  cudaMemLocation loc; loc.type = cudaMemLocationTypeDevice; loc.id = 0; CK(cudaMemPrefetchAsync(p, b, loc, 0, st));
#else
  CK(cudaMemPrefetchAsync(p, b, 0, st));
#endif
}
int main() {
  CK(cudaSetDevice(0)); CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking)); CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  const size_t maxb = 64u << 20;
  float *dout, *sink; CK(cudaMalloc(&dout, maxb)); CK(cudaMemset(dout, 0, maxb)); CK(cudaMalloc(&sink, 4));
  std::vector<float> host(maxb / 4); for (size_t i = 0; i < host.size(); ++i) host[i] = (float)(i & 1023);
  const char* kn[2] = {"read_coalesced", "scale"};
  const char* cn[6] = {"fresh_copy", "reused_copy", "fresh_memset", "fresh_none", "fresh_touch", "prefetch_touch"};
  for (size_t mb : {2, 8, 16, 32, 64}) {
    size_t b = mb << 20; unsigned n = (unsigned)(b / 4), blocks = (n + 255) / 256;
    unsigned tstride = 16384, tblocks = (n / tstride + 255) / 256 + 1; // a word per 64 KiB
    for (int k = 0; k < 2; ++k) {
      auto K = [&](float* p) { if (k == 0) copy_perm<<<blocks, 256, 0, st>>>(p, dout, n, 1, 2.0f); else scale<<<blocks, 256, 0, st>>>(p, n, 1.0f, 0.0f); };
      auto T = [&](float* p) { touch<<<tblocks, 256, 0, st>>>(p, n, tstride, sink); };
      std::vector<double> L[6][3], touchT[2];
      for (int r = 0; r < 5; ++r) {
        float* d;
        // fresh_copy, then reused_copy on the same buffer
        CK(cudaMalloc(&d, b)); CK(cudaMemcpy(d, host.data(), b, cudaMemcpyHostToDevice));
        for (int j = 0; j < 3; ++j) L[0][j].push_back(ev([&] { K(d); }));
        CK(cudaMemcpy(d, host.data(), b, cudaMemcpyHostToDevice));
        for (int j = 0; j < 3; ++j) L[1][j].push_back(ev([&] { K(d); }));
        CK(cudaFree(d));
        // fresh_memset
        CK(cudaMalloc(&d, b)); CK(cudaMemset(d, 0, b)); CK(cudaDeviceSynchronize());
        for (int j = 0; j < 3; ++j) L[2][j].push_back(ev([&] { K(d); }));
        CK(cudaFree(d));
        // fresh_none
        CK(cudaMalloc(&d, b)); CK(cudaDeviceSynchronize());
        for (int j = 0; j < 3; ++j) L[3][j].push_back(ev([&] { K(d); }));
        CK(cudaFree(d));
        // fresh_touch
        CK(cudaMalloc(&d, b)); CK(cudaMemcpy(d, host.data(), b, cudaMemcpyHostToDevice));
        touchT[0].push_back(ev([&] { T(d); }));
        for (int j = 0; j < 3; ++j) L[4][j].push_back(ev([&] { K(d); }));
        CK(cudaFree(d));
        // prefetch_touch
        float* m; CK(cudaMallocManaged(&m, b)); memcpy(m, host.data(), b); prefetch(m, b); CK(cudaStreamSynchronize(st));
        touchT[1].push_back(ev([&] { T(m); }));
        for (int j = 0; j < 3; ++j) L[5][j].push_back(ev([&] { K(m); }));
        CK(cudaFree(m)); CK(cudaGetLastError());
      }
      for (int c = 0; c < 6; ++c)
        for (int j = 0; j < 3; ++j) emit(std::string(cn[c]) + "." + kn[k] + ".launch" + std::to_string(j + 1), b, L[c][j]);
      emit(std::string("fresh_touch.touch_kernel_before_") + kn[k], b, touchT[0]);
      emit(std::string("prefetch_touch.touch_kernel_before_") + kn[k], b, touchT[1]);
    }
  }
  return 0;
}
