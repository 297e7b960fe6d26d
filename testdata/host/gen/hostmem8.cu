// hostmem8: the eighth host-memory recording (issue 26). Two questions.
//
// probe: where the first launch after data came to the device spends its
// extra time (hostmem4/6/7: 0.5-20 µs more than the launches after it,
// most after a copy into a buffer no kernel had touched since cudaMalloc;
// ncu's duration of that launch, replayed with clocks locked, shows none
// of it). copy_perm_ts is copy_perm (kernels/cuda/hostmem.cu) with thread 0
// of each block reading %globaltimer and clock64 when the block starts and
// again after a __syncthreads once its threads have loaded and stored; so
// each launch gives, beside its CUDA-event time, the kernel's own span on
// the GPU's clock (first block start to last block end), the SMs' clock
// rate during it (clock64 over globaltimer per SM), and its blocks'
// durations in the first wave and after it. States, each at 8, 32 and 64
// MiB, interleaved in each of 7 repeats after one warm-up, three launches
// each, every state after a 256 MiB read of another buffer:
//   fresh_pinned   a new cudaMalloc filled by a pinned copy
//   reused_pinned  the same buffer copied into again (kernels read it before)
//   fresh_memset   a new cudaMalloc filled by cudaMemset
//   fresh_touch    a new cudaMalloc filled by a pinned copy, then a small
//                  kernel (touch64k_ts) reading one word per 64 KiB, timed too
//   idle           a resident buffer, the host asleep 50 ms before the launches
//   busy           a resident buffer, no gap
//
// mapped: scattered accesses to mapped (zero-copy) pinned memory over a
// finer grid of sizes than hostmem.cu's 1/4/16/64 MiB: store_perm into
// mapped memory with strides of 1, 2, 8 and 32 words at 4-128 MiB (the
// GPU's scattered posted writes slowed from 3.1 GB/s at 16 MiB to 1.86 at
// 64), and copy_perm from it with a stride of 32 at 1-16 MiB (the first
// recording's 4 MiB ran 24% under the model's line). 7 repeats after one
// warm-up, CUDA events.
//
// lines: what a warp's load costs by the lines and sectors it touches, with
// the data in the L2 (an 8 MiB buffer read once before, loads with
// ld.global.cg so that the L1 keeps nothing): gather_lines has each warp
// load 32 words `stride` words apart (stride 1: one line, 4 sectors; 8: 8
// lines of 4 sectors; 16: 16 lines of 2; 32: 32 lines of one sector),
// `iters` times over the buffer, on grids of 1 to 264 blocks of 1024
// threads (1 to 132 SMs, then two blocks an SM). The rate in sectors a
// nanosecond against the number of SMs says whether a line costs the SM
// (the rate per SM falls with lines per request at any number of SMs) or
// the L2 (it falls only when many SMs load at once).
//
// Usage: hostmem8 probe|mapped|lines. One JSON object per line on stdout.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>
#include "../../../kernels/cuda/hostmem.cu"
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(e_)); exit(1); } } while (0)
#define KL() CK(cudaGetLastError())

struct stamp { unsigned long long gt0, ck0, gt1, ck1; unsigned sm, pad; };
__device__ __forceinline__ unsigned long long gtime() { unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }
__device__ __forceinline__ unsigned smid() { unsigned s; asm volatile("mov.u32 %0, %%smid;" : "=r"(s)); return s; }

extern "C" __global__ void copy_perm_ts(const float* __restrict__ in, float* __restrict__ out, unsigned n, unsigned stride, float f, stamp* ts) {
  unsigned long long g0 = 0, c0 = 0;
  if (threadIdx.x == 0) { g0 = gtime(); c0 = clock64(); }
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned rows = n / stride;
    unsigned j = (i % rows) * stride + i / rows;
    out[i] = in[j] * f;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    stamp s; s.gt0 = g0; s.ck0 = c0; s.ck1 = clock64(); s.gt1 = gtime(); s.sm = smid(); s.pad = 0;
    ts[blockIdx.x] = s;
  }
}
extern "C" __global__ void touch64k_ts(const float* p, unsigned n, float* sink, stamp* ts) {
  unsigned long long g0 = 0, c0 = 0;
  if (threadIdx.x == 0) { g0 = gtime(); c0 = clock64(); }
  unsigned i = (blockIdx.x * blockDim.x + threadIdx.x) * 16384u;  // one word per 64 KiB
  float v = i < n ? p[i] : 0.f;
  if (v == 12345.0f) *sink = v;
  __syncthreads();
  if (threadIdx.x == 0) { stamp s; s.gt0 = g0; s.ck0 = c0; s.ck1 = clock64(); s.gt1 = gtime(); s.sm = smid(); s.pad = 0; ts[blockIdx.x] = s; }
}
extern "C" __global__ void __launch_bounds__(1024) gather_lines(const float* __restrict__ p, unsigned n, unsigned stride, unsigned iters, float* sink) {
  unsigned lane = threadIdx.x & 31, w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, W = (gridDim.x * blockDim.x) >> 5;
  unsigned span = 32 * stride;
  float s = 0;
  for (unsigned it = 0; it < iters; ++it) {
    unsigned idx = (unsigned)(((unsigned long long)(w + (unsigned long long)it * W) * span + lane * stride) % n);
    s += __ldcg(p + idx);
  }
  if (s == 12345.0f) *sink = s;
}
extern "C" __global__ void flushread(const float4* p, unsigned n4, float* sink) {
  float s = 0;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) { float4 v = p[i]; s += v.x + v.y + v.z + v.w; }
  if (s == 12345.0f) *sink = s;
}

static cudaStream_t st; static cudaEvent_t e0, e1;
template <class F> static double ev(F f) { CK(cudaEventRecord(e0, st)); f(); CK(cudaEventRecord(e1, st)); CK(cudaEventSynchronize(e1)); float ms = 0; CK(cudaEventElapsedTime(&ms, e0, e1)); return ms * 1000.0; }
static double med(std::vector<double> v) { if (v.empty()) return 0; std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
static std::string lst(const std::vector<double>& v) { std::string s = "["; char b[32]; for (size_t i = 0; i < v.size(); ++i) { snprintf(b, sizeof b, "%s%.3f", i ? "," : "", v[i]); s += b; } return s + "]"; }
static const size_t flushB = 256u << 20;
static float *big, *sink;
static void coldL2() { flushread<<<132 * 8, 256, 0, st>>>((const float4*)big, (unsigned)(flushB / 16), sink); KL(); CK(cudaStreamSynchronize(st)); }

// What one instrumented launch gave.
struct shot { double ev, span, mhz, wave1, rest, startSpread; };
static stamp* hts; static stamp* dts[4]; static const unsigned maxBlocks = (128u << 20) / 4 / 256;
static shot analyse(double evus, unsigned blocks, const stamp* d) {
  CK(cudaMemcpy(hts, d, blocks * sizeof(stamp), cudaMemcpyDeviceToHost));
  unsigned long long g0 = ~0ull, g1 = 0;
  std::vector<unsigned long long> sg0(256, ~0ull), sg1(256, 0), sc0(256, ~0ull), sc1(256, 0);
  std::vector<double> d1, d2, firsts;
  // The first wave: the blocks that started before any block ended.
  unsigned long long firstEnd = ~0ull;
  for (unsigned b = 0; b < blocks; ++b) firstEnd = std::min(firstEnd, hts[b].gt1);
  for (unsigned b = 0; b < blocks; ++b) {
    const stamp& s = hts[b];
    g0 = std::min(g0, s.gt0); g1 = std::max(g1, s.gt1);
    unsigned m = s.sm & 255;
    if (s.gt0 < sg0[m]) { sg0[m] = s.gt0; sc0[m] = s.ck0; }
    if (s.gt1 > sg1[m]) { sg1[m] = s.gt1; sc1[m] = s.ck1; }
    double d = (s.gt1 - s.gt0) / 1000.0;
    (s.gt0 < firstEnd ? d1 : d2).push_back(d);
  }
  std::vector<double> mhz;
  for (unsigned m = 0; m < 256; ++m) {
    if (sg1[m] == 0 || sg1[m] <= sg0[m]) continue;
    firsts.push_back((sg0[m] - g0) / 1000.0);
    if (sg1[m] - sg0[m] > 2000) mhz.push_back((double)(sc1[m] - sc0[m]) * 1000.0 / (double)(sg1[m] - sg0[m]));
  }
  shot r; r.ev = evus; r.span = (g1 - g0) / 1000.0; r.mhz = med(mhz); r.wave1 = med(d1); r.rest = med(d2);
  std::sort(firsts.begin(), firsts.end()); r.startSpread = firsts.empty() ? 0 : firsts.back();
  return r;
}
static void emitShots(const std::string& name, size_t bytes, const std::vector<shot>& v) {
  std::vector<double> a, s, m, w1, w2, sp;
  for (auto& x : v) { a.push_back(x.ev); s.push_back(x.span); m.push_back(x.mhz); w1.push_back(x.wave1); w2.push_back(x.rest); sp.push_back(x.startSpread); }
  printf("{\"group\":\"probe\",\"name\":\"%s\",\"bytes\":%zu,\"us\":%.3f,\"span_us\":%.3f,\"mhz\":%.1f,\"wave1_block_us\":%.3f,\"later_block_us\":%.3f,\"sm_start_spread_us\":%.3f,"
         "\"all\":%s,\"span_all\":%s,\"mhz_all\":%s,\"wave1_all\":%s,\"later_all\":%s,\"spread_all\":%s}\n",
         name.c_str(), bytes, med(a), med(s), med(m), med(w1), med(w2), med(sp), lst(a).c_str(), lst(s).c_str(), lst(m).c_str(), lst(w1).c_str(), lst(w2).c_str(), lst(sp).c_str());
  fflush(stdout);
}

static void probe() {
  const int NS = 6;
  const char* sn[NS] = {"fresh_pinned", "reused_pinned", "fresh_memset", "fresh_touch", "idle", "busy"};
  const size_t maxb = 64u << 20;
  float *dout, *pin, *reused, *resident;
  CK(cudaMalloc(&dout, maxb)); CK(cudaHostAlloc((void**)&pin, maxb, cudaHostAllocDefault));
  CK(cudaMalloc(&reused, maxb)); CK(cudaMalloc(&resident, maxb));
  for (size_t i = 0; i < maxb / 4; ++i) pin[i] = (float)(i & 1023);
  CK(cudaMemcpy(reused, pin, maxb, cudaMemcpyHostToDevice)); CK(cudaMemcpy(resident, pin, maxb, cudaMemcpyHostToDevice));
  for (size_t mb : {8, 32, 64}) {
    size_t b = mb << 20; unsigned n = (unsigned)(b / 4), bl = (n + 255) / 256;
    unsigned tbl = (unsigned)((b / 65536 + 255) / 256);
    std::vector<shot> L[NS][3], T;
    for (int r = -1; r < 7; ++r)
      for (int s0 = 0; s0 < NS; ++s0) {
        int s = (s0 + (r < 0 ? 0 : r)) % NS;  // rotate the order each repeat
        // a kernel reads the reused and resident buffers first, every time
        copy_perm<<<bl, 256, 0, st>>>(reused, dout, n, 1, 2.0f); KL();
        copy_perm<<<bl, 256, 0, st>>>(resident, dout, n, 1, 2.0f); KL();
        coldL2();
        float* d = nullptr; bool own = false;
        switch (s) {
        case 0: CK(cudaMalloc(&d, b)); own = true; CK(cudaMemcpy(d, pin, b, cudaMemcpyHostToDevice)); break;
        case 1: d = reused; CK(cudaMemcpy(d, pin, b, cudaMemcpyHostToDevice)); break;
        case 2: CK(cudaMalloc(&d, b)); own = true; CK(cudaMemsetAsync(d, 0, b, st)); break;
        case 3: CK(cudaMalloc(&d, b)); own = true; CK(cudaMemcpy(d, pin, b, cudaMemcpyHostToDevice)); break;
        case 4: d = resident; break;
        case 5: d = resident; break;
        }
        CK(cudaDeviceSynchronize());
        if (s == 4) std::this_thread::sleep_for(std::chrono::milliseconds(50));
        // The stamps are read back only after the three launches: no copy
        // between them.
        double tt = 0, t3[3];
        if (s == 3) tt = ev([&] { touch64k_ts<<<tbl, 256, 0, st>>>(d, n, sink, dts[3]); KL(); });
        for (int j = 0; j < 3; ++j) t3[j] = ev([&] { copy_perm_ts<<<bl, 256, 0, st>>>(d, dout, n, 1, 2.0f, dts[j]); KL(); });
        if (r >= 0) {
          if (s == 3) T.push_back(analyse(tt, tbl, dts[3]));
          for (int j = 0; j < 3; ++j) L[s][j].push_back(analyse(t3[j], bl, dts[j]));
        }
        if (own) CK(cudaFree(d));
      }
    for (int s = 0; s < NS; ++s)
      for (int j = 0; j < 3; ++j) emitShots(std::string(sn[s]) + ".copy_perm_ts.launch" + std::to_string(j + 1), b, L[s][j]);
    emitShots("fresh_touch.touch64k_ts", b, T);
  }
  CK(cudaFree(dout)); CK(cudaFreeHost(pin)); CK(cudaFree(reused)); CK(cudaFree(resident));
}

static void emit(const std::string& n, size_t bytes, const std::vector<double>& v, const std::string& extra) {
  printf("{\"group\":\"mapped8\",\"name\":\"%s\",\"bytes\":%zu,\"us\":%.3f,\"min_us\":%.3f,\"reps\":%zu,\"all\":%s%s}\n", n.c_str(), bytes, med(v),
         *std::min_element(v.begin(), v.end()), v.size(), lst(v).c_str(), extra.c_str());
  fflush(stdout);
}
static void mapped() {
  const size_t maxb = 128u << 20;
  float *hm, *dm, *dev;
  CK(cudaHostAlloc((void**)&hm, maxb, cudaHostAllocMapped));
  CK(cudaHostGetDevicePointer((void**)&dm, hm, 0));
  CK(cudaMalloc(&dev, maxb));
  for (size_t i = 0; i < maxb / 4; ++i) hm[i] = (float)(i & 1023);
  CK(cudaMemcpy(dev, hm, maxb, cudaMemcpyHostToDevice));
  for (size_t mb : {4, 8, 16, 24, 32, 48, 64, 96, 128})
    for (unsigned stride : {1u, 2u, 8u, 32u}) {
      size_t b = mb << 20; unsigned n = (unsigned)(b / 4), bl = (n + 255) / 256;
      std::vector<double> v;
      for (int r = -1; r < 7; ++r) {
        double t = ev([&] { store_perm<<<bl, 256, 0, st>>>(dev, dm, n, stride, 2.0f); KL(); });
        if (r >= 0) v.push_back(t);
      }
      emit("write_mapped_stride" + std::to_string(stride), b, v, ",\"kernel\":\"store_perm\",\"stride\":" + std::to_string(stride));
    }
  for (size_t mb : {1, 2, 3, 4, 5, 6, 8, 12, 16})
    for (unsigned stride : {1u, 32u}) {
      size_t b = mb << 20; unsigned n = (unsigned)(b / 4), bl = (n + 255) / 256;
      std::vector<double> v;
      for (int r = -1; r < 7; ++r) {
        double t = ev([&] { copy_perm<<<bl, 256, 0, st>>>(dm, dev, n, stride, 2.0f); KL(); });
        if (r >= 0) v.push_back(t);
      }
      emit("read_mapped_stride" + std::to_string(stride), b, v, ",\"kernel\":\"copy_perm\",\"stride\":" + std::to_string(stride));
    }
  CK(cudaFreeHost(hm)); CK(cudaFree(dev));
}

static void lines() {
  const size_t b = 8u << 20; unsigned n = (unsigned)(b / 4);
  float* d; CK(cudaMalloc(&d, b)); CK(cudaMemset(d, 0, b));
  for (unsigned blocks : {1u, 8u, 33u, 66u, 132u, 264u})
    for (unsigned stride : {1u, 2u, 8u, 16u, 32u}) {
      unsigned iters = blocks <= 8 ? 4096 : blocks <= 66 ? 1024 : 512;
      std::vector<double> v;
      for (int r = -1; r < 7; ++r) {
        // the buffer into the L2 (a coalesced pass), then the timed gathers
        gather_lines<<<132, 1024, 0, st>>>(d, n, 1, n / (132 * 1024 / 32) / 32 + 1, sink); KL();
        double t = ev([&] { gather_lines<<<blocks, 1024, 0, st>>>(d, n, stride, iters, sink); KL(); });
        if (r >= 0) v.push_back(t);
      }
      double sectors = (double)blocks * 32 * iters * 32;  // one sector per lane a load
      if (stride == 1) sectors /= 8; else if (stride == 2) sectors /= 4;
      char extra[160];
      snprintf(extra, sizeof extra, ",\"kernel\":\"gather_lines\",\"blocks\":%u,\"stride\":%u,\"iters\":%u,\"sectors\":%.0f", blocks, stride, iters, sectors);
      printf("{\"group\":\"lines\",\"name\":\"gather_stride%u_blocks%u\",\"bytes\":%zu,\"us\":%.3f,\"min_us\":%.3f,\"reps\":%zu,\"all\":%s%s}\n",
             stride, blocks, b, med(v), *std::min_element(v.begin(), v.end()), v.size(), lst(v).c_str(), extra);
      fflush(stdout);
    }
  CK(cudaFree(d));
}

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: hostmem8 probe|mapped|lines\n"); return 2; }
  CK(cudaSetDevice(0)); CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking)); CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  CK(cudaMalloc(&big, flushB)); CK(cudaMalloc(&sink, 4)); CK(cudaMemset(big, 0, flushB));
  for (auto& p : dts) CK(cudaMalloc(&p, maxBlocks * sizeof(stamp))); CK(cudaMallocHost((void**)&hts, maxBlocks * sizeof(stamp)));
  if (!strcmp(argv[1], "probe")) probe();
  else if (!strcmp(argv[1], "mapped")) mapped();
  else if (!strcmp(argv[1], "lines")) lines();
  else { fprintf(stderr, "unknown group %s\n", argv[1]); return 2; }
  CK(cudaDeviceSynchronize());
  return 0;
}
