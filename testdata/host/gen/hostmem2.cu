// hostmem2.cu — issue 26, second recording: (A) managed memory resident on
// the device against device memory, same kernels interleaved, 1-256 MiB;
// launch cost with managed allocations alive; (B) pageable copies after the
// host buffer was written by a device-to-host copy, by the CPU, or left
// alone, and copy-scale-copy programs at several sizes.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include "../../../kernels/cuda/hostmem.cu"
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1); } } while (0)
extern "C" __global__ void empty_k() {}
static cudaStream_t st; static cudaEvent_t e0, e1;
static double now_us() { return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
template <class F> static double ev(F f) { CK(cudaEventRecord(e0, st)); f(); CK(cudaEventRecord(e1, st)); CK(cudaEventSynchronize(e1)); float ms = 0; CK(cudaEventElapsedTime(&ms, e0, e1)); return ms * 1000.0; }
static double med(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
static std::string lst(const std::vector<double>& v) { std::string s = "["; char b[32]; for (size_t i = 0; i < v.size(); ++i) { snprintf(b, sizeof b, "%s%.3f", i ? "," : "", v[i]); s += b; } return s + "]"; }
static void emit(const char* g, const std::string& n, size_t bytes, const std::vector<double>& v, const char* extra = "") {
  printf("{\"group\":\"%s\",\"name\":\"%s\",\"bytes\":%zu,\"us\":%.3f,\"reps\":%zu,\"all\":%s%s}\n", g, n.c_str(), bytes, med(v), v.size(), lst(v).c_str(), extra); fflush(stdout); }
static void prefetch(void* p, size_t b, bool host) {
#if CUDART_VERSION >= 13000
  cudaMemLocation loc; loc.type = host ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice; loc.id = 0;
  CK(cudaMemPrefetchAsync(p, b, loc, 0, st));
#else
  CK(cudaMemPrefetchAsync(p, b, host ? cudaCpuDeviceId : 0, st));
#endif
}
static void advise_dev(void* p, size_t b) {
#if CUDART_VERSION >= 13000
  cudaMemLocation loc; loc.type = cudaMemLocationTypeDevice; loc.id = 0;
  CK(cudaMemAdvise(p, b, cudaMemAdviseSetPreferredLocation, loc));
#else
  CK(cudaMemAdvise(p, b, cudaMemAdviseSetPreferredLocation, 0));
#endif
}

static void resident() {
  const size_t maxb = 256u << 20;
  float *din, *dout; CK(cudaMalloc(&din, maxb)); CK(cudaMalloc(&dout, maxb)); CK(cudaMemset(din, 0, maxb));
  // launch cost: empty kernel before any managed allocation
  std::vector<double> v; for (int r = 0; r < 60; ++r) { double t = ev([&] { empty_k<<<1, 32, 0, st>>>(); }); if (r >= 10) v.push_back(t); }
  emit("launch", "empty_no_managed", 0, v);
  for (size_t b = 1u << 20; b <= maxb; b *= 2) {
    unsigned n = (unsigned)(b / 4), blocks = (n + 255) / 256;
    // three managed buffers: faulted in (host-written, then first kernel touch), prefetched from the host, and advised + prefetched
    float *mf, *mp, *ma;
    CK(cudaMallocManaged(&mf, b)); CK(cudaMallocManaged(&mp, b)); CK(cudaMallocManaged(&ma, b));
    for (unsigned i = 0; i < n; ++i) mf[i] = mp[i] = ma[i] = (float)(i & 1023);
    copy_perm<<<blocks, 256, 0, st>>>(mf, dout, n, 1, 2.0f); prefetch(mp, b, false); advise_dev(ma, b); prefetch(ma, b, false);
    CK(cudaStreamSynchronize(st)); CK(cudaGetLastError());
    struct { const char* name; float* p; } bufs[] = {{"device", din}, {"managed_faulted", mf}, {"managed_prefetched", mp}, {"managed_advised", ma}};
    std::vector<double> t[4][6];
    const int reps = b >= (64u << 20) ? 5 : 9;
    for (int r = -1; r < reps; ++r)
      for (int k = 0; k < 4; ++k) {
        float* p = bufs[k].p;
        double a = ev([&] { copy_perm<<<blocks, 256, 0, st>>>(p, dout, n, 1, 2.0f); });
        double s = ev([&] { copy_perm<<<blocks, 256, 0, st>>>(p, dout, n, 32, 2.0f); });
        double w = ev([&] { store_perm<<<blocks, 256, 0, st>>>(dout, p, n, 1, 2.0f); });
        double ws = ev([&] { store_perm<<<blocks, 256, 0, st>>>(dout, p, n, 32, 2.0f); });
        double sc = ev([&] { scale<<<blocks, 256, 0, st>>>(p, n, 1.0f, 0.0f); });
        double e = ev([&] { empty_k<<<1, 32, 0, st>>>(); });
        if (r >= 0) { t[k][0].push_back(a); t[k][1].push_back(s); t[k][2].push_back(w); t[k][3].push_back(ws); t[k][4].push_back(sc); t[k][5].push_back(e); }
      }
    const char* kn[6] = {"read_coalesced", "read_stride32", "write_coalesced", "write_stride32", "scale", "empty_after"};
    for (int k = 0; k < 4; ++k) for (int j = 0; j < 6; ++j) emit("resident", std::string(bufs[k].name) + "." + kn[j], b, t[k][j]);
    // a small kernel reading the first 4 KiB only of each
    for (int k = 0; k < 4; ++k) { std::vector<double> q; for (int r = 0; r < 20; ++r) q.push_back(ev([&] { copy_perm<<<4, 256, 0, st>>>(bufs[k].p, dout, 1024, 1, 2.0f); })); emit("resident", std::string(bufs[k].name) + ".read_4k", b, q); }
    CK(cudaFree(mf)); CK(cudaFree(mp)); CK(cudaFree(ma)); CK(cudaGetLastError());
  }
  // launch cost with 512 MiB of managed memory alive on the device
  float* big; CK(cudaMallocManaged(&big, 512u << 20)); prefetch(big, 512u << 20, false); CK(cudaStreamSynchronize(st));
  v.clear(); for (int r = 0; r < 60; ++r) { double t = ev([&] { empty_k<<<1, 32, 0, st>>>(); }); if (r >= 10) v.push_back(t); }
  emit("launch", "empty_512MiB_managed_alive", 0, v);
  CK(cudaFree(big)); CK(cudaFree(din)); CK(cudaFree(dout));
}

static void pageable() {
  for (size_t mb : {4, 8, 12, 16, 24, 48}) {
    size_t b = mb << 20; unsigned n = (unsigned)(b / 4), blocks = (n + 255) / 256;
    float *x; CK(cudaMalloc(&x, b));
    char* A = (char*)malloc(b); char* B = (char*)malloc(b); memset(A, 1, b); memset(B, 2, b);
    std::vector<double> warm, after_d2h, d2h, after_cpu, after_other, prog, prog_h2d, prog_d2h, prog_k;
    auto h2d = [&](char* h) { return ev([&] { CK(cudaMemcpy(x, h, b, cudaMemcpyHostToDevice)); }); };
    auto toh = [&](char* h) { return ev([&] { CK(cudaMemcpy(h, x, b, cudaMemcpyDeviceToHost)); }); };
    for (int r = -1; r < 7; ++r) {
      double a = h2d(A), a2 = h2d(A);          // A read twice in a row: the second is warm
      double c = toh(A), d = h2d(A);          // device-to-host into A, then A back
      memset(A, 3, b); double e = h2d(A);     // the CPU writes A, then A goes to the device
      double f0 = toh(B); double f = h2d(A);  // d2h into B, then A (untouched by the d2h)
      (void)a;
      if (r >= 0) { warm.push_back(a2); d2h.push_back(c); after_d2h.push_back(d); after_cpu.push_back(e); after_other.push_back(f); (void)f0; }
    }
    emit("pageable", "h2d_warm", b, warm); emit("pageable", "d2h", b, d2h); emit("pageable", "h2d_after_d2h_same", b, after_d2h);
    emit("pageable", "h2d_after_cpu_write", b, after_cpu); emit("pageable", "h2d_after_d2h_other", b, after_other);
    for (int r = -1; r < 7; ++r) {
      double w0 = now_us();
      double a = ev([&] { CK(cudaMemcpyAsync(x, A, b, cudaMemcpyHostToDevice, st)); });
      double k = ev([&] { scale<<<blocks, 256, 0, st>>>(x, n, 2.0f, 1.0f); });
      double c = ev([&] { CK(cudaMemcpyAsync(A, x, b, cudaMemcpyDeviceToHost, st)); });
      double w = now_us() - w0;
      if (r >= 0) { prog.push_back(a + k + c); prog_h2d.push_back(a); prog_k.push_back(k); prog_d2h.push_back(c); (void)w; }
    }
    char extra[160]; snprintf(extra, sizeof extra, ",\"steps_us\":[%.3f,%.3f,%.3f]", med(prog_h2d), med(prog_k), med(prog_d2h));
    emit("program", "copy_scale_copy_pageable", b, prog, extra);
    free(A); free(B); CK(cudaFree(x));
  }
}

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "all";
  CK(cudaSetDevice(0)); CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking)); CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  if (mode == "ncu") {  // one read of 16 MiB, device then managed (faulted in, then resident)
    size_t b = 16u << 20; unsigned n = (unsigned)(b / 4), blocks = (n + 255) / 256;
    float *din, *dout, *m; CK(cudaMalloc(&din, b)); CK(cudaMalloc(&dout, b)); CK(cudaMallocManaged(&m, b));
    for (unsigned i = 0; i < n; ++i) m[i] = 1.0f;
    copy_perm<<<blocks, 256, 0, st>>>(m, dout, n, 1, 2.0f); CK(cudaStreamSynchronize(st));
    copy_perm<<<blocks, 256, 0, st>>>(din, dout, n, 1, 2.0f); copy_perm<<<blocks, 256, 0, st>>>(m, dout, n, 1, 2.0f);
    CK(cudaStreamSynchronize(st)); return 0;
  }
  if (mode == "all" || mode == "resident") resident();
  if (mode == "all" || mode == "pageable") pageable();
  return 0;
}
