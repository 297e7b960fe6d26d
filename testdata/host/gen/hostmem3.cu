// hostmem3.cu — issue 26, third recording (held out): the first, second and
// third launch of a kernel over managed memory that came to the device by
// prefetch or by an earlier launch's faults, against device memory filled
// by a copy; sizes and kernels the model was not fitted on.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include "../../../kernels/cuda/hostmem.cu"
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1); } } while (0)
extern "C" __global__ void empty_k() {}
static cudaStream_t st; static cudaEvent_t e0, e1;
template <class F> static double ev(F f) { CK(cudaEventRecord(e0, st)); f(); CK(cudaEventRecord(e1, st)); CK(cudaEventSynchronize(e1)); float ms = 0; CK(cudaEventElapsedTime(&ms, e0, e1)); return ms * 1000.0; }
static double med(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
static std::string lst(const std::vector<double>& v) { std::string s = "["; char b[32]; for (size_t i = 0; i < v.size(); ++i) { snprintf(b, sizeof b, "%s%.3f", i ? "," : "", v[i]); s += b; } return s + "]"; }
static void emit(const std::string& n, size_t bytes, const std::vector<double>& v) {
  printf("{\"group\":\"managed3\",\"name\":\"%s\",\"bytes\":%zu,\"us\":%.3f,\"reps\":%zu,\"all\":%s}\n", n.c_str(), bytes, med(v), v.size(), lst(v).c_str()); fflush(stdout); }
static void prefetch(void* p, size_t b) {
#if CUDART_VERSION >= 13000
  cudaMemLocation loc; loc.type = cudaMemLocationTypeDevice; loc.id = 0; CK(cudaMemPrefetchAsync(p, b, loc, 0, st));
#else
  CK(cudaMemPrefetchAsync(p, b, 0, st));
#endif
}
static void pageable() {
  for (size_t mb : {2, 6, 20, 40}) {
    size_t b = mb << 20; unsigned n = (unsigned)(b / 4), blocks = (n + 255) / 256;
    float* x; CK(cudaMalloc(&x, b));
    char* A = (char*)malloc(b); memset(A, 1, b);
    std::vector<double> warm, cold_cpu, cold_d2h, d2h, prog;
    auto h2d = [&]() { return ev([&] { CK(cudaMemcpy(x, A, b, cudaMemcpyHostToDevice)); }); };
    for (int r = -1; r < 7; ++r) {
      memset(A, r & 0xff, b); double c = h2d(); double w = h2d();   // the CPU wrote A; then A again at once
      double o = ev([&] { CK(cudaMemcpy(A, x, b, cudaMemcpyDeviceToHost)); }); double a = h2d();
      double t = ev([&] { CK(cudaMemcpy(x, A, b, cudaMemcpyHostToDevice)); scale<<<blocks, 256, 0, st>>>(x, n, 2.0f, 1.0f); CK(cudaMemcpy(A, x, b, cudaMemcpyDeviceToHost)); });
      if (r >= 0) { cold_cpu.push_back(c); warm.push_back(w); d2h.push_back(o); cold_d2h.push_back(a); prog.push_back(t); }
    }
    emit("pageable.h2d_after_cpu_write", b, cold_cpu); emit("pageable.h2d_repeat", b, warm); emit("pageable.d2h", b, d2h);
    emit("pageable.h2d_after_d2h_same", b, cold_d2h); emit("pageable.copy_scale_copy_after_d2h", b, prog);
    free(A); CK(cudaFree(x));
  }
}
int main() {
  CK(cudaSetDevice(0)); CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking)); CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  const size_t maxb = 128u << 20;
  float *dout, *dsrc; CK(cudaMalloc(&dout, maxb)); CK(cudaMalloc(&dsrc, maxb)); CK(cudaMemset(dout, 0, maxb)); CK(cudaMemset(dsrc, 0, maxb));
  std::vector<float> host(maxb / 4); for (size_t i = 0; i < host.size(); ++i) host[i] = (float)(i & 1023);
  const char* kn[4] = {"read_coalesced", "write_coalesced", "scale", "read_stride32"};
  for (size_t mb : {2, 8, 32, 128}) {
    size_t b = mb << 20; unsigned n = (unsigned)(b / 4), blocks = (n + 255) / 256;
    for (int k = 0; k < 4; ++k) {
      auto K = [&](float* p) { switch (k) {
        case 0: copy_perm<<<blocks, 256, 0, st>>>(p, dout, n, 1, 2.0f); break;
        case 1: store_perm<<<blocks, 256, 0, st>>>(dsrc, p, n, 1, 2.0f); break;
        case 2: scale<<<blocks, 256, 0, st>>>(p, n, 1.0f, 0.0f); break;
        default: copy_perm<<<blocks, 256, 0, st>>>(p, dout, n, 32, 2.0f); } };
      std::vector<double> P[3], F[4], D[3], E[2];
      const int reps = mb >= 128 ? 3 : 5;
      for (int r = 0; r < reps; ++r) {
        float* m;
        // prefetched
        CK(cudaMallocManaged(&m, b)); memcpy(m, host.data(), b); prefetch(m, b); CK(cudaStreamSynchronize(st));
        for (int j = 0; j < 3; ++j) P[j].push_back(ev([&] { K(m); }));
        CK(cudaFree(m));
        // prefetched, then an empty kernel, then the kernel
        CK(cudaMallocManaged(&m, b)); memcpy(m, host.data(), b); prefetch(m, b); CK(cudaStreamSynchronize(st));
        E[0].push_back(ev([&] { empty_k<<<1, 32, 0, st>>>(); })); E[1].push_back(ev([&] { K(m); }));
        CK(cudaFree(m));
        // faulted in by a read (timed: F[0]), then the kernel three times
        CK(cudaMallocManaged(&m, b)); memcpy(m, host.data(), b);
        F[0].push_back(ev([&] { copy_perm<<<blocks, 256, 0, st>>>(m, dout, n, 1, 2.0f); }));
        for (int j = 0; j < 3; ++j) F[j + 1].push_back(ev([&] { K(m); }));
        CK(cudaFree(m));
        // device memory filled by a (pageable) copy
        float* d; CK(cudaMalloc(&d, b)); CK(cudaMemcpy(d, host.data(), b, cudaMemcpyHostToDevice));
        for (int j = 0; j < 3; ++j) D[j].push_back(ev([&] { K(d); }));
        CK(cudaFree(d)); CK(cudaGetLastError());
      }
      std::string s = kn[k];
      for (int j = 0; j < 3; ++j) emit("prefetched." + s + ".launch" + std::to_string(j + 1), b, P[j]);
      emit("prefetched_empty_first.empty_before_" + s, b, E[0]); emit("prefetched_empty_first." + s, b, E[1]);
      emit("faulted.first_read_" + s, b, F[0]);
      for (int j = 0; j < 3; ++j) emit("faulted." + s + ".launch" + std::to_string(j + 1), b, F[j + 1]);
      for (int j = 0; j < 3; ++j) emit("device_after_copy." + s + ".launch" + std::to_string(j + 1), b, D[j]);
    }
  }
  pageable();
  return 0;
}
