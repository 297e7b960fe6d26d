// hostmem7.cu — issue 26, a seventh recording: how much of a buffer the
// L2 keeps for the next kernel after each way of filling it, and what
// partly written sectors cost, on the GPU the device tool lends.
//
// l2after: at 4-96 MiB, a buffer d is put in one of these states, then
// read whole twice by `readall` (every word, no write), each read timed:
//   copy_pinned   a pinned cudaMemcpyAsync host to device into d;
//   copy_d2d      a device-to-device copy into d from another buffer;
//   memset        cudaMemsetAsync of d;
//   kernel_write  a kernel writing d whole (store_perm, coalesced);
//   kernel_read   readall of d (so launch1 is a second read);
//   cold          a read of 256 MiB of another buffer (d out of the L2).
// Each state is preceded by the cold read, so that nothing of d is left
// from before. Under Nsight Compute with --cache-control none the readall
// launches' L2 hits and DRAM bytes say how much of d was in the L2.
//
// partial: store_perm (coalesced read, the write with consecutive threads
// `stride` words apart) at strides 1, 2, 8, 32 and 4-128 MiB: under Nsight
// Compute (caches flushed, as every corpus recording) its DRAM reads say
// what evicting partly written sectors costs.
//
// l2managed: at 4-64 MiB, managed memory the host has just written is
// prefetched to the device, or read by readall (its pages fault in), then
// read whole twice by readall, each state after the 256 MiB read.
//
// firstlaunch: at 8, 32 and 64 MiB, three launches of copy_perm (reading
// the buffer, writing another) after a pageable copy into a new
// cudaMalloc, a pinned copy into a new cudaMalloc, and a prefetch of new
// managed memory the host wrote: whether the first launch's extra time
// (hostmem3: 14.5 µs after a pageable copy and 22 after a prefetch at 32
// MiB, against 2.5 after a pinned copy) is inside the kernel (ncu's
// gpu__time_duration) or around it (CUDA events only).
//
// readstride: copy_perm (the read with consecutive threads `stride` words
// apart, the write coalesced) at strides 1, 2, 8 and 32, 8-64 MiB, each
// after the 256 MiB read: what a scattered read costs the H200's DRAM
// (under ncu: the bytes it reads per sector the L2 misses).
//
// Usage: hostmem7 l2after|partial|l2managed|firstlaunch|readstride [once] — `once` runs each launch once
// and names it on stderr (for ncu, whose rows come in launch order).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include "../../../kernels/cuda/hostmem.cu"
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(e_)); exit(1); } } while (0)
#define KL() CK(cudaGetLastError())
// flushread reads a large buffer as readall (kernels/cuda/hostmem.cu)
// does: a kernel of its own name, so that ncu -k readall leaves it out.
extern "C" __global__ void flushread(const float4* p, unsigned n4, float* sink) {
  float s = 0;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) {
    float4 v = p[i];
    s += v.x + v.y + v.z + v.w;
  }
  if (s == 12345.0f) *sink = s;
}
static cudaStream_t st; static cudaEvent_t e0, e1;
static bool once;
template <class F> static double ev(F f) { CK(cudaEventRecord(e0, st)); f(); CK(cudaEventRecord(e1, st)); CK(cudaEventSynchronize(e1)); float ms = 0; CK(cudaEventElapsedTime(&ms, e0, e1)); return ms * 1000.0; }
static double med(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
static std::string lst(const std::vector<double>& v) { std::string s = "["; char b[32]; for (size_t i = 0; i < v.size(); ++i) { snprintf(b, sizeof b, "%s%.3f", i ? "," : "", v[i]); s += b; } return s + "]"; }
static void emit(const char* g, const std::string& n, size_t bytes, const std::vector<double>& v, const std::string& extra = "") {
  printf("{\"group\":\"%s\",\"name\":\"%s\",\"bytes\":%zu,\"us\":%.3f,\"min_us\":%.3f,\"reps\":%zu,\"all\":%s%s}\n", g, n.c_str(), bytes, med(v),
         *std::min_element(v.begin(), v.end()), v.size(), lst(v).c_str(), extra.c_str());
  fflush(stdout);
}
static const size_t flushB = 256u << 20;
static float *big, *sink;
static void coldL2() { flushread<<<132 * 8, 256, 0, st>>>((const float4*)big, (unsigned)(flushB / 16), sink); KL(); CK(cudaStreamSynchronize(st)); }
static void l2after() {
  const int NS = 6;
  const char* sn[NS] = {"copy_pinned", "copy_d2d", "memset", "kernel_write", "kernel_read", "cold"};
  const size_t maxb = 96u << 20;
  float *d, *src, *pin;
  CK(cudaMalloc(&d, maxb)); CK(cudaMalloc(&src, maxb));
  CK(cudaHostAlloc((void**)&pin, maxb, cudaHostAllocDefault));
  for (size_t i = 0; i < maxb / 4; ++i) pin[i] = (float)(i & 1023);
  CK(cudaMemcpy(src, pin, maxb, cudaMemcpyHostToDevice)); CK(cudaMemcpy(d, pin, maxb, cudaMemcpyHostToDevice));
  CK(cudaDeviceSynchronize());
  for (size_t mb : {4, 8, 16, 24, 32, 40, 48, 64, 96}) {
    size_t b = mb << 20; unsigned n = (unsigned)(b / 4), n4 = n / 4, bl = (n + 255) / 256;
    unsigned rbl = std::min(132u * 8, (n4 + 255) / 256);
    std::vector<double> L[NS][2];
    int reps = once ? 1 : 7;
    for (int r = once ? 0 : -1; r < reps; ++r) {
      for (int s = 0; s < NS; ++s) {
        coldL2();
        switch (s) {
        case 0: CK(cudaMemcpyAsync(d, pin, b, cudaMemcpyHostToDevice, st)); break;
        case 1: CK(cudaMemcpyAsync(d, src, b, cudaMemcpyDeviceToDevice, st)); break;
        case 2: CK(cudaMemsetAsync(d, 0, b, st)); break;
        case 3: store_perm<<<bl, 256, 0, st>>>(src, d, n, 1, 1.0f); KL(); break;
        case 4: readall<<<rbl, 256, 0, st>>>((const float4*)d, n4, sink); KL(); if (once) fprintf(stderr, "readall %zu kernel_read.setup\n", mb); break;
        case 5: break;
        }
        CK(cudaStreamSynchronize(st));
        for (int j = 0; j < 2; ++j) {
          double t = ev([&] { readall<<<rbl, 256, 0, st>>>((const float4*)d, n4, sink); KL(); });
          if (once) fprintf(stderr, "readall %zu %s.launch%d\n", mb, sn[s], j + 1);
          if (r >= 0) L[s][j].push_back(t);
        }
      }
    }
    for (int s = 0; s < NS; ++s)
      for (int j = 0; j < 2; ++j) emit("l2after", std::string(sn[s]) + ".readall.launch" + std::to_string(j + 1), b, L[s][j], ",\"kernel\":\"readall\"");
  }
  CK(cudaFree(d)); CK(cudaFree(src)); CK(cudaFreeHost(pin));
}
static void prefetch(void* p, size_t b) {
#if CUDART_VERSION >= 13000
  cudaMemLocation loc; loc.type = cudaMemLocationTypeDevice; loc.id = 0; CK(cudaMemPrefetchAsync(p, b, loc, 0, st));
#else
  CK(cudaMemPrefetchAsync(p, b, 0, st));
#endif
}
static void l2managed() {
  const char* sn[2] = {"prefetched", "faulted"};
  for (size_t mb : {4, 16, 32, 64}) {
    size_t b = mb << 20; unsigned n = (unsigned)(b / 4), n4 = n / 4;
    unsigned rbl = std::min(132u * 8, (n4 + 255) / 256);
    float* m; CK(cudaMallocManaged(&m, b));
    std::vector<double> L[2][2];
    for (int r = once ? 0 : -1; r < (once ? 1 : 7); ++r)
      for (int s = 0; s < 2; ++s) {
        for (size_t i = 0; i < n; ++i) m[i] = (float)(i & 1023);
        coldL2();
        if (s == 0) prefetch(m, b);
        else { readall<<<rbl, 256, 0, st>>>((const float4*)m, n4, sink); KL(); if (once) fprintf(stderr, "readall %zu faulted.setup\n", mb); }
        CK(cudaStreamSynchronize(st));
        for (int j = 0; j < 2; ++j) {
          double t = ev([&] { readall<<<rbl, 256, 0, st>>>((const float4*)m, n4, sink); KL(); });
          if (once) fprintf(stderr, "readall %zu %s.launch%d\n", mb, sn[s], j + 1);
          if (r >= 0) L[s][j].push_back(t);
        }
      }
    for (int s = 0; s < 2; ++s)
      for (int j = 0; j < 2; ++j) emit("l2managed", std::string(sn[s]) + ".readall.launch" + std::to_string(j + 1), b, L[s][j], ",\"kernel\":\"readall\"");
    CK(cudaFree(m));
  }
}
static void firstlaunch() {
  const char* sn[3] = {"pageable_copy", "pinned_copy", "prefetch"};
  const size_t maxb = 64u << 20;
  float *dout, *pin; CK(cudaMalloc(&dout, maxb)); CK(cudaHostAlloc((void**)&pin, maxb, cudaHostAllocDefault));
  std::vector<float> host(maxb / 4); for (size_t i = 0; i < host.size(); ++i) host[i] = pin[i] = (float)(i & 1023);
  for (size_t mb : {8, 32, 64}) {
    size_t b = mb << 20; unsigned n = (unsigned)(b / 4), bl = (n + 255) / 256;
    std::vector<double> L[3][3];
    for (int r = once ? 0 : -1; r < (once ? 1 : 7); ++r)
      for (int s = 0; s < 3; ++s) {
        coldL2();
        float* d;
        if (s == 2) { CK(cudaMallocManaged(&d, b)); memcpy(d, host.data(), b); prefetch(d, b); CK(cudaStreamSynchronize(st)); }
        else {
          CK(cudaMalloc(&d, b));
          if (s == 0) CK(cudaMemcpy(d, host.data(), b, cudaMemcpyHostToDevice));
          else CK(cudaMemcpy(d, pin, b, cudaMemcpyHostToDevice));
          CK(cudaDeviceSynchronize());
        }
        for (int j = 0; j < 3; ++j) {
          double t = ev([&] { copy_perm<<<bl, 256, 0, st>>>(d, dout, n, 1, 2.0f); KL(); });
          if (once) fprintf(stderr, "copy_perm %zu %s.launch%d\n", mb, sn[s], j + 1);
          if (r >= 0) L[s][j].push_back(t);
        }
        CK(cudaFree(d));
      }
    for (int s = 0; s < 3; ++s)
      for (int j = 0; j < 3; ++j) emit("firstlaunch", std::string(sn[s]) + ".copy_perm.launch" + std::to_string(j + 1), b, L[s][j], ",\"kernel\":\"copy_perm\"");
  }
  CK(cudaFree(dout)); CK(cudaFreeHost(pin));
}
static void readstride() {
  const size_t maxb = 64u << 20;
  float *in, *out;
  CK(cudaMalloc(&in, maxb)); CK(cudaMalloc(&out, maxb)); CK(cudaMemset(in, 0, maxb)); CK(cudaMemset(out, 0, maxb));
  CK(cudaDeviceSynchronize());
  for (size_t mb : {8, 32, 64})
    for (unsigned stride : {1u, 2u, 8u, 32u}) {
      size_t b = mb << 20; unsigned n = (unsigned)(b / 4), bl = (n + 255) / 256;
      std::vector<double> v;
      for (int r = once ? 0 : -1; r < (once ? 1 : 7); ++r) {
        coldL2();
        double t = ev([&] { copy_perm<<<bl, 256, 0, st>>>(in, out, n, stride, 2.0f); KL(); });
        if (once) fprintf(stderr, "copy_perm %zu stride%u\n", mb, stride);
        if (r >= 0) v.push_back(t);
      }
      emit("readstride", "copy_perm_stride" + std::to_string(stride), b, v, ",\"kernel\":\"copy_perm\",\"stride\":" + std::to_string(stride));
    }
  CK(cudaFree(in)); CK(cudaFree(out));
}
static void partial() {
  const size_t maxb = 128u << 20;
  float *in, *out;
  CK(cudaMalloc(&in, maxb)); CK(cudaMalloc(&out, maxb)); CK(cudaMemset(in, 0, maxb)); CK(cudaMemset(out, 0, maxb));
  CK(cudaDeviceSynchronize());
  for (size_t mb : {4, 16, 32, 64, 128})
    for (unsigned stride : {1u, 2u, 8u, 32u}) {
      size_t b = mb << 20; unsigned n = (unsigned)(b / 4), bl = (n + 255) / 256;
      std::vector<double> v;
      for (int r = once ? 0 : -1; r < (once ? 1 : 7); ++r) {
        coldL2();
        double t = ev([&] { store_perm<<<bl, 256, 0, st>>>(in, out, n, stride, 2.0f); KL(); });
        if (once) fprintf(stderr, "store_perm %zu stride%u\n", mb, stride);
        if (r >= 0) v.push_back(t);
      }
      emit("partial", "store_perm_stride" + std::to_string(stride), b, v, ",\"kernel\":\"store_perm\",\"stride\":" + std::to_string(stride));
    }
  CK(cudaFree(in)); CK(cudaFree(out));
}
int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: hostmem7 l2after|partial|l2managed|firstlaunch|readstride [once]\n"); return 2; }
  once = argc > 2 && !strcmp(argv[2], "once");
  CK(cudaSetDevice(0)); CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking)); CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  CK(cudaMalloc(&big, flushB)); CK(cudaMalloc(&sink, 4)); CK(cudaMemset(big, 0, flushB));
  if (!strcmp(argv[1], "l2after")) l2after();
  else if (!strcmp(argv[1], "partial")) partial();
  else if (!strcmp(argv[1], "l2managed")) l2managed();
  else if (!strcmp(argv[1], "firstlaunch")) firstlaunch();
  else if (!strcmp(argv[1], "readstride")) readstride();
  else { fprintf(stderr, "unknown group %s\n", argv[1]); return 2; }
  CK(cudaDeviceSynchronize());
  return 0;
}
