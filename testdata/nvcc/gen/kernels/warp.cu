// warp.cu — warp-level primitives: shuffles (down/up/xor/idx, with width
// segments and out-of-range lanes), votes, __activemask, match, redux.sync
// (__reduce_*_sync), cooperative_groups tiled partitions, and shuffles/votes
// under partial masks inside divergent code where CUDA defines the result.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

#define FULL 0xffffffffu

// Shuffle-down tree sum (every lane's partial is written: lanes whose source
// is past the end keep their own value), and an xor butterfly that leaves the
// f32 sum in every lane. out/outf: one per thread.
__global__ void warp_reduce_shfl(int* out, float* outf, const int* in, const float* inf)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_down_sync(FULL, v, off);
    float f = inf[i];
    for (int off = 1; off < 32; off <<= 1)
        f += __shfl_xor_sync(FULL, f, off);
    out[i] = v;
    outf[i] = f;
}

// Inclusive scan with __shfl_up_sync.
__global__ void warp_scan_shfl(int* out, const int* in)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned lane = threadIdx.x & 31;
    int v = in[i];
    for (int off = 1; off < 32; off <<= 1) {
        const int y = __shfl_up_sync(FULL, v, off);
        if ((int)lane >= off) v += y;
    }
    out[i] = v;
}

// Shuffles with a width (segments), out-of-range source lanes (taken modulo
// width), xor across segment boundaries, 64-bit shuffles. out K=6, out64 K=1.
__global__ void warp_shfl_width(int* out, long long* out64, const int* in)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned lane = threadIdx.x & 31;
    const int v = in[i];
    int* o = out + i * 6;
    o[0] = __shfl_sync(FULL, v, (int)((lane * 3) & 7), 8);
    o[1] = __shfl_down_sync(FULL, v, 3, 16);
    o[2] = __shfl_up_sync(FULL, v, 5, 16);
    o[3] = __shfl_xor_sync(FULL, v, 9, 16);     // a later segment: own value
    o[4] = __shfl_sync(FULL, v, (int)lane + 40); // srcLane >= 32: modulo 32
    o[5] = __shfl_sync(FULL, v, (int)(lane ^ 1), 4);
    const long long w = (long long)v * 0x100000001LL;
    out64[i] = __shfl_sync(FULL, w, (int)((lane + 1) & 31));
}

// Votes, ballot, __activemask, match, and the same under a partial mask in a
// divergent branch (lanes 0,3,...,30). out K=14.
__global__ void warp_vote(unsigned* out, const int* in)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned lane = threadIdx.x & 31;
    const int v = in[i];
    unsigned* o = out + i * 14;
    const unsigned b = __ballot_sync(FULL, v > 0);
    o[0] = b;
    o[1] = (unsigned)__popc(b);
    o[2] = (unsigned)__all_sync(FULL, v > -100);
    o[3] = (unsigned)__any_sync(FULL, v == 42);
    o[4] = (unsigned)__uni_sync(FULL, v & 1);
    o[5] = __activemask();
    if (lane % 3 == 0) {
        const unsigned m = 0x49249249u;          // the lanes that are here
        o[6] = __ballot_sync(m, v > 0);
        o[7] = (unsigned)__any_sync(m, v < 0);
        o[8] = (unsigned)__all_sync(m, v != 0);
        o[9] = (unsigned)__shfl_sync(m, v, lane >= 30 ? 0 : (int)lane + 3);
        __syncwarp(m);
        o[10] = __activemask();
    } else {
        o[6] = o[7] = o[8] = o[9] = o[10] = 0xFFFFFFFFu;
    }
    o[11] = __match_any_sync(FULL, v & 3);
    int pred;
    o[12] = __match_all_sync(FULL, v >> 12, &pred);
    o[13] = (unsigned)pred;
}

// redux.sync: add/min/max (unsigned and signed)/and/or/xor over the warp and
// over half-warp masks. out K=9.
__global__ void warp_redux(unsigned* out, const unsigned* in)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned lane = threadIdx.x & 31;
    const unsigned v = in[i];
    unsigned* o = out + i * 9;
    o[0] = __reduce_add_sync(FULL, v);
    o[1] = __reduce_min_sync(FULL, v);
    o[2] = __reduce_max_sync(FULL, v);
    o[3] = (unsigned)__reduce_min_sync(FULL, (int)v);
    o[4] = (unsigned)__reduce_max_sync(FULL, (int)v);
    o[5] = __reduce_and_sync(FULL, v);
    o[6] = __reduce_or_sync(FULL, v);
    o[7] = __reduce_xor_sync(FULL, v);
    if (lane < 16) o[8] = __reduce_add_sync(0x0000FFFFu, v);
    else           o[8] = __reduce_or_sync(0xFFFF0000u, v);
}

// cooperative_groups: tiled partitions of 16 and 4, reduce, shfl, ballot,
// any, ranks, and a dynamic tiled partition. out K=8.
__global__ void cg_tiled(int* out, const int* in)
{
    cg::thread_block blk = cg::this_thread_block();
    cg::thread_block_tile<16> t16 = cg::tiled_partition<16>(blk);
    cg::thread_block_tile<4> t4 = cg::tiled_partition<4>(blk);
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    const int v = in[i];
    int* o = out + i * 8;
    o[0] = cg::reduce(t16, v, cg::plus<int>());
    o[1] = cg::reduce(t4, v, cg::greater<int>());
    o[2] = t16.shfl_down(v, 1);
    o[3] = (int)t16.ballot(v > 0);
    o[4] = t4.any(v < 0);
    o[5] = (int)(t16.thread_rank() | (t16.meta_group_rank() << 8));
    // A dynamic partition of 8. (Its size() / num_threads() is left out:
    // CUDA 13's headers declare thread_group::num_threads without a
    // definition, which left the whole module unlinkable.)
    cg::thread_group dyn = cg::tiled_partition(blk, 8);
    o[6] = (int)(dyn.thread_rank() + 8 * 100);
    blk.sync();
    o[7] = cg::reduce(t16, v & 0xFF, cg::bit_xor<int>());
}
