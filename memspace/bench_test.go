package memspace

import (
	"fmt"
	"testing"
)

// BenchmarkScalarGlobal measures the fast paths on a coalesced warp access
// (32 lanes, consecutive 4-byte words) to a dense allocation and to a
// sparse one whose pages are all written (reads of written pages) or none
// (reads of untouched pages).
func BenchmarkScalarGlobal(b *testing.B) {
	for _, c := range []struct {
		name  string
		size  uint64
		touch bool
	}{{"dense", 256 << 10, true}, {"sparse", 4 << 20, true}, {"sparse-untouched", 4 << 20, false}} {
		for _, kind := range []Kind{Load, Store} {
			if kind == Store && !c.touch {
				continue
			}
			b.Run(fmt.Sprintf("%s/%s", c.name, kind), func(b *testing.B) {
				g := NewGlobalMemory()
				a, err := g.Malloc(c.size, "buffer")
				if err != nil {
					b.Fatal(err)
				}
				if c.touch && a.Sparse() {
					if err := a.WriteAt(make([]byte, a.Size), 0); err != nil {
						b.Fatal(err)
					}
					for off := uint64(0); off < a.Size; off += PageSize {
						if _, err := a.pageFor(off); err != nil {
							b.Fatal(err)
						}
					}
				}
				v := &View{Global: g}
				acc := &Access{Space: Global, Kind: kind, Size: 4, Mask: ^uint32(0)}
				var regs [32]uint64
				words := c.size / 128
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					base := a.Base + uint64(i)%words*128
					for l := range acc.Addr {
						acc.Addr[l] = base + uint64(4*l)
					}
					var ok bool
					if kind == Load {
						ok = v.LoadScalar(acc, &regs)
					} else {
						ok = v.StoreScalar(acc, &regs)
					}
					if !ok {
						b.Fatal("refused")
					}
				}
			})
		}
	}
}
