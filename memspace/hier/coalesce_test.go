package hier

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/memspace"
)

// Volta-and-later rules: one request per warp-wide access; sectors are the
// distinct 32 B sectors the executing lanes touch.
func TestSectorsStrided(t *testing.T) {
	// Lane l reads size bytes at base + l·stride·size. Expected sectors,
	// worked out by hand: a warp spans 32·stride·size bytes; once a lane's
	// step reaches 32 bytes every lane has a sector of its own.
	want := map[uint8][]int{ // stride 1, 2, 4, 8, 16, 32
		4:  {4, 8, 16, 32, 32, 32},
		8:  {8, 16, 32, 32, 32, 32},
		16: {16, 32, 32, 32, 32, 32},
	}
	strides := []int{1, 2, 4, 8, 16, 32}
	for size, row := range want {
		for i, stride := range strides {
			t.Run(fmt.Sprintf("%dB stride %d", size, stride), func(t *testing.T) {
				h := newTest(t, "h100")
				a := acc(memspace.Global, memspace.Load, size, all, func(l int) uint64 { return base + uint64(l*stride)*uint64(size) })
				h.SM(0).Observe(a)
				c := h.Counts()
				assert.Equal(t, uint64(1), c[GlobalLdRequests])
				assert.Equal(t, uint64(row[i]), c[GlobalLdSectors])
				assert.Equal(t, uint64(32)*uint64(size), c[GlobalLdBytes])
			})
		}
	}
}

func TestSectorsPatterns(t *testing.T) {
	cases := []struct {
		name    string
		space   memspace.Space
		kind    memspace.Kind
		size    uint8
		mask    uint32
		stride  uint32 // WordStride
		addr    func(l int) uint64
		sectors int
	}{
		{"aligned 4B", memspace.Global, memspace.Load, 4, all, 0, func(l int) uint64 { return base + uint64(4*l) }, 4},
		{"offset by one word: 5 sectors", memspace.Global, memspace.Load, 4, all, 0, func(l int) uint64 { return base + 4 + uint64(4*l) }, 5},
		{"offset by a sector: 4 sectors", memspace.Global, memspace.Load, 4, all, 0, func(l int) uint64 { return base + 32 + uint64(4*l) }, 4},
		{"8B offset by 16 bytes: 9", memspace.Global, memspace.Load, 8, all, 0, func(l int) uint64 { return base + 16 + uint64(8*l) }, 9},
		{"16B offset by 16 bytes: 17", memspace.Global, memspace.Load, 16, all, 0, func(l int) uint64 { return base + 16 + uint64(16*l) }, 17},
		{"permuted aligned words", memspace.Global, memspace.Load, 4, all, 0, func(l int) uint64 { return base + uint64(4*((l*7)%32)) }, 4},
		{"all lanes one word", memspace.Global, memspace.Load, 4, all, 0, func(int) uint64 { return base + 100 }, 1},
		{"half the lanes", memspace.Global, memspace.Load, 4, 0x0000ffff, 0, func(l int) uint64 { return base + uint64(4*l) }, 2},
		{"every other lane, stride 32 words", memspace.Global, memspace.Load, 4, 0x5555_5555, 0, func(l int) uint64 { return base + uint64(128*l) }, 16},
		{"bytes", memspace.Global, memspace.Load, 1, all, 0, func(l int) uint64 { return base + uint64(l) }, 1},
		{"transpose column store (row pitch 1 KiB)", memspace.Global, memspace.Store, 4, all, 0, func(l int) uint64 { return base + uint64(1024*l) }, 32},
		{"24-byte stride store (cache_hints out[6i])", memspace.Global, memspace.Store, 4, all, 0, func(l int) uint64 { return base + uint64(24*l) }, 24},
		// Local memory, interleaved: lane l's word k at Addr[l] + 128k.
		{"local 4B interleaved", memspace.Local, memspace.Load, 4, all, 0, func(l int) uint64 { return uint64(4 * l) }, 4},
		{"local 8B interleaved", memspace.Local, memspace.Load, 8, all, 128, func(l int) uint64 { return uint64(4 * l) }, 8},
		{"local 16B interleaved", memspace.Local, memspace.Store, 16, all, 128, func(l int) uint64 { return 256 + uint64(4*l) }, 16},
		{"local 16B, 8 lanes", memspace.Local, memspace.Load, 16, 0xff, 128, func(l int) uint64 { return uint64(4 * l) }, 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newTest(t, "h100")
			a := acc(c.space, c.kind, c.size, c.mask, c.addr)
			a.WordStride = c.stride
			h.SM(0).Observe(a)
			cnt := h.Counts()
			req, sec := GlobalLdRequests, GlobalLdSectors
			switch {
			case c.space == memspace.Local && c.kind == memspace.Load:
				req, sec = LocalLdRequests, LocalLdSectors
			case c.space == memspace.Local:
				req, sec = LocalStRequests, LocalStSectors
			case c.kind == memspace.Store:
				req, sec = GlobalStRequests, GlobalStSectors
			}
			want := uint64(1)
			if c.space == memspace.Local && c.stride != 0 {
				want = uint64(c.size) / 4 // a request per 4-byte word (ncu)
			}
			assert.Equal(t, want, cnt[req], "requests")
			assert.Equal(t, uint64(c.sectors), cnt[sec], "sectors")
		})
	}
}

// The corpus's vector_ldst kernel (memspace.cu) at -O3: per warp, loads of
// float4, int2, double2, uchar4 and a reversed __ldg of float4, and stores
// of the same widths; ncu: 160 requests and 1,920 sectors each way for 32
// warps.
func TestSectorsVectorCorpusRow(t *testing.T) {
	h := newTest(t, "h100")
	const n = 1024
	bufs := map[string]uint64{}
	for i, name := range []string{"o4", "oi2", "od2", "ob4", "a4", "ai2", "ad2", "ab4"} {
		bufs[name] = base + uint64(i)<<20
	}
	for w := 0; w < 32; w++ {
		sm := h.SM(w / 4)
		i := func(l int) uint64 { return uint64(32*w + l) }
		ld := func(buf string, size uint8, idx func(l int) uint64) {
			sm.Observe(acc(memspace.Global, memspace.Load, size, all, func(l int) uint64 { return bufs[buf] + idx(l)*uint64(size) }))
		}
		st := func(buf string, size uint8, idx func(l int) uint64) {
			sm.Observe(acc(memspace.Global, memspace.Store, size, all, func(l int) uint64 { return bufs[buf] + idx(l)*uint64(size) }))
		}
		ld("a4", 16, i)
		st("o4", 16, i)
		ld("ai2", 8, i)
		st("oi2", 8, i)
		ld("ad2", 16, i)
		st("od2", 16, i)
		ld("ab4", 4, i)
		st("ob4", 4, i)
		ld("a4", 16, func(l int) uint64 { return n - 1 - i(l) })
		st("o4", 16, func(l int) uint64 { return n + i(l) })
	}
	h.Drain()
	c := h.Counts()
	assert.Equal(t, []uint64{160, 1920, 160, 1920},
		[]uint64{c[GlobalLdRequests], c[GlobalLdSectors], c[GlobalStRequests], c[GlobalStSectors]})
	// ncu recorded l1tex__t_sector_hit_rate.pct = 0 for this launch: every
	// line is touched once.
	assert.Equal(t, 0.0, MetricMap(&c, Extra{})["l1tex__t_sector_hit_rate.pct"])
}

func TestStoreTransactionBytes(t *testing.T) {
	for _, c := range []struct {
		mask uint8
		want int
	}{
		{0b0001, 32}, {0b1000, 32}, {0b0011, 64}, {0b1100, 64},
		{0b0110, 128}, // within the line, not within one aligned 64 B half
		{0b1001, 128}, {0b1111, 128}, {0, 0},
	} {
		assert.Equal(t, c.want, storeTransactionBytes(c.mask, 4, 32), "mask %04b", c.mask)
	}
}

func TestExpand(t *testing.T) {
	assert.Equal(t, uint8(0b0101), expand(0b0101, 1))
	assert.Equal(t, uint8(0b1111), expand(0b0100, 4))
	assert.Equal(t, uint8(0b1100), expand(0b0100, 2))
	assert.Equal(t, uint8(0xff), expand(0b1000_0000, 8))
}

// The source texts' Fermi coalescing tables (000_505bc317832777f9.txt,
// tables 5.10 and 5.11): bytes the warp needs, bytes fetched from global
// memory, efficiency. Cached loads fill 128 B L1 lines; uncached (.cg) loads
// fetch 32 B segments.
func TestFermiCoalescingTables(t *testing.T) {
	const n = 8 // N of the broadcast and scattered rows
	type row struct {
		name            string
		cache           memspace.CacheOp
		accesses        [][32]uint64 // per access, lane addresses
		needed, fetched uint64
		efficiency      float64
	}
	lanes := func(f func(l int) uint64) [32]uint64 {
		var a [32]uint64
		for l := range a {
			a[l] = f(l)
		}
		return a
	}
	consecutive := lanes(func(l int) uint64 { return base + uint64(4*l) })
	permuted := lanes(func(l int) uint64 { return base + uint64(4*((l*13)%32)) })
	misaligned := lanes(func(l int) uint64 { return base + 4 + uint64(4*l) })
	misPermuted := lanes(func(l int) uint64 { return base + 4 + uint64(4*((l*13)%32)) })
	// N scattered words: the lanes fall in N lines far apart.
	scattered := lanes(func(l int) uint64 { return base + uint64(l%n)*4096 + uint64(4*(l/n)) })
	var broadcast [][32]uint64
	for i := 0; i < n; i++ {
		broadcast = append(broadcast, lanes(func(int) uint64 { return base + uint64(4*i) }))
	}
	rows := []row{
		// Table 5.10, cache enabled.
		{"cached: broadcast of N consecutive words", memspace.CacheDefault, broadcast, n * 128, 128, 100 * n},
		{"cached: aligned consecutive", memspace.CacheDefault, [][32]uint64{consecutive}, 128, 128, 100},
		{"cached: aligned permuted", memspace.CacheDefault, [][32]uint64{permuted}, 128, 128, 100},
		{"cached: misaligned consecutive", memspace.CacheDefault, [][32]uint64{misaligned}, 128, 256, 50},
		{"cached: misaligned permuted", memspace.CacheDefault, [][32]uint64{misPermuted}, 128, 256, 50},
		{"cached: N scattered words", memspace.CacheDefault, [][32]uint64{scattered}, 128, n * 128, 100.0 / n},
		// Table 5.11, cache disabled (-dlcm=cg, ld.global.cg).
		{"uncached: aligned consecutive", memspace.CacheCG, [][32]uint64{consecutive}, 128, 128, 100},
		{"uncached: aligned permuted", memspace.CacheCG, [][32]uint64{permuted}, 128, 128, 100},
		// The table gives "128 or 256" bytes and 80-100 %: the five 32 B
		// segments a one-word misalignment touches are 160 bytes, 80 %.
		{"uncached: misaligned consecutive", memspace.CacheCG, [][32]uint64{misaligned}, 128, 160, 80},
		{"uncached: N scattered words", memspace.CacheCG, [][32]uint64{scattered}, 128, n * 32, 400.0 / n},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			h := newTest(t, "gf100")
			for _, addrs := range r.accesses {
				a := &memspace.Access{Space: memspace.Global, Kind: memspace.Load, Size: 4, Mask: all, Addr: addrs, Cache: r.cache}
				h.SM(0).Observe(a)
			}
			h.Drain()
			c := h.Counts()
			assert.Equal(t, r.needed, c[GlobalLdBytes], "bytes needed")
			assert.Equal(t, r.fetched, c[GlobalLdFetched], "bytes fetched")
			assert.InDelta(t, r.efficiency, 100*MetricMap(&c, Extra{})["ptxvm__global_ld_requested_per_fetched.ratio"], 1e-9)
			// Whatever the rules, L2 sees exactly the fetched bytes.
			assert.Equal(t, r.fetched/32, c[L2ReadSectors])
		})
	}
	// The scattered row at its worst (N = 32): 3.125 % cached, 12.5 % not.
	for _, c := range []struct {
		op  memspace.CacheOp
		eff float64
	}{{memspace.CacheDefault, 3.125}, {memspace.CacheCG, 12.5}} {
		h := newTest(t, "gf100")
		a := acc(memspace.Global, memspace.Load, 4, all, func(l int) uint64 { return base + uint64(l)*4096 })
		a.Cache = c.op
		h.SM(0).Observe(a)
		cnt := h.Counts()
		assert.InDelta(t, c.eff, 100*MetricMap(&cnt, Extra{})["ptxvm__global_ld_requested_per_fetched.ratio"], 1e-9)
	}
}

// GF100 stores: 32 B segments in transactions of one, two or four segments;
// two addresses in one 128 B region but not in one aligned 64 B half take a
// four-segment transaction (001_1a22b0e544ac191e.txt, "Global Memory
// Writes"). Stores invalidate the L1 line.
func TestFermiStores(t *testing.T) {
	h := newTest(t, "gf100")
	sm := h.SM(0)
	sm.Observe(acc(memspace.Global, memspace.Load, 4, all, func(l int) uint64 { return base + uint64(4*l) }))
	two := acc(memspace.Global, memspace.Store, 4, 0b11, func(l int) uint64 { return base + 32 + uint64(32*l) })
	sm.Observe(two) // segments 1 and 2: one 128 B transaction
	sm.Observe(acc(memspace.Global, memspace.Load, 4, all, func(l int) uint64 { return base + uint64(4*l) }))
	h.Drain()
	c := h.Counts()
	assert.Equal(t, uint64(8), c[GlobalStBytes])
	assert.Equal(t, uint64(128), c[GlobalStWritten])
	assert.InDelta(t, 100*8/128.0, 100*MetricMap(&c, Extra{})["ptxvm__global_st_requested_per_written.ratio"], 1e-9)
	// The store dropped the line: the second load misses again.
	assert.Equal(t, uint64(0), c[GlobalLdHit])
	assert.Equal(t, uint64(256), c[GlobalLdFetched])
	require.Equal(t, uint64(2), c[L2WriteSectors], "L2 receives only the touched segments")
}

// The coalescer (its windowed fast path and its general path) touches
// exactly the sectors a plain byte-by-byte reference finds, for random
// masks, widths, strides, offsets and interleaved local layouts.
func TestCoalesceMatchesReference(t *testing.T) {
	g := newGeometry(32, 128)
	r := rand.New(rand.NewPCG(1, 2))
	var s lineSet
	for n := 0; n < 20000; n++ {
		a := &memspace.Access{Mask: r.Uint32() | 1<<r.IntN(32)}
		a.Size = []uint8{1, 2, 4, 8, 16, 32}[r.IntN(6)]
		stride := []uint64{0, 1, 2, 3, 4, 8, 33, 128, 1024, 4096}[r.IntN(10)]
		off := uint64(r.IntN(512)) &^ uint64(a.Size-1)
		if r.IntN(4) == 0 && a.Size > 4 {
			a.WordStride = 128
		}
		perm := r.Perm(32)
		for l := range a.Addr {
			a.Addr[l] = base + off + uint64(perm[l]/(1+r.IntN(2)))*stride*uint64(a.Size)
		}
		key := uint64(0)
		if r.IntN(3) == 0 {
			key = keyLocal
		}
		coalesce(&g, a, key, &s)
		got := map[uint64]bool{}
		for i := 0; i < s.n; i++ {
			for b := 0; b < 4; b++ {
				if s.mask[i]&(1<<b) != 0 {
					sec := s.line[i]*4 + uint64(b)
					require.False(t, got[sec], "sector listed twice")
					got[sec] = true
				}
			}
		}
		want := map[uint64]bool{}
		for l := 0; l < 32; l++ {
			if a.Mask&(1<<l) == 0 {
				continue
			}
			words, chunk := uint64(1), uint64(a.Size)
			if a.WordStride != 0 && a.Size > 4 {
				words, chunk = uint64(a.Size)/4, 4
			}
			for k := uint64(0); k < words; k++ {
				for b := uint64(0); b < chunk; b++ {
					want[(key|a.Addr[l]+k*uint64(a.WordStride)+b)/32] = true
				}
			}
		}
		require.Equal(t, want, got, "access %d: %+v", n, a)
	}
}
