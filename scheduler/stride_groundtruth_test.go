package scheduler_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStridedReadsAgainstGPU holds the L2 and DRAM traffic of strided
// reads to the H200 (testdata/host/ncu_hostmem7_readstride.csv, ncu with
// its cache flush): copy_perm reads a buffer permuted, consecutive threads
// `stride` words apart, and writes it coalesced. With a stride of 8 or 32
// words each lane reads its own sector, and the sector's other words are
// read by later passes over the buffer: once the buffer and its copy no
// longer fit in the L2, each pass reads its sectors from DRAM again, in
// 64-byte units (a stride of 32 words reads 16 bytes from DRAM per byte of
// the buffer at 64 MiB, on the GPU and in the model). The model, with the
// H200's profile, must be within gtPartialTol of ncu's DRAM bytes read and
// written (per buffer byte) and of the L2 sectors L1 requests (per sector
// of the buffer), but for the launches of gtStrideKnown. The default run
// takes the 8 MiB launches; -groundtruth.full all of them (about 40 s on 2
// cores).
func TestStridedReadsAgainstGPU(t *testing.T) {
	const rd, wr, l2 = "dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_sectors_srcunit_tex_op_read.sum"
	rows := readPermNcu(t, "ncu_hostmem7_readstride.csv", rd, wr, l2)
	require.Len(t, rows, 12)
	p := newPermRunner(t)
	for _, r := range rows {
		name := fmt.Sprintf("%dMiB_stride%d", r.mib, r.stride)
		if !*gtFull && r.mib > 8 {
			continue
		}
		t.Run(name, func(t *testing.T) {
			m := p.run(t, "copy_perm", r.mib, r.stride)
			b := float64(r.mib << 20)
			s := b / 32
			t.Logf("%-16s DRAM read %.2f (ncu %.2f), write %.2f (ncu %.2f) bytes per buffer byte; L2 read sectors %.2f (ncu %.2f) per buffer sector",
				name, m[rd]/b, r.m[rd]/b, m[wr]/b, r.m[wr]/b, m[l2]/s, r.m[l2]/s)
			if reason, ok := gtStrideKnown[name]; ok {
				t.Logf("  known: %s", reason)
				return
			}
			assert.InDelta(t, r.m[rd]/b, m[rd]/b, gtPartialTol*max(1, r.m[rd]/b), "%s: DRAM read bytes per buffer byte", name)
			assert.InDelta(t, r.m[wr]/b, m[wr]/b, gtPartialTol*max(1, r.m[wr]/b), "%s: DRAM write bytes per buffer byte", name)
			assert.InDelta(t, r.m[l2]/s, m[l2]/s, gtPartialTol*r.m[l2]/s, "%s: L2 read sectors per buffer sector", name)
		})
	}
}

// gtStrideKnown are the launches where the model is not held to ncu, with
// the reason (measured 2026-11-29, the model against ncu, per buffer byte).
var gtStrideKnown = map[string]string{
	"32MiB_stride2":  "in and out (64 MiB) just overflow the 60 MiB L2: the GPU reads 1.95 bytes a byte, the model 1.71 (it keeps more of the first pass for the second)",
	"32MiB_stride8":  "as 32MiB_stride2: the GPU reads 2.06, the model 1.57; writes 0.86 against 0.57",
	"32MiB_stride32": "the GPU reads 2.25, the model 3.39: the GPU's L2 keeps more of a pass's single sectors than the model's LRU does when the working set just overflows it",
}
