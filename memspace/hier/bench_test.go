package hier

import (
	"testing"

	"github.com/ptxvm/ptxvm/memspace"
)

// BenchmarkObserve measures the SM side alone on typical warp-wide
// accesses (functional mode, draining as the scheduler would once per
// 4,096 accesses), in accesses per second.
func BenchmarkObserve(b *testing.B) {
	type pattern struct {
		name string
		make func(i int) *memspace.Access
	}
	const rows = 1 << 12
	glob := func(kind memspace.Kind, size uint8, stride uint64) func(i int) *memspace.Access {
		return func(i int) *memspace.Access {
			row := uint64(i%rows) * 4096
			return acc(memspace.Global, kind, size, all, func(l int) uint64 { return base + row + uint64(l)*stride })
		}
	}
	patterns := []pattern{
		{"global-ld-coalesced", glob(memspace.Load, 4, 4)},
		{"global-ld-broadcast", glob(memspace.Load, 4, 0)},
		{"global-ld-stride32", glob(memspace.Load, 4, 128)},
		{"global-ld-f4", glob(memspace.Load, 16, 16)},
		{"global-st-coalesced", glob(memspace.Store, 4, 4)},
		{"global-st-column", glob(memspace.Store, 4, 1024)},
		{"shared-ld-conflict-free", func(i int) *memspace.Access {
			return acc(memspace.Shared, memspace.Load, 4, all, func(l int) uint64 { return uint64(4*l + 128*(i%8)) })
		}},
		{"shared-ld-32-way", func(int) *memspace.Access {
			return acc(memspace.Shared, memspace.Load, 4, all, func(l int) uint64 { return uint64(128 * l) })
		}},
		{"shared-ld-f4", func(int) *memspace.Access {
			return acc(memspace.Shared, memspace.Load, 16, all, func(l int) uint64 { return uint64(16 * l) })
		}},
		{"const-uniform", func(i int) *memspace.Access {
			return acc(memspace.Const, memspace.Load, 4, all, func(int) uint64 { return uint64(4 * (i % 64)) })
		}},
		{"local-interleaved-f2", func(i int) *memspace.Access {
			a := acc(memspace.Local, memspace.Load, 8, all, func(l int) uint64 { return uint64(4*l + 256*(i%16)) })
			a.WordStride = 128
			return a
		}},
	}
	// matmul_naive's loads, block after block (16x16 blocks, n = 128): A
	// broadcast by row pairs, B coalesced; 7 of 8 sectors hit in L1.
	var mm []*memspace.Access
	for cta := 0; cta < 4; cta++ {
		for w := 0; w < 8; w++ {
			row := func(l int) uint64 { return uint64(cta*16 + 2*w + l/16) }
			col := func(l int) uint64 { return uint64(l % 16) }
			for k := uint64(0); k < 128; k++ {
				mm = append(mm, acc(memspace.Global, memspace.Load, 4, all, func(l int) uint64 { return base + 4*(row(l)*128+k) }))
				mm = append(mm, acc(memspace.Global, memspace.Load, 4, all, func(l int) uint64 { return base + 1<<20 + 4*(k*128+col(l)) }))
			}
		}
	}
	patterns = append(patterns, pattern{"matmul-naive-loads", func(i int) *memspace.Access { return mm[i%len(mm)] }})
	for _, p := range patterns {
		b.Run(p.name, func(b *testing.B) {
			h := newTest(b, "h100")
			sm := h.SM(0)
			accs := make([]*memspace.Access, 8192)
			for i := range accs {
				accs[i] = p.make(i)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				sm.Observe(accs[i%len(accs)])
				if i%4096 == 4095 {
					h.Drain()
				}
			}
			h.Drain()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "accesses/s")
		})
	}
}

// BenchmarkNew measures building the H100 hierarchy for a launch (all L1s,
// the 50 MiB L2's tags).
func BenchmarkNew(b *testing.B) {
	cfg, err := Profile("h100")
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		if _, err := New(cfg, Launch{Occupancy: 8}, Functional); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCoalesce measures the coalescer alone on 32 coalesced lanes.
func BenchmarkCoalesce(b *testing.B) {
	g := newGeometry(32, 128)
	var s lineSet
	a := acc(memspace.Global, memspace.Load, 4, all, func(l int) uint64 { return base + uint64(4*l) })
	for i := 0; i < b.N; i++ {
		coalesce(&g, a, 0, &s)
	}
}
