package hier

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/ptxvm/ptxvm/memspace"
)

// Constant memory: a uniform address is one broadcast; divergent addresses
// are served one after another (000_505bc317832777f9.txt, "Constant
// Memory"; 003_bb1eb2961ff03c26.txt).
func TestConstantBroadcast(t *testing.T) {
	cases := []struct {
		name  string
		size  uint8
		addr  func(l int) uint64
		waves uint64
		lines uint64 // distinct 64 B constant-cache lines
	}{
		{"uniform address: one broadcast", 4, func(int) uint64 { return 64 }, 1, 1},
		{"bytes of one word", 1, func(l int) uint64 { return 64 + uint64(l%4) }, 1, 1},
		{"two addresses (half warps)", 4, func(l int) uint64 { return 64 + uint64(4*(l/16)) }, 2, 1},
		{"every lane its own word", 4, func(l int) uint64 { return uint64(4 * l) }, 32, 2},
		{"8 distinct doubles", 8, func(l int) uint64 { return uint64(8 * (l % 8)) }, 8, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newTest(t, "h100")
			a := acc(memspace.Const, memspace.Load, c.size, all, c.addr)
			h.SM(0).Observe(a)
			h.SM(0).Observe(a) // again: served by the constant cache
			h.Drain()
			cnt := h.Counts()
			assert.Equal(t, uint64(2), cnt[ConstRequests])
			assert.Equal(t, 2*c.waves, cnt[ConstWavefronts])
			assert.Equal(t, c.lines, cnt[ConstMiss], "each line misses once")
			assert.Equal(t, 2*c.waves-c.lines, cnt[ConstHit])
			assert.Equal(t, 2*c.lines, cnt[L2ReadSectors]-cnt[L2FabricSectors], "a miss fetches its 64 B line")
			assert.Zero(t, cnt[L2TexReadSectors], "constant misses are not L1TEX's traffic")
			assert.Equal(t, float64(c.waves), MetricMap(&cnt, Extra{})["ptxvm__const_wavefronts_per_request.ratio"])
		})
	}
	// Constant and global data never share cache lines, even at equal
	// addresses.
	h := newTest(t, "h100")
	h.SM(0).Observe(acc(memspace.Const, memspace.Load, 4, all, func(int) uint64 { return base }))
	h.SM(0).Observe(acc(memspace.Global, memspace.Load, 4, all, func(int) uint64 { return base }))
	h.Drain()
	c := h.Counts()
	assert.Equal(t, uint64(0), c[GlobalLdHit])
	assert.Equal(t, uint64(2+1), c[L2ReadSectors]-c[L2FabricSectors], "a 64 B constant line and a global sector")
}

// texFetch builds a texture fetch: lane l reads the texels texels(l).
func texFetch(texelSize uint8, linear bool, texels func(l int) []uint64) *memspace.Access {
	fp := &memspace.TexFootprint{TexelSize: texelSize, Linear: linear}
	a := &memspace.Access{Space: memspace.Texture, Kind: memspace.Load, Size: texelSize, Mask: all, Tex: fp}
	for l := 0; l < 32; l++ {
		ts := texels(l)
		fp.Count[l] = uint8(len(ts))
		copy(fp.Addr[l][:], ts)
	}
	return a
}

// Texture requests, checked against the corpus: one request per quad of
// lanes for filtered fetches (tex2d_*: 128 for 16 warps); tex1Dfetch from
// linear memory serves 8 lanes of 4-byte texels or 4 lanes of 16-byte texels
// per request, and a group whose lanes are all out of range makes none
// (tex1dfetch_gather: 255 = 16 warps × (4 + 4 + 8) − 1).
func TestTextureRequestsCorpus(t *testing.T) {
	t.Run("tex2d_clamp_point", func(t *testing.T) {
		h := newTest(t, "h100")
		const arr, w = base, 64
		for warp := 0; warp < 16; warp++ {
			h.SM(warp / 4).Observe(texFetch(4, false, func(l int) []uint64 {
				x, y := (warp*32+l)%w, (warp*32+l)/w
				return []uint64{arr + uint64(4*(y*w+x))}
			}))
		}
		c := h.Counts()
		assert.Equal(t, uint64(128), c[TexRequests])
		assert.Equal(t, uint64(16), c[TexInstructions])
	})
	t.Run("tex1dfetch_gather", func(t *testing.T) {
		// Warp 0's indices from the case's input (idx.bin); the other warps'
		// are all within the 1,024 texels.
		warp0 := []int{0, 1, 1023, 1024, 1025, 2000, -1, -100, 255, 256, 847, 87, 8, 95, 997, 439,
			818, 614, 785, 357, 671, 918, 784, 300, 872, 273, 90, 324, 881, 738, 554, 687}
		h := newTest(t, "h100")
		bufs := []struct {
			addr uint64
			size uint8
		}{{base, 4}, {base + 1<<20, 4}, {base + 2<<20, 16}}
		for warp := 0; warp < 16; warp++ {
			idx := func(l int) int {
				if warp == 0 {
					return warp0[l]
				}
				return (warp*97 + l*31) % 1024
			}
			for _, b := range bufs {
				h.SM(warp / 4).Observe(texFetch(b.size, true, func(l int) []uint64 {
					if i := idx(l); i >= 0 && i < 1024 {
						return []uint64{b.addr + uint64(i)*uint64(b.size)}
					}
					return nil // out of range: no texel read
				}))
			}
		}
		c := h.Counts()
		assert.Equal(t, uint64(255), c[TexRequests])
	})
}

// Texture sectors are counted per request, and the texture cache (the L1 on
// the H100, a cache of its own on GF100) keeps 2D neighbourhoods.
func TestTextureCache(t *testing.T) {
	for _, prof := range []string{"h100", "gf100"} {
		t.Run(prof, func(t *testing.T) {
			h := newTest(t, prof)
			// Bilinear fetches of a 4x8 patch of a 64-texel-wide f32 array
			// (row-major): each lane reads its texel and the right, lower
			// and lower-right neighbours.
			const arr, w = base, 64
			texel := func(x, y int) uint64 { return arr + uint64(4*(y*w+x)) }
			fetch := texFetch(4, false, func(l int) []uint64 {
				x, y := l%8, l/8
				return []uint64{texel(x, y), texel(x+1, y), texel(x, y+1), texel(x+1, y+1)}
			})
			h.SM(0).Observe(fetch)
			h.SM(0).Observe(fetch)
			c := h.Counts()
			assert.Equal(t, uint64(16), c[TexRequests])
			// Per fetch and row pair y, y+1: the quad of x 0..3 reads
			// columns 0..4 (sector 0 of both rows), the quad of x 4..7
			// columns 4..8 (sectors 0 and 1): 6 sectors; 4 rows of lanes
			// make 24 per fetch. The 10 distinct sectors (rows 0..4, two
			// each) miss once; everything else hits.
			assert.Equal(t, uint64(48), c[TexSectors])
			assert.Equal(t, uint64(10), c[TexMiss])
			assert.Equal(t, uint64(38), c[TexHit])
			m := MetricMap(&c, Extra{})
			assert.InDelta(t, 100*float64(c[TexHit])/float64(c[TexSectors]), m["ptxvm__tex_hit_rate.pct"], 1e-9)
		})
	}
}

// Surface accesses go through the texture unit in groups of lanes: loads
// look up L1TEX, stores write through to L2 and drop the cached copy,
// reductions are performed in L2.
func TestSurfaceCounters(t *testing.T) {
	h := newTest(t, "h100")
	ld := acc(memspace.Texture, memspace.Load, 4, all, func(l int) uint64 { return base + uint64(4*l) })
	ld.Surface = true
	h.SM(0).Observe(ld)
	h.SM(0).Observe(ld) // again: L1TEX hits
	st := acc(memspace.Texture, memspace.Store, 4, all, func(l int) uint64 { return base + uint64(4*l) })
	st.Surface = true
	h.SM(0).Observe(st)
	red := acc(memspace.Texture, memspace.Reduction, 4, 1, func(int) uint64 { return base })
	red.Surface = true
	h.SM(0).Observe(red)
	h.Drain()
	c := h.Counts()
	assert.Equal(t, uint64(16), c[SurfLdRequests], "8 quads a warp, twice")
	assert.Equal(t, uint64(16), c[SurfLdSectors], "a quad's 16 bytes are one sector")
	assert.Equal(t, uint64(4), c[SurfLdMiss], "the warp's 4 sectors miss once")
	assert.Equal(t, uint64(12), c[SurfLdHit])
	assert.Equal(t, uint64(8), c[SurfStRequests])
	assert.Equal(t, uint64(8), c[SurfStSectors])
	assert.Equal(t, uint64(1), c[SurfRedRequests])
	assert.Equal(t, uint64(1), c[SurfRedSectors])
	assert.Zero(t, c[TexRequests], "not texture fetches")
}
