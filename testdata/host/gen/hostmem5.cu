// hostmem5.cu — issue 26, a fifth recording, held out for the misses the
// fourth left: first touches of host-written managed memory by a reading,
// a writing and a read-write kernel, interleaved and rotated each repeat,
// at sizes no fit used (3, 6, 12, 24, 48 MiB); prefetches to the device
// and scattered mapped reads at 2, 3, 6, 8, 12 MiB (the 4 MiB dips); the
// first launch after a copy into a fresh and a reused buffer at 24 and 48
// MiB. Usage: hostmem5 touch|prefetch|mapped|fresh (one group a process).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include "../../../kernels/cuda/hostmem.cu"
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(e_)); exit(1); } } while (0)
#define KL() CK(cudaGetLastError())
static cudaStream_t st; static cudaEvent_t e0, e1;
template <class F> static double ev(F f) { CK(cudaEventRecord(e0, st)); f(); CK(cudaEventRecord(e1, st)); CK(cudaEventSynchronize(e1)); float ms = 0; CK(cudaEventElapsedTime(&ms, e0, e1)); return ms * 1000.0; }
static double med(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
static std::string lst(const std::vector<double>& v) { std::string s = "["; char b[32]; for (size_t i = 0; i < v.size(); ++i) { snprintf(b, sizeof b, "%s%.3f", i ? "," : "", v[i]); s += b; } return s + "]"; }
static void emit(const std::string& n, size_t bytes, const std::vector<double>& v) {
  printf("{\"group\":\"managed5\",\"name\":\"%s\",\"bytes\":%zu,\"us\":%.3f,\"reps\":%zu,\"all\":%s}\n", n.c_str(), bytes, med(v), v.size(), lst(v).c_str()); fflush(stdout); }
static void prefetch(void* p, size_t b) {
#if CUDART_VERSION >= 13000
  cudaMemLocation loc; loc.type = cudaMemLocationTypeDevice; loc.id = 0; CK(cudaMemPrefetchAsync(p, b, loc, 0, st));
#else
  CK(cudaMemPrefetchAsync(p, b, 0, st));
#endif
}
static const size_t maxb = 48u << 20;
static float *dout, *dsrc; static std::vector<float> host;
static unsigned blocksOf(size_t b) { return (unsigned)((b / 4 + 255) / 256); }
// touch: first touches of host-written managed memory (read, write,
// read-write), the order rotated each repeat; and of untouched memory.
static void touch() {
  const char* kn[3] = {"first_read_host_resident", "first_write_host_resident", "scale_first_touch_host_resident"};
  for (size_t mb : {3, 6, 12, 24, 48}) {
    size_t b = mb << 20; unsigned n = (unsigned)(b / 4), bl = blocksOf(b);
    std::vector<double> T[3], U;
    for (int r = -1; r < 7; ++r) {
      for (int q = 0; q < 3; ++q) {
        int k = (q + (r < 0 ? 0 : r)) % 3; float* m; CK(cudaMallocManaged(&m, b)); memcpy(m, host.data(), b);
        double t = ev([&] { switch (k) {
          case 0: copy_perm<<<bl, 256, 0, st>>>(m, dout, n, 1, 2.0f); break;
          case 1: store_perm<<<bl, 256, 0, st>>>(dsrc, m, n, 1, 2.0f); break;
          default: scale<<<bl, 256, 0, st>>>(m, n, 2.0f, 1.0f); } KL(); });
        if (r >= 0) T[k].push_back(t);
        CK(cudaFree(m));
      }
      float* m; CK(cudaMallocManaged(&m, b));
      double t = ev([&] { store_perm<<<bl, 256, 0, st>>>(dsrc, m, n, 1, 2.0f); KL(); });
      if (r >= 0) U.push_back(t);
      CK(cudaFree(m));
    }
    for (int k = 0; k < 3; ++k) emit(kn[k], b, T[k]);
    emit("first_write_untouched", b, U);
  }
}
static void prefetchGroup() {
  for (size_t mb : {2, 3, 6, 8, 12}) {
    size_t b = mb << 20; std::vector<double> P;
    for (int r = -1; r < 7; ++r) {
      float* m; CK(cudaMallocManaged(&m, b)); memcpy(m, host.data(), b);
      double t = ev([&] { prefetch(m, b); });
      if (r >= 0) P.push_back(t);
      CK(cudaFree(m));
    }
    emit("prefetch_to_device", b, P);
  }
}
static void mapped() {
  float *hm, *dm; CK(cudaHostAlloc((void**)&hm, maxb, cudaHostAllocMapped)); CK(cudaHostGetDevicePointer((void**)&dm, hm, 0));
  memcpy(hm, host.data(), maxb);
  for (size_t mb : {2, 3, 6, 8, 12}) {
    size_t b = mb << 20; unsigned n = (unsigned)(b / 4), bl = blocksOf(b);
    std::vector<double> S, C;
    for (int r = -1; r < 7; ++r) {
      double s = ev([&] { copy_perm<<<bl, 256, 0, st>>>(dm, dout, n, 32, 2.0f); KL(); });
      double c = ev([&] { copy_perm<<<bl, 256, 0, st>>>(dm, dout, n, 1, 2.0f); KL(); });
      if (r >= 0) { S.push_back(s); C.push_back(c); }
    }
    emit("mapped.read_mapped_stride32", b, S); emit("mapped.read_mapped_coalesced", b, C);
  }
  CK(cudaFreeHost(hm));
}
// fresh: three launches after a pinned copy into a buffer fresh from
// cudaMalloc, and into one kernels have already read (as hostmem4).
static void fresh() {
  float* pin; CK(cudaHostAlloc((void**)&pin, maxb, cudaHostAllocDefault)); memcpy(pin, host.data(), maxb);
  for (size_t mb : {24, 48}) {
    size_t b = mb << 20; unsigned n = (unsigned)(b / 4), bl = blocksOf(b);
    for (int k = 0; k < 2; ++k) {
      const char* s = k ? "scale" : "read_coalesced";
      auto K = [&](float* p) { if (k) scale<<<bl, 256, 0, st>>>(p, n, 1.0f, 0.0f); else copy_perm<<<bl, 256, 0, st>>>(p, dout, n, 1, 2.0f); KL(); };
      std::vector<double> F[3], R[3];
      for (int r = -1; r < 5; ++r) {
        float* d; CK(cudaMalloc(&d, b)); CK(cudaMemcpyAsync(d, pin, b, cudaMemcpyHostToDevice, st)); CK(cudaStreamSynchronize(st));
        for (int j = 0; j < 3; ++j) { double t = ev([&] { K(d); }); if (r >= 0) F[j].push_back(t); }
        CK(cudaMemcpyAsync(d, pin, b, cudaMemcpyHostToDevice, st)); CK(cudaStreamSynchronize(st));
        for (int j = 0; j < 3; ++j) { double t = ev([&] { K(d); }); if (r >= 0) R[j].push_back(t); }
        CK(cudaFree(d));
      }
      for (int j = 0; j < 3; ++j) emit(std::string("fresh_copy.") + s + ".launch" + std::to_string(j + 1), b, F[j]);
      for (int j = 0; j < 3; ++j) emit(std::string("reused_copy.") + s + ".launch" + std::to_string(j + 1), b, R[j]);
    }
  }
  CK(cudaFreeHost(pin));
}
int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: hostmem5 touch|prefetch|mapped|fresh\n"); return 2; }
  CK(cudaSetDevice(0)); CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking)); CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  CK(cudaMalloc(&dout, maxb)); CK(cudaMalloc(&dsrc, maxb)); CK(cudaMemset(dout, 0, maxb)); CK(cudaMemset(dsrc, 0, maxb));
  host.resize(maxb / 4); for (size_t i = 0; i < host.size(); ++i) host[i] = (float)(i & 1023);
  std::string g = argv[1];
  if (g == "touch") touch(); else if (g == "prefetch") prefetchGroup(); else if (g == "mapped") mapped(); else if (g == "fresh") fresh();
  else { fprintf(stderr, "unknown group %s\n", g.c_str()); return 2; }
  return 0;
}
