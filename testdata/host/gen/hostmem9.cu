// hostmem9: the ninth host-memory recording (issue 26). Two questions.
//
// mix: what the L2 gives when reads and writes mix, with the data in the L2.
// The eighth recording (hostmem8 lines) found 132 SMs gathering 146-166
// sectors a cycle from the L2 in lines of four sectors and 82 one-sector
// transactions a cycle; the H100's padded transposes (reads and writes
// together) run at 74-78 sectors a cycle. mix_<R><W> kernels have every warp,
// `iters` times, load R words a lane and then store W words a lane, each
// access a warp-wide one: "c" coalesced (32 consecutive words, one line of
// four sectors), "g" gathered or "s" scattered (32 words 32 words apart:
// 32 lines of one sector). Loads are ld.global.cg (the L1 keeps nothing),
// stores st.global.cg; the two 8 MiB buffers are in the L2 (written whole
// and read whole just before). Grids of 8, 132 and 264 blocks of 1,024
// threads. Each launch is sized to move about 20 M sectors (2 M at 8
// blocks). `mix once` runs each launch once, for Nsight Compute.
//
// mapw: why scattered writes to mapped memory slow past 16 MiB (hostmem8:
// store_perm with a stride of 32 words writes 3.1 GB/s at 4-8 MiB, 1.5 at
// 96-128 MiB; strides of 2 and 8 write a flat 1.99 GB/s). A warp of the
// stride of 32 writes one word in each of 32 lines of one 4 KiB page, and
// the launch sweeps the whole buffer 32 times. Variants, each at 8-128 MiB:
//   sweep      store_perm as in hostmem8 (cudaHostAlloc, mapped)
//   win2/win8  the same words and the same warps' pattern, but the launch
//              finishes each 2 (8) MiB window's 32 sweeps before the next
//              window: the footprint of a sweep is the window
//   thp        store_perm into host memory from mmap with MADV_HUGEPAGE,
//              touched, then cudaHostRegister(..., Mapped): 2 MiB host
//              pages where the kernel gives them (AnonHugePages is printed)
//   read       copy_perm from mapped memory with a stride of 32 at 24-64 MiB
// 7 repeats after one warm-up, CUDA events.
//
// pitch: the copy of mix (a coalesced load, a coalesced store) with the
// stores in a transpose's order, rows of 4-16 KiB apart (pitchk), to see
// whether such strides load the L2's slices unevenly.
//
// Usage: hostmem9 mix|mapw|pitch [once]. One JSON object per line on stdout.
#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/mman.h>
#include <vector>
#include "../../../kernels/cuda/hostmem.cu"
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(e_)); exit(1); } } while (0)
#define KL() CK(cudaGetLastError())

// A warp-wide access number k of warp w: coalesced, word (k*32 + lane); spread,
// word (k*1024 + lane*32); both modulo n (a power of two).
__device__ __forceinline__ unsigned at(bool spread, unsigned long long k, unsigned lane, unsigned n) {
  return spread ? (unsigned)((k * 1024ull + lane * 32u) & (n - 1)) : (unsigned)((k * 32ull + lane) & (n - 1));
}
template <int R, int W, bool RG, bool WS>
__global__ void __launch_bounds__(1024) mixk(const float* __restrict__ a, float* __restrict__ b, unsigned n, unsigned iters, float* sink) {
  unsigned lane = threadIdx.x & 31;
  unsigned long long w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, nw = (gridDim.x * blockDim.x) >> 5;
  float s = 0;
  for (unsigned it = 0; it < iters; ++it) {
    unsigned long long k = (unsigned long long)it * nw + w;
#pragma unroll
    for (int r = 0; r < R; ++r) s += __ldcg(a + at(RG, k * R + r, lane, n));
#pragma unroll
    for (int x = 0; x < W; ++x) __stcg(b + at(WS, k * W + x, lane, n), s + (float)x);
  }
  if (s == 12345.0f) *sink = s;
}
// pitchk: a copy in the transpose's pattern without its shared memory:
// warp access k reads line k of `a` (coalesced, in order) and writes one
// line of a 32x32-word tile of `b` whose rows are P words apart (the tiles
// in row-major order, the 32 rows of a tile by consecutive k), so that
// successive writes are 4P bytes apart as a transpose's are. P is a
// template parameter, so that its divisions are multiplications.
template <unsigned P>
__global__ void __launch_bounds__(1024) pitchk(const float* __restrict__ a, float* __restrict__ b, unsigned n, unsigned iters, float* sink) {
  unsigned lane = threadIdx.x & 31;
  unsigned w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, nw = (gridDim.x * blockDim.x) >> 5;
  const unsigned rows = (8u << 18) / P, tilesPerRow = P / 32;  // n is 8 MiB of words
  float s = 0;
  for (unsigned it = 0; it < iters; ++it) {
    unsigned k = it * nw + w;
    float v = __ldcg(a + ((k * 32u + lane) & (n - 1)));
    unsigned t = k >> 5, r = k & 31;
    unsigned col = t % tilesPerRow * 32, row = (t / tilesPerRow * 32 + r) % rows;
    __stcg(b + row * P + col + lane, v + 1.0f);
    s += v;
  }
  if (s == 12345.0f) *sink = s;
}
extern "C" __global__ void fill_all(float* p, unsigned n, float v) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) p[i] = v;
}
extern "C" __global__ void read_all(const float* p, unsigned n, float* sink) {
  float s = 0;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) s += p[i];
  if (s == 12345.0f) *sink = s;
}
// store_win: store_perm's stride within windows of win words (a multiple of
// stride), the windows in order of thread index.
extern "C" __global__ void store_win(const float* __restrict__ in, float* __restrict__ out, unsigned n, unsigned stride, unsigned win, float f) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned base = i / win * win, k = i - base, rows = win / stride;
  out[base + (k % rows) * stride + k / rows] = in[i] * f;
}

static cudaStream_t st; static cudaEvent_t e0, e1;
template <class F> static double ev(F f) { CK(cudaEventRecord(e0, st)); f(); CK(cudaEventRecord(e1, st)); CK(cudaEventSynchronize(e1)); float ms = 0; CK(cudaEventElapsedTime(&ms, e0, e1)); return ms * 1000.0; }
static double med(std::vector<double> v) { if (v.empty()) return 0; std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
static std::string lst(const std::vector<double>& v) { std::string s = "["; char b[32]; for (size_t i = 0; i < v.size(); ++i) { snprintf(b, sizeof b, "%s%.3f", i ? "," : "", v[i]); s += b; } return s + "]"; }
static float* sink;
static bool once = false;

static void emit(const char* group, const std::string& n, size_t bytes, const std::vector<double>& v, const std::string& extra) {
  printf("{\"group\":\"%s\",\"name\":\"%s\",\"bytes\":%zu,\"us\":%.3f,\"min_us\":%.3f,\"reps\":%zu,\"all\":%s%s}\n", group, n.c_str(), bytes, med(v),
         *std::min_element(v.begin(), v.end()), v.size(), lst(v).c_str(), extra.c_str());
  fflush(stdout);
}

struct pattern { const char* name; int r, w; bool rg, ws; void (*k)(const float*, float*, unsigned, unsigned, float*); };
static const pattern pats[] = {
  {"rc", 1, 0, false, false, mixk<1, 0, false, false>},
  {"rg", 1, 0, true, false, mixk<1, 0, true, false>},
  {"wc", 0, 1, false, false, mixk<0, 1, false, false>},
  {"ws", 0, 1, false, true, mixk<0, 1, false, true>},
  {"rc_wc", 1, 1, false, false, mixk<1, 1, false, false>},
  {"rc2_wc", 2, 1, false, false, mixk<2, 1, false, false>},
  {"rc4_wc", 4, 1, false, false, mixk<4, 1, false, false>},
  {"rc_wc2", 1, 2, false, false, mixk<1, 2, false, false>},
  {"rg_wc", 1, 1, true, false, mixk<1, 1, true, false>},
  {"rc_ws", 1, 1, false, true, mixk<1, 1, false, true>},
  {"rg_ws", 1, 1, true, true, mixk<1, 1, true, true>},
};

static void mix() {
  const size_t b = 8u << 20; unsigned n = (unsigned)(b / 4);
  float *A, *B; CK(cudaMalloc(&A, b)); CK(cudaMalloc(&B, b));
  for (unsigned blocks : {132u, 264u, 8u})
    for (const pattern& p : pats) {
      // sectors a warp-wide access moves: a coalesced one 4, a spread one 32
      double perIter = p.r * (p.rg ? 32 : 4) + p.w * (p.ws ? 32 : 4);
      double warps = blocks * 32.0, target = blocks <= 8 ? 2e6 : 2e7;
      unsigned iters = (unsigned)std::max(1.0, target / (warps * perIter));
      std::vector<double> v;
      for (int r = (once ? 0 : -1); r < (once ? 1 : 7); ++r) {
        fill_all<<<264, 1024, 0, st>>>(B, n, 1.0f); KL();
        read_all<<<264, 1024, 0, st>>>(A, n, sink); KL();
        double t = ev([&] { p.k<<<blocks, 1024, 0, st>>>(A, B, n, iters, sink); KL(); });
        if (r >= 0) v.push_back(t);
      }
      double rs = warps * iters * p.r * (p.rg ? 32 : 4), ws = warps * iters * p.w * (p.ws ? 32 : 4);
      char extra[200];
      snprintf(extra, sizeof extra, ",\"kernel\":\"mixk\",\"blocks\":%u,\"iters\":%u,\"read_sectors\":%.0f,\"write_sectors\":%.0f", blocks, iters, rs, ws);
      emit("mix", std::string(p.name) + "_blocks" + std::to_string(blocks), b, v, extra);
    }
  CK(cudaFree(A)); CK(cudaFree(B));
}

// pitch: pitchk at row pitches of 1,024, 2,048 and 4,096 words (4-16 KiB:
// a transpose of that width's rows) and of 2,080 (padded by a line), beside
// the plain copy (mix rc_wc), on 132 and 264 blocks.
static void pitch() {
  const size_t b = 8u << 20; unsigned n = (unsigned)(b / 4);
  float *A, *B; CK(cudaMalloc(&A, b)); CK(cudaMalloc(&B, b));
  for (unsigned blocks : {132u, 264u})
    for (unsigned p : {0u, 1024u, 2048u, 2080u, 4096u}) {
      double warps = blocks * 32.0;
      unsigned iters = (unsigned)std::max(1.0, 2e7 / (warps * 8));
      std::vector<double> v;
      for (int r = (once ? 0 : -1); r < (once ? 1 : 7); ++r) {
        fill_all<<<264, 1024, 0, st>>>(B, n, 1.0f); KL();
        read_all<<<264, 1024, 0, st>>>(A, n, sink); KL();
        double t = ev([&] {
          if (p == 0) mixk<1, 1, false, false><<<blocks, 1024, 0, st>>>(A, B, n, iters, sink);
          else if (p == 1024) pitchk<1024><<<blocks, 1024, 0, st>>>(A, B, n, iters, sink);
          else if (p == 2048) pitchk<2048><<<blocks, 1024, 0, st>>>(A, B, n, iters, sink);
          else if (p == 2080) pitchk<2080><<<blocks, 1024, 0, st>>>(A, B, n, iters, sink);
          else pitchk<4096><<<blocks, 1024, 0, st>>>(A, B, n, iters, sink);
          KL();
        });
        if (r >= 0) v.push_back(t);
      }
      double sec = warps * iters * 4;
      char extra[200];
      snprintf(extra, sizeof extra, ",\"kernel\":\"%s\",\"blocks\":%u,\"pitch\":%u,\"iters\":%u,\"read_sectors\":%.0f,\"write_sectors\":%.0f", p ? "pitchk" : "mixk", blocks, p, iters, sec, sec);
      emit("pitch", "pitch" + std::to_string(p) + "_blocks" + std::to_string(blocks), b, v, extra);
    }
  CK(cudaFree(A)); CK(cudaFree(B));
}

static long anonHuge() {
  FILE* f = fopen("/proc/meminfo", "r"); if (!f) return -1;
  char line[256]; long kb = -1;
  while (fgets(line, sizeof line, f)) if (sscanf(line, "AnonHugePages: %ld kB", &kb) == 1) break;
  fclose(f); return kb;
}

static void mapw() {
  const size_t maxb = 128u << 20;
  float *hm, *dm, *dev;
  CK(cudaHostAlloc((void**)&hm, maxb, cudaHostAllocMapped));
  CK(cudaHostGetDevicePointer((void**)&dm, hm, 0));
  CK(cudaMalloc(&dev, maxb));
  for (size_t i = 0; i < maxb / 4; ++i) hm[i] = (float)(i & 1023);
  CK(cudaMemcpy(dev, hm, maxb, cudaMemcpyHostToDevice));
  // 2 MiB pages from the kernel where it gives them
  long before = anonHuge();
  void* raw = mmap(nullptr, maxb + (2u << 20), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) { perror("mmap"); exit(1); }
  float* th = (float*)(((uintptr_t)raw + (2u << 20) - 1) & ~(uintptr_t)((2u << 20) - 1));
  int adv = madvise(th, maxb, MADV_HUGEPAGE);
  for (size_t i = 0; i < maxb / 4; ++i) th[i] = (float)(i & 1023);
  long after = anonHuge();
  CK(cudaHostRegister(th, maxb, cudaHostRegisterMapped));
  float* dth; CK(cudaHostGetDevicePointer((void**)&dth, th, 0));
  printf("{\"group\":\"mapw_env\",\"name\":\"thp\",\"madvise_rc\":%d,\"anon_huge_kb_before\":%ld,\"anon_huge_kb_after_touch\":%ld,\"anon_huge_kb_after_register\":%ld}\n", adv, before, after, anonHuge());
  fflush(stdout);
  auto run = [&](const std::string& name, size_t mb, auto launch, const std::string& extra) {
    size_t b = mb << 20;
    std::vector<double> v;
    for (int r = -1; r < 7; ++r) { double t = ev([&] { launch(b); }); if (r >= 0) v.push_back(t); }
    emit("mapw", name, b, v, extra);
  };
  for (size_t mb : {8, 16, 24, 32, 64, 128}) {
    auto grid = [](size_t b) { unsigned n = (unsigned)(b / 4); return std::make_pair(n, (n + 255) / 256); };
    run("sweep_stride32", mb, [&](size_t b) { auto [n, bl] = grid(b); store_perm<<<bl, 256, 0, st>>>(dev, dm, n, 32, 2.0f); KL(); }, ",\"kernel\":\"store_perm\",\"stride\":32");
    for (unsigned winmb : {2u, 8u}) {
      if ((size_t)winmb >= mb) continue;
      run("win" + std::to_string(winmb) + "_stride32", mb, [&](size_t b) { auto [n, bl] = grid(b); store_win<<<bl, 256, 0, st>>>(dev, dm, n, 32, winmb << 18, 2.0f); KL(); },
          ",\"kernel\":\"store_win\",\"stride\":32,\"window_bytes\":" + std::to_string((size_t)winmb << 20));
    }
    run("thp_stride32", mb, [&](size_t b) { auto [n, bl] = grid(b); store_perm<<<bl, 256, 0, st>>>(dev, dth, n, 32, 2.0f); KL(); }, ",\"kernel\":\"store_perm\",\"stride\":32,\"host\":\"thp\"");
    if (mb == 8 || mb == 64) {
      run("thp_stride8", mb, [&](size_t b) { auto [n, bl] = grid(b); store_perm<<<bl, 256, 0, st>>>(dev, dth, n, 8, 2.0f); KL(); }, ",\"kernel\":\"store_perm\",\"stride\":8,\"host\":\"thp\"");
      run("thp_stride1", mb, [&](size_t b) { auto [n, bl] = grid(b); store_perm<<<bl, 256, 0, st>>>(dev, dth, n, 1, 2.0f); KL(); }, ",\"kernel\":\"store_perm\",\"stride\":1,\"host\":\"thp\"");
    }
    if (mb >= 24 && mb <= 64) {
      run("read_stride32", mb, [&](size_t b) { auto [n, bl] = grid(b); copy_perm<<<bl, 256, 0, st>>>(dm, dev, n, 32, 2.0f); KL(); }, ",\"kernel\":\"copy_perm\",\"stride\":32");
      run("thp_read_stride32", mb, [&](size_t b) { auto [n, bl] = grid(b); copy_perm<<<bl, 256, 0, st>>>(dth, dev, n, 32, 2.0f); KL(); }, ",\"kernel\":\"copy_perm\",\"stride\":32,\"host\":\"thp\"");
    }
  }
  CK(cudaHostUnregister(th)); munmap(raw, maxb + (2u << 20));
  CK(cudaFreeHost(hm)); CK(cudaFree(dev));
}

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: hostmem9 mix|mapw|pitch [once]\n"); return 2; }
  once = argc > 2 && !strcmp(argv[2], "once");
  CK(cudaSetDevice(0)); CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking)); CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  CK(cudaMalloc(&sink, 4));
  if (!strcmp(argv[1], "mix")) mix();
  else if (!strcmp(argv[1], "mapw")) mapw();
  else if (!strcmp(argv[1], "pitch")) pitch();
  else { fprintf(stderr, "unknown group %s\n", argv[1]); return 2; }
  CK(cudaDeviceSynchronize());
  return 0;
}
