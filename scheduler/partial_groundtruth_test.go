package scheduler_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPartialWritesAgainstGPU holds the L2's partly written sectors to the
// H200 (testdata/host/ncu_hostmem7_partial.csv, ncu with its cache flush):
// store_perm reads a buffer coalesced and writes it permuted, consecutive
// threads `stride` words apart, so that each 32-byte sector is written 4
// bytes (stride 8, 32) or 16 bytes (stride 2) at a time and completed only
// by later passes over the buffer. A sector evicted before it is complete
// is read from DRAM and written back (read-modify-write): DRAM reads beyond
// the input's one byte per byte are those reads. The model, with the
// H200's profile, must be within gtPartialTol (of the buffer's bytes) of
// ncu's DRAM bytes read and written, but for the launches of
// gtPartialKnown. The default run takes the 4 MiB launches (the writes
// complete every sector in the L2: no read); -groundtruth.full all of them
// (2 minutes on 2 cores).
func TestPartialWritesAgainstGPU(t *testing.T) {
	p := newPermRunner(t)
	for _, r := range readPermNcu(t, "ncu_hostmem7_partial.csv", "dram__bytes_read.sum", "dram__bytes_write.sum") {
		name := fmt.Sprintf("%dMiB_stride%d", r.mib, r.stride)
		if !*gtFull && r.mib > 4 {
			continue
		}
		t.Run(name, func(t *testing.T) {
			m := p.run(t, "store_perm", r.mib, r.stride)
			b := float64(r.mib << 20)
			rd, wr := m["dram__bytes_read.sum"]/b, m["dram__bytes_write.sum"]/b
			grd, gwr := r.m["dram__bytes_read.sum"]/b, r.m["dram__bytes_write.sum"]/b
			t.Logf("%-18s DRAM read %.2f (ncu %.2f), write %.2f (ncu %.2f) bytes per buffer byte", name, rd, grd, wr, gwr)
			if reason, ok := gtPartialKnown[name]; ok {
				t.Logf("  known: %s", reason)
				return
			}
			assert.InDelta(t, grd, rd, gtPartialTol*max(1, grd), "%s: DRAM read bytes per buffer byte", name)
			assert.InDelta(t, gwr, wr, gtPartialTol*max(1, gwr), "%s: DRAM write bytes per buffer byte", name)
		})
	}
}

// gtPartialTol is the tolerance of TestPartialWritesAgainstGPU, in bytes
// per buffer byte (of the larger of 1 and ncu's figure): 10%.
const gtPartialTol = 0.10

// gtPartialKnown are the launches where the model is not held to ncu,
// with the reason (measured 2026-11-29, model read/write against ncu's, per
// buffer byte).
var gtPartialKnown = map[string]string{
	"16MiB_stride2":  "the GPU evicts partly written lines long before its L2 is full (in and out are 32 MiB of a 60 MiB L2; whole lines, stride 1, stay): read 1.73, write 0.77; ours keep them, 1.04 and 0.04",
	"16MiB_stride8":  "as 16MiB_stride2: ncu 1.76 and 0.83, ours 1.02 and 0.02",
	"16MiB_stride32": "as 16MiB_stride2: ncu 1.75 and 0.84, ours 1.01 and 0.02",
	"32MiB_stride2":  "reads within tolerance (1.98 against 1.94); writes 0.99 against 1.12 (the GPU's earlier eviction of partly written lines, as at 16 MiB)",
	"32MiB_stride8":  "ours read 3.67 where the GPU reads 1.91 (writes 2.67 against 2.42): the GPU's evicted sectors are more often complete (fewer reads than writes), its replacement order not the model's",
	"32MiB_stride32": "as 32MiB_stride8: read 3.04 against 1.89, write 2.10 against 2.24",
	"64MiB_stride2":  "read 2.58 against 2.89, write 1.58 against 1.91 (the earlier eviction of partly written lines)",
	"64MiB_stride32": "read 8.76 against 5.56 (write 7.76 against 7.55): as 32MiB_stride32, the GPU's evicted sectors are more often complete",
}
