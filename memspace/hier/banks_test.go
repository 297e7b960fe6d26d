package hier

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/memspace"
)

func h100Banks(t *testing.T) *banks {
	cfg, err := Profile("h100")
	require.NoError(t, err)
	return newBanks(cfg.Shared)
}

// One warp-wide shared access: wavefronts and the minimum its width allows.
func TestSharedWavefronts(t *testing.T) {
	b := h100Banks(t)
	word := func(w func(l int) int) func(int) uint64 { return func(l int) uint64 { return uint64(4 * w(l)) } }
	cases := []struct {
		name      string
		kind      memspace.Kind
		size      uint8
		mask      uint32
		addr      func(l int) uint64
		wf, ideal int
	}{
		{"consecutive words", memspace.Load, 4, all, word(func(l int) int { return l }), 1, 1},
		{"broadcast of one word is free", memspace.Load, 4, all, word(func(int) int { return 7 }), 1, 1},
		{"bytes of one word are one word", memspace.Load, 1, all, func(l int) uint64 { return uint64(l / 8) }, 1, 1},
		{"stride 2 words: 2-way", memspace.Load, 4, all, word(func(l int) int { return 2 * l }), 2, 1},
		{"stride 32 words: 32-way", memspace.Load, 4, all, word(func(l int) int { return 32 * l }), 32, 1},
		{"stride 33 words (padded tile column)", memspace.Load, 4, all, word(func(l int) int { return 33 * l }), 1, 1},
		{"two rows broadcast per half warp", memspace.Load, 4, all, word(func(l int) int { return l % 16 }), 1, 1},
		{"store stride 32: 32-way", memspace.Store, 4, all, word(func(l int) int { return 32 * l }), 32, 1},
		{"partial mask keeps its conflicts", memspace.Load, 4, 0x0000_000f, word(func(l int) int { return 32 * l }), 4, 1},
		// 64-bit: half warps; 32 consecutive doubles are 2 wavefronts (STS.64/LDS.64 of scan_blelloch).
		{"64-bit consecutive", memspace.Load, 8, all, func(l int) uint64 { return uint64(8 * l) }, 2, 2},
		{"64-bit stride 2: 2-way per half", memspace.Load, 8, all, func(l int) uint64 { return uint64(16 * l) }, 4, 2},
		{"64-bit one address: pairs merge", memspace.Load, 8, all, func(int) uint64 { return 64 }, 1, 1},
		{"64-bit store of one address stays in halves", memspace.Store, 8, all, func(int) uint64 { return 64 }, 2, 2},
		// 128-bit: quarter warps; 4 wavefronts minimum, 2 when lane pairs share addresses.
		{"128-bit consecutive", memspace.Load, 16, all, func(l int) uint64 { return uint64(16 * l) }, 4, 4},
		{"128-bit two addresses by half warp (matmul_tiled LDS.128)", memspace.Load, 16, all,
			func(l int) uint64 { return uint64(64*(l/16) + 16) }, 2, 2},
		{"128-bit one address", memspace.Load, 16, all, func(int) uint64 { return 0 }, 2, 2},
		{"128-bit stride 32 words: 8-way per quarter", memspace.Load, 16, all, func(l int) uint64 { return uint64(128 * l) }, 32, 4},
		{"128-bit one quarter active", memspace.Load, 16, 0xff, func(l int) uint64 { return uint64(16 * l) }, 1, 1},
		// Atomics: lanes on one word serialise.
		{"atomic distinct banks", memspace.Atomic, 4, all, word(func(l int) int { return l }), 1, 1},
		{"atomic one word", memspace.Atomic, 4, all, word(func(int) int { return 3 }), 32, 1},
		{"atomic 4 words in 4 banks", memspace.Atomic, 4, all, word(func(l int) int { return l % 4 }), 8, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := acc(memspace.Shared, c.kind, c.size, c.mask, c.addr)
			wf, ideal := b.wavefronts(a)
			assert.Equal(t, c.wf, wf, "wavefronts")
			assert.Equal(t, c.ideal, ideal, "minimum wavefronts")
		})
	}
}

// sharedTotals replays generated shared accesses through an H100 SM side
// and returns its load and store wavefronts and conflicts.
// With span, each access carries the span it returns (Access.SpanKnown
// when it says so).
func sharedTotals(t *testing.T, gen func(emit func(kind memspace.Kind, size uint8, mask uint32, addr func(l int) uint64)), span ...func(a *memspace.Access) (uint64, bool)) [4]uint64 {
	h := newTest(t, "h100")
	sm := h.SM(0)
	gen(func(kind memspace.Kind, size uint8, mask uint32, addr func(l int) uint64) {
		if mask != 0 {
			a := acc(memspace.Shared, kind, size, mask, addr)
			if len(span) > 0 && span[0] != nil {
				a.XorSpan, a.SpanKnown = span[0](a)
			}
			sm.Observe(a)
		}
	})
	c := h.Counts()
	return [4]uint64{c[SharedLdWavefronts], c[SharedLdConflicts], c[SharedStWavefronts], c[SharedStConflicts]}
}

// laneMask is the mask of the lanes l of a warp for which ok(l).
func laneMask(ok func(l int) bool) uint32 {
	var m uint32
	for l := 0; l < 32; l++ {
		if ok(l) {
			m |= 1 << l
		}
	}
	return m
}

// The shared-memory rows of the H100 corpus (testdata/nvcc/ncu/O3.csv):
// each generator reproduces, warp by warp, the per-lane shared addresses of
// the kernel's machine code (testdata/nvcc/sass), and the totals must be
// ncu's l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}.sum and
// l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st}.sum.
func TestSharedCorpusRows(t *testing.T) {
	type emitFn = func(kind memspace.Kind, size uint8, mask uint32, addr func(l int) uint64)
	// transpose.cu: 32x8 blocks, each thread moves 4 elements through a
	// 32-wide tile of pitch words per row.
	transpose := func(gx, gy, width, height, pitch int) func(emitFn) {
		return func(emit emitFn) {
			for by := 0; by < gy; by++ {
				for bx := 0; bx < gx; bx++ {
					for ty := 0; ty < 8; ty++ { // warp = threadIdx.y
						for j := 0; j < 32; j += 8 {
							m := laneMask(func(tx int) bool { return bx*32+tx < width && by*32+ty+j < height })
							emit(memspace.Store, 4, m, func(tx int) uint64 { return uint64(4 * ((ty+j)*pitch + tx)) })
						}
					}
					for ty := 0; ty < 8; ty++ {
						for j := 0; j < 32; j += 8 {
							m := laneMask(func(tx int) bool { return by*32+tx < height && bx*32+ty+j < width })
							emit(memspace.Load, 4, m, func(tx int) uint64 { return uint64(4 * (tx*pitch + ty + j)) })
						}
					}
				}
			}
		}
	}
	// matmul.cu matmul_tiled at -O3: per tile, STS As[ty][tx] and Bs[ty][tx],
	// then 16 LDS of Bs[k][tx] and 4 LDS.128 of As[ty][4i..4i+3].
	matmul := func(grid, n int) func(emitFn) {
		return func(emit emitFn) {
			tiles := (n + 15) / 16
			for cta := 0; cta < grid*grid; cta++ {
				for w := 0; w < 8; w++ { // lanes: tx = l%16, ty = 2w + l/16
					ty := func(l int) int { return 2*w + l/16 }
					for tile := 0; tile < tiles; tile++ {
						emit(memspace.Store, 4, all, func(l int) uint64 { return uint64(4 * (16*ty(l) + l%16)) })
						emit(memspace.Store, 4, all, func(l int) uint64 { return uint64(1024 + 4*(16*ty(l)+l%16)) })
						for k := 0; k < 16; k++ {
							emit(memspace.Load, 4, all, func(l int) uint64 { return uint64(1024 + 4*(16*k+l%16)) })
						}
						for i := 0; i < 4; i++ {
							emit(memspace.Load, 16, all, func(l int) uint64 { return uint64(4 * (16*ty(l) + 4*i)) })
						}
					}
				}
			}
		}
	}
	// cta.cu reduce_sum_f32: s[t] = v; then s[t] += s[t+st] for t < st.
	reduce := func(emit emitFn) {
		for cta := 0; cta < 128; cta++ {
			for w := 0; w < 8; w++ {
				emit(memspace.Store, 4, all, func(l int) uint64 { return uint64(4 * (32*w + l)) })
			}
			for st := 128; st > 0; st >>= 1 {
				for w := 0; w < 8; w++ {
					m := laneMask(func(l int) bool { return 32*w+l < st })
					emit(memspace.Load, 4, m, func(l int) uint64 { return uint64(4 * (32*w + l)) })
					emit(memspace.Load, 4, m, func(l int) uint64 { return uint64(4 * (32*w + l + st)) })
					emit(memspace.Store, 4, m, func(l int) uint64 { return uint64(4 * (32*w + l)) })
				}
			}
			emit(memspace.Load, 4, 1, func(int) uint64 { return 0 })
		}
	}
	// cta.cu scan_blelloch at -O3: ptxas merges the accesses of temp[2t] and
	// temp[2t+1] into LDS.64/STS.64 where both are adjacent (the first
	// up-sweep step, the last down-sweep step, the initial stores and the
	// final loads); every other step is scalar.
	scan := func(emit emitFn) {
		for cta := 0; cta < 16; cta++ {
			warps := func(f func(w int)) {
				for w := 0; w < 8; w++ {
					f(w)
				}
			}
			tid := func(w, l int) int { return 32*w + l }
			warps(func(w int) { emit(memspace.Store, 8, all, func(l int) uint64 { return uint64(8 * tid(w, l)) }) })
			offset := 1
			for d := 256; d > 0; d >>= 1 {
				warps(func(w int) {
					m := laneMask(func(l int) bool { return tid(w, l) < d })
					ai := func(l int) uint64 { return uint64(4 * (offset*(2*tid(w, l)+1) - 1)) }
					bi := func(l int) uint64 { return uint64(4 * (offset*(2*tid(w, l)+2) - 1)) }
					if offset == 1 {
						emit(memspace.Load, 8, m, func(l int) uint64 { return uint64(8 * tid(w, l)) })
					} else {
						emit(memspace.Load, 4, m, ai)
						emit(memspace.Load, 4, m, bi)
					}
					emit(memspace.Store, 4, m, bi)
				})
				offset <<= 1
			}
			// t == 0: block_sums = temp[511]; temp[511] = 0.
			emit(memspace.Load, 4, 1, func(int) uint64 { return 4 * 511 })
			emit(memspace.Store, 4, 1, func(int) uint64 { return 4 * 511 })
			for d := 1; d < 512; d <<= 1 {
				offset >>= 1
				warps(func(w int) {
					m := laneMask(func(l int) bool { return tid(w, l) < d })
					ai := func(l int) uint64 { return uint64(4 * (offset*(2*tid(w, l)+1) - 1)) }
					bi := func(l int) uint64 { return uint64(4 * (offset*(2*tid(w, l)+2) - 1)) }
					if offset == 1 {
						emit(memspace.Load, 8, m, func(l int) uint64 { return uint64(8 * tid(w, l)) })
						emit(memspace.Store, 8, m, func(l int) uint64 { return uint64(8 * tid(w, l)) })
					} else {
						emit(memspace.Load, 4, m, ai)
						emit(memspace.Load, 4, m, bi)
						emit(memspace.Store, 4, m, ai)
						emit(memspace.Store, 4, m, bi)
					}
				})
			}
			warps(func(w int) { emit(memspace.Load, 8, all, func(l int) uint64 { return uint64(8 * tid(w, l)) }) })
		}
	}
	cases := []struct {
		name string
		gen  func(emitFn)
		want [4]uint64 // ld wavefronts, ld conflicts, st wavefronts, st conflicts
	}{
		{"transpose_shared (32x32 tile: 32-way column reads)", transpose(8, 8, 256, 256, 32), [4]uint64{65536, 63488, 2048, 0}},
		{"transpose_padded (32x33 tile: conflict-free)", transpose(8, 8, 256, 256, 33), [4]uint64{2048, 0, 2048, 0}},
		{"transpose_padded_rect (200x120, ragged edges)", transpose(7, 4, 200, 120, 33), [4]uint64{800, 0, 840, 0}},
		{"matmul_tiled (n=128)", matmul(8, 128), [4]uint64{98304, 0, 8192, 0}},
		{"matmul_tiled_ragged (n=100)", matmul(7, 100), [4]uint64{65856, 0, 5488, 0}},
		{"reduce_sum_f32", reduce, [4]uint64{3200, 0, 2560, 0}},
		{"scan_blelloch", scan, [4]uint64{5840, 4288, 4576, 3344}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, sharedTotals(t, c.gen))
		})
	}
}

// narrow's test of one aligned row of banks agrees with its span test
// (the lowest and highest word fewer than Banks apart) on full warps of
// rows, broadcasts, pairs of rows and scattered words, aligned or not.
func TestNarrowMatchesSpan(t *testing.T) {
	b := h100Banks(t)
	span := func(a *memspace.Access) bool {
		lo, hi := a.Addr[0], a.Addr[0]
		for _, x := range a.Addr {
			lo, hi = min(lo, x), max(hi, x)
		}
		return hi>>b.wordSh-lo>>b.wordSh < uint64(b.nb)
	}
	rng := uint64(0x9e3779b97f4a7c15)
	next := func() uint64 {
		rng ^= rng << 13
		rng ^= rng >> 7
		rng ^= rng << 17
		return rng
	}
	var narrow, wide int
	for i := 0; i < 20000; i++ {
		a := &memspace.Access{Space: memspace.Shared, Kind: memspace.Load, Size: 4, Mask: ^uint32(0)}
		base := memspace.SharedWindow + next()%(1<<14)&^3
		stride := []uint64{0, 4, 8, 64, 128, 132}[next()%6]
		for l := range a.Addr {
			switch next() % 8 {
			case 0:
				a.Addr[l] = base + next()%256&^3 // scattered near the base
			default:
				a.Addr[l] = base + uint64(l%16)*stride/16*4/4 + uint64(l/16)*stride
			}
		}
		got, want := b.narrow(a), span(a)
		require.Equal(t, want, got, "access %d: %#x", i, a.Addr)
		if want {
			narrow++
		} else {
			wide++
		}
	}
	assert.Greater(t, narrow, 1000)
	assert.Greater(t, wide, 1000)
}

// A span the producer gives (Access.SpanKnown) is used in place of
// xorSpan's: the correct one counts what none counts, on rows, broadcasts,
// pairs of rows and scattered words; a wrong one (0: one row) is believed,
// so a conflicting access counts none.
func TestSharedSpanKnown(t *testing.T) {
	rng := uint64(0x2545f4914f6cdd1d)
	next := func() uint64 {
		rng ^= rng << 13
		rng ^= rng >> 7
		rng ^= rng << 17
		return rng
	}
	gen := func(emit func(kind memspace.Kind, size uint8, mask uint32, addr func(l int) uint64)) {
		for i := 0; i < 2000; i++ {
			b := memspace.SharedWindow + next()%(1<<14)&^3
			stride := []uint64{0, 4, 8, 64, 128, 132}[next()%6]
			scatter := next()%4 == 0
			emit(memspace.Load, 4, all, func(l int) uint64 {
				if scatter {
					return b + next()%1024&^3
				}
				return b + uint64(l%16)*stride/16*4/4 + uint64(l/16)*stride
			})
		}
	}
	totals := func(span func(a *memspace.Access) (uint64, bool)) [4]uint64 {
		rng = 0x2545f4914f6cdd1d // the same accesses each time
		return sharedTotals(t, gen, span)
	}
	none := totals(nil)
	right := totals(func(a *memspace.Access) (uint64, bool) { return xorSpanGo(&a.Addr), true })
	wrong := totals(func(a *memspace.Access) (uint64, bool) { return 0, true })
	require.Equal(t, none, right)
	require.Greater(t, none[1], uint64(0), "some accesses conflict")
	require.Equal(t, uint64(0), wrong[1], "a span of 0 is one row: no conflicts")
}

// A generic access split into its spaces does not pass its span on: the
// shared part's addresses are not the generic ones.
func TestGenericDropsSpan(t *testing.T) {
	h := newTest(t, "h100")
	a := acc(memspace.Generic, memspace.Load, 4, all, func(l int) uint64 { return memspace.SharedWindow + uint64(l)*128 })
	a.SpanKnown, a.XorSpan = true, 0 // one row, were it believed
	h.SM(0).Observe(a)
	require.Equal(t, uint64(31), h.Counts()[SharedLdConflicts], "32 words in one bank")
}
