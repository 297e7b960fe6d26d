package vm

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// constLevels returns a 2D mipmapped texture of 32x16 texels and 6 levels
// whose level k holds the constant k (the recorded sweeps' texture).
func constLevels(t *testing.T, desc TextureDesc) *Texture {
	t.Helper()
	var bits []uint32
	for k := 0; k < 6; k++ {
		for i := 0; i < max(1, 32>>k)*max(1, 16>>k); i++ {
			bits = append(bits, math.Float32bits(float32(k)))
		}
	}
	desc.Dims, desc.Levels, desc.Format, desc.Normalized = []int{32, 16}, 6, "f32", true
	desc.Data = f32Bytes(bits...)
	if desc.MaxLOD == 0 {
		desc.MaxLOD = 5
	}
	return newTex(t, desc)
}

// TestLODFixed checks tex.level's level of detail against values the H200
// gave on a texture whose level k holds k (lodsweep2d_ll, _ll_bias).
func TestLODFixed(t *testing.T) {
	tx := constLevels(t, TextureDesc{MipLinear: true, FilterLin: true})
	tests := []struct {
		lod  float64
		want int
	}{
		{-1.25, 0}, {0, 0}, {1e-7, 0}, {0.49975586, 127}, {0.50024414, 128}, {2.001953125, 512},
		{6.25, 1280}, {100, 1280}, {math.Inf(1), 1280}, {math.Inf(-1), 0}, {math.NaN(), 0},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, tx.lodFixed(tt.lod), "lod %v", tt.lod)
	}
	b := constLevels(t, TextureDesc{MipLinear: true, LODBias: 0.625, MinLOD: 0.75, MaxLOD: 3.5})
	require.Equal(t, 192, b.lodFixed(-1.25), "clamped to min_lod 0.75")
	require.Equal(t, 224, b.lodFixed(0.25))
	require.Equal(t, 896, b.lodFixed(6), "clamped to max_lod 3.5")
	// A min_lod past the last level (+Inf included) selects the last level
	// (it overflowed the fixed-point level and indexed past the levels).
	for _, m := range []float32{float32(math.Inf(1)), 1e30, 7} {
		hi := constLevels(t, TextureDesc{MipLinear: true, MinLOD: m, MaxLOD: float32(math.Inf(1))})
		require.Equal(t, 1280, hi.lodFixed(0), "min_lod %v", m)
	}
	plain := newTex(t, TextureDesc{Dims: []int{2}, Format: "f32", Data: f32Bytes(0, 0)})
	require.Equal(t, 0, plain.lodFixed(3), "not mipmapped: level 0")
}

// TestSampleLOD checks the mip filters on the constant-level texture: a
// linear one gives k + f/256, a point one the nearest level (½ rounds up).
func TestSampleLOD(t *testing.T) {
	c := [3]float64{0.37, 0.61}
	lin := constLevels(t, TextureDesc{MipLinear: true, FilterLin: true})
	pt := constLevels(t, TextureDesc{FilterLin: true})
	for _, L := range []int{0, 1, 127, 128, 300, 1279, 1280} {
		got := math.Float32frombits(lin.sampleLOD(c, 0, L, -1, nil)[0])
		require.Equal(t, float32(L)/256, got, "linear, L %d", L)
		got = math.Float32frombits(pt.sampleLOD(c, 0, L, -1, nil)[0])
		require.Equal(t, float32((L+128)>>8), got, "point, L %d", L)
	}
}

// TestCubeFace checks the face selection and projection against cases the
// H200 recorded (cube16_point): ties go to z, then y; NaN components and
// the zero vector read as 0 (the centre of +z).
func TestCubeFace(t *testing.T) {
	tests := []struct {
		x, y, z float32
		face    int
		u, v    float64
	}{
		{1, 0, 0, 0, 0.5, 0.5},
		{-2, 0.5, 0.25, 1, 0.5625, 0.375},
		{1.2374, -1.2374, 1.2374, 4, 1, 1},
		{0.5, 0.5, 0, 2, 1, 0.5},
		{0, 0, 0, 4, 0.5, 0.5},
		{float32(math.NaN()), 1.8756747, 0.93783736, 2, 0.5, 0.75},
		{float32(math.Inf(1)), 0.5, 0.25, 4, 0.5, 0.5},
		{0, 0, -3, 5, 0.5, 0.5},
	}
	for _, tt := range tests {
		f, u, v := cubeFace(tt.x, tt.y, tt.z)
		require.Equal(t, tt.face, f, "(%v, %v, %v)", tt.x, tt.y, tt.z)
		require.InDelta(t, tt.u, u, 1e-6, "u of (%v, %v, %v)", tt.x, tt.y, tt.z)
		require.InDelta(t, tt.v, v, 1e-6, "v of (%v, %v, %v)", tt.x, tt.y, tt.z)
	}
}

// TestSliceWeights checks that a level's share b is split without loss and
// that b = 256 is the plain 2D/3D rule.
func TestSliceWeights(t *testing.T) {
	for nd := 1; nd <= 3; nd++ {
		for _, b := range []int{1, 3, 128, 200, 255, 256} {
			for _, f := range [][3]int{{0, 0, 0}, {1, 255, 128}, {128, 128, 1}, {77, 3, 200}} {
				w := sliceWeights(nd, f, b)
				sum := 0
				for _, x := range w {
					require.GreaterOrEqual(t, x, 0)
					sum += x
				}
				require.Equal(t, b, sum, "nd %d b %d f %v: %v", nd, b, f, w)
			}
		}
	}
	// A recorded trilinear 1D fetch (lod1d_ll, sample 7): a level share of
	// 253 with fraction 224 splits 32 : 221.
	require.Equal(t, [8]int{32, 221}, sliceWeights(1, [3]int{224}, 253))
}

// TestTextureExtent checks txq's answers against q.cu's recording.
func TestTextureExtent(t *testing.T) {
	mk := func(desc TextureDesc, texels int) *Texture {
		desc.Format, desc.Data = "f32", make([]byte, 4*texels)
		return newTex(t, desc)
	}
	tests := []struct {
		name string
		tex  *Texture
		want [][3]uint64 // per level 0..2: width, height, depth
	}{
		{"1d", mk(TextureDesc{Dims: []int{300}}, 300), [][3]uint64{{300, 1, 0}, {0, 0, 0}}},
		{"2d", mk(TextureDesc{Dims: []int{40, 24}}, 960), [][3]uint64{{40, 24, 0}, {0, 0, 0}}},
		{"1d layered", mk(TextureDesc{Dims: []int{64}, Layers: 4}, 256), [][3]uint64{{64, 4, 0}, {0, 0, 0}}},
		{"2d layered", mk(TextureDesc{Dims: []int{20, 12}, Layers: 5}, 1200), [][3]uint64{{20, 12, 5}, {0, 0, 0}}},
		{"cube", mk(TextureDesc{Dims: []int{8, 8}, Cube: true}, 384), [][3]uint64{{8, 8, 0}}},
		{"cube layered", mk(TextureDesc{Dims: []int{8, 8}, Cube: true, Layers: 3}, 1152), [][3]uint64{{8, 8, 3}}},
		{"3d", mk(TextureDesc{Dims: []int{12, 10, 6}}, 720), [][3]uint64{{12, 10, 6}, {0, 0, 0}}},
		{"mip 1d", mk(TextureDesc{Dims: []int{64}, Levels: 7, MaxLOD: 6}, 127), [][3]uint64{{64, 1, 0}, {32, 1, 0}, {16, 1, 0}}},
		{"mip 3d", mk(TextureDesc{Dims: []int{16, 16, 4}, Levels: 5, MaxLOD: 4}, 1024+128+16+4+1), [][3]uint64{{16, 16, 4}, {8, 8, 2}, {4, 4, 1}}},
	}
	for _, tt := range tests {
		for k, want := range tt.want {
			for i := 0; i < 3; i++ {
				require.Equal(t, want[i], tt.tex.extent(i, int64(k)), "%s: level %d dimension %d", tt.name, k, i)
			}
		}
		require.Equal(t, uint64(0), tt.tex.extent(0, -1), "%s: level -1", tt.name)
	}
}

// TestCreateTextureShapes checks the new descriptors' errors.
func TestCreateTextureShapes(t *testing.T) {
	tests := []struct {
		desc TextureDesc
		want string
	}{
		{TextureDesc{Dims: []int{8, 4}, Cube: true, Format: "f32", Data: make([]byte, 4*8*4*6)}, "square faces"},
		{TextureDesc{Dims: []int{8}, Levels: 5, Format: "f32", Data: make([]byte, 64)}, "fewer than 5 levels"},
		{TextureDesc{Dims: []int{8}, Levels: 4, Format: "f32", Data: make([]byte, 4*14)}, "needs 60 bytes"},
		{TextureDesc{Dims: []int{8}, Levels: 4, MinLOD: 2, MaxLOD: 1, Format: "f32", Data: make([]byte, 60)}, "min 2 is above max 1"},
		{TextureDesc{Dims: []int{8}, Levels: 40, Format: "f32", Data: make([]byte, 60)}, "texture levels 40"},
	}
	for _, tt := range tests {
		_, err := NewDevice().CreateTexture(tt.desc)
		require.ErrorContains(t, err, tt.want)
	}
}

// TestSurfaceConversions checks sust.p's f16 and unorm8 conversions on
// values the H200 stored (sustp_f16x2, sustp_unorm8x4).
func TestSurfaceConversions(t *testing.T) {
	f16 := []struct {
		in   uint32
		want uint16
	}{
		{0x3e945600, 0x34a2}, {0xbeb47800, 0xb5a3}, {0x4788b800, 0x7bff}, {0x7f800000, 0x7c00},
		{0x7fc00001, 0x7e00}, {0, 0}, {0x3f800000, 0x3c00},
	}
	for _, tt := range f16 {
		require.Equal(t, tt.want, sustF16(tt.in), "%#x", tt.in)
	}
	u8 := []struct {
		in   float32
		want uint64
	}{
		{0.5, 127}, {0.7235870361328125, 184}, {0.27648926, 70}, {0.63336182, 161}, {1, 255}, {1.5, 255},
		{-0.75, 0}, {float32(math.NaN()), 0}, {0.0491180419921875, 13}, {0.996, 254},
	}
	for _, tt := range u8 {
		require.Equal(t, tt.want, unorm8(tt.in), "%v", tt.in)
	}
}

// TestMipFootprint checks that a trilinear fetch reports the 8 texels of
// both levels to the memory model, each in its level's part of the array.
func TestMipFootprint(t *testing.T) {
	tx := constLevels(t, TextureDesc{MipLinear: true, FilterLin: true, Base: 0x1000})
	var addr [16]uint64
	fp := &texels{addr: &addr}
	tx.sampleLOD([3]float64{0.5, 0.5}, 0, 128, -1, fp)
	require.Equal(t, uint8(8), fp.n)
	level1 := uint64(0x1000 + 32*16*4)
	for i, a := range addr[:8] {
		if i < 4 {
			require.Less(t, a, level1, "texel %d in level 0", i)
		} else {
			require.GreaterOrEqual(t, a, level1, "texel %d in level 1", i)
			require.Less(t, a, level1+16*8*4)
		}
	}
}
