// probe_b1xor.cu: does ptxas take wgmma's .b1 with .xor.popc on sm_90a?
// (The PTX ISA lists only .and.popc for wgmma.) Compiled, never run.
#include <cstdint>
extern "C" __global__ void probe_b1xor(uint32_t* out, unsigned long long da, unsigned long long db)
{
    uint32_t d[4] = {0, 0, 0, 0};
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    asm volatile("wgmma.mma_async.sync.aligned.m64n8k256.s32.b1.b1.xor.popc {%0, %1, %2, %3}, %4, %5, 1;"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                 : "l"(da), "l"(db)
                 : "memory");
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    for (int j = 0; j < 4; j++)
        out[threadIdx.x * 4 + j] = d[j];
}
int main() { return 0; }
