package vm

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// newTex creates a texture object on a fresh device and returns it.
func newTex(t *testing.T, desc TextureDesc) *Texture {
	t.Helper()
	d := NewDevice()
	h, err := d.CreateTexture(desc)
	require.NoError(t, err)
	return d.texture(h)
}

func f32Bytes(bits ...uint32) []byte {
	b := make([]byte, 4*len(bits))
	for i, v := range bits {
		binary.LittleEndian.PutUint32(b[4*i:], v)
	}
	return b
}

func TestTextureAddress(t *testing.T) {
	const n = 4
	cases := []struct {
		mode int
		want []int // indices -5..n+4; -1 = border
	}{
		{AddrClamp, []int{0, 0, 0, 0, 0, 0, 1, 2, 3, 3, 3, 3, 3, 3}},
		{AddrWrap, []int{3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0}},
		{AddrMirror, []int{3, 3, 2, 1, 0, 0, 1, 2, 3, 3, 2, 1, 0, 0}},
		{AddrBorder, []int{-1, -1, -1, -1, -1, 0, 1, 2, 3, -1, -1, -1, -1, -1}},
	}
	for _, c := range cases {
		tx := &Texture{TextureDesc: TextureDesc{Address: c.mode}}
		for k, want := range c.want {
			i := k - 5
			got, ok := tx.address(i, n)
			if want < 0 {
				require.False(t, ok, "mode %d index %d", c.mode, i)
				continue
			}
			require.True(t, ok, "mode %d index %d", c.mode, i)
			require.Equal(t, want, got, "mode %d index %d", c.mode, i)
		}
	}
}

func TestTextureFixedCoord(t *testing.T) {
	cases := []struct {
		x    float32
		norm bool
		n    int
		want int64
	}{
		{0.5, false, 64, 128},
		{1.25, false, 64, 320},
		{-0.5, false, 64, -128},
		// 21.49855·256 = 5503.63 rounds to 5504 = 21.5: tld4 on the GPU
		// (tex2d_gather sample 204) takes rows 21 and 22, not 20 and 21.
		{21.49855, false, 32, 5504},
		{31.999, false, 64, 8192},
		// normalized: x·N·256 exactly, then rounded (tie: 39677.5 → 39678).
		{2.421722412109375, true, 64, 39678},
		{1.0 / 128, true, 64, 128},
		{-0.25, true, 48, -3072},
	}
	for _, c := range cases {
		require.Equal(t, c.want, fixedCoord(float64(c.x), c.norm, c.n), "x=%v", c.x)
	}
}

func TestTextureLinearWeights(t *testing.T) {
	cases := []struct {
		name string
		nd   int
		frac [3]int
		want [8]int // index: bit 0 = x+1, bit 1 = y+1, bit 2 = z+1
	}{
		{"1d", 1, [3]int{77, 0, 0}, [8]int{179, 77}},
		{"2d centre", 2, [3]int{128, 128, 0}, [8]int{64, 64, 64, 64}},
		{"2d one axis", 2, [3]int{0, 232, 0}, [8]int{24, 0, 232, 0}},
		// Ties of Wx·Wy/256: the x=y corners round up, the others take the
		// remainder (tex2d_clamp_linear samples 128, 188, 134).
		{"2d tie", 2, [3]int{211, 128, 0}, [8]int{23, 105, 22, 106}},
		{"2d tie 2", 2, [3]int{224, 44, 0}, [8]int{27, 185, 5, 39}},
		{"2d tie 3", 2, [3]int{128, 91, 0}, [8]int{83, 82, 45, 46}},
		{"2d", 2, [3]int{169, 97, 0}, [8]int{54, 105, 33, 64}},
		// 3D: z split exactly, then x (x+1 half rounded), then y (corner
		// with y bit = x bit rounded): tex3d_linear_wrap samples 13, 17.
		{"3d tie", 3, [3]int{22, 230, 186}, [8]int{7, 1, 57, 5, 17, 2, 153, 14}},
		{"3d tie 2", 3, [3]int{225, 16, 59}, [8]int{23, 162, 1, 11, 7, 49, 0, 3}},
	}
	for _, c := range cases {
		require.Equal(t, c.want, linearWeights(c.nd, c.frac), c.name)
	}
	// The weights always sum to 256 and are never negative.
	for fx := 0; fx < 256; fx += 3 {
		for fy := 0; fy < 256; fy += 5 {
			for fz := 0; fz < 256; fz += 7 {
				for nd := 1; nd <= 3; nd++ {
					w := linearWeights(nd, [3]int{fx, fy, fz})
					s, neg := 0, false
					for _, v := range w {
						s += v
						neg = neg || v < 0
					}
					if s != 256 || neg {
						require.Fail(t, "bad weights", "nd=%d frac=(%d,%d,%d): %v", nd, fx, fy, fz, w)
					}
				}
			}
		}
	}
}

func TestTextureScaledToF32RNA(t *testing.T) {
	cases := []struct {
		s    int64
		e    int
		want uint32
	}{
		{0, 0, 0},
		{1, 0, 0x3f800000},
		{-3, -1, 0xbfc00000},
		{1<<24 + 1, 0, 0x4b800001},    // tie: away from zero (to even would give 0x4b800000)
		{1<<24 + 3, 0, 0x4b800002},    // tie
		{-(1<<24 + 1), 0, 0xcb800001}, // negative tie
		{1<<25 + 1, 0, 0x4c000000},    // below the tie
		{1, -149, 0x00000001},         // smallest subnormal
		{1, -150, 0x00000001},         // half of it: away from zero
		{1, -151, 0},                  // a quarter: to zero
		{3, -151, 0x00000001},
		{1, 128, 0x7f800000}, // overflow
		{1<<24 - 1, 104, 0x7f7fffff},
	}
	for _, c := range cases {
		require.Equal(t, c.want, math.Float32bits(scaledToF32RNA(c.s, c.e)), "%d·2^%d", c.s, c.e)
	}
}

// TestTextureBilinearF32 replays samples recorded on the GPU: four texels
// placed in a 2x2 clamp texture, sampled at (0.5+Wx/256, 0.5+Wy/256).
func TestTextureBilinearF32(t *testing.T) {
	cases := []struct {
		name   string
		wx, wy int
		texels [4]uint32 // (0,0), (1,0), (0,1), (1,1)
		want   uint32
	}{
		// Product weights with tie rounding [23 105 22 106]; the
		// textbook separable formula gives -0.1064.
		{"clamp_linear 128", 211, 128, [4]uint32{0x40861e4e, 0xc0b30a32, 0x411a6bb3, 0x401dc403}, 0xbd8b9787},
		// Block alignment: 5.8e-5 loses its low bits against 5.53; the
		// exactly rounded sum is 1 ulp away.
		{"clamp_linear 208", 3, 249, [4]uint32{0x40b0eb97, 0xc09230c1, 0x38732e16, 0x401e995f}, 0x3e389980},
		{"clamp_linear 319", 11, 46, [4]uint32{0xbdaeb199, 0xc058e1a0, 0xbdaeb199, 0xc058e1a0}, 0xbe68b319},
		// The exact sum is a tie: rounded away from zero.
		{"clamp_linear 458", 125, 104, [4]uint32{0xc08feba7, 0xc08feba7, 0x40f16826, 0x40f16826}, 0x3ec9e645},
		{"clamp_linear 11", 169, 97, [4]uint32{0xc0f9fbff, 0xc0f4ff0c, 0x410b45bc, 0x40f6b965}, 0xbfde85c0},
		// Cancellation: 13 ulp away from the exactly rounded sum.
		{"float4_linear 12.y", 154, 43, [4]uint32{0x3f7fafa4, 0xbf197f81, 0xbeddcf42, 0xbce7e67b}, 0x393c3ffe},
		{"float4_linear 12.x", 154, 43, [4]uint32{0xbf572667, 0x3f55afcf, 0x3f208046, 0xbedac0a5}, 0x3e0bd38e},
		// Texels of weight 0 (here 0.81) do not set the block exponent.
		{"float4_linear 306.z", 0, 232, [4]uint32{0xbc438d16, 0x3f177308, 0xbe191e2c, 0x3f4e82f0}, 0xbe0be8ac},
	}
	for _, c := range cases {
		tx := newTex(t, TextureDesc{Dims: []int{2, 2}, Format: "f32", Channels: 1, Address: AddrClamp,
			FilterLin: true, Data: f32Bytes(c.texels[:]...)})
		got := tx.sample([3]float64{0.5 + float64(c.wx)/256, 0.5 + float64(c.wy)/256}, false, -1, nil)
		require.Equal(t, c.want, got[0], "%s: got %v want %v", c.name,
			math.Float32frombits(got[0]), math.Float32frombits(c.want))
	}
}

func TestTextureBilinearNonFinite(t *testing.T) {
	inf, ninf := math.Float32bits(float32(math.Inf(1))), math.Float32bits(float32(math.Inf(-1)))
	one := math.Float32bits(1)
	mk := func(a, b uint32) *Texture {
		return newTex(t, TextureDesc{Dims: []int{2}, Format: "f32", Address: AddrClamp, FilterLin: true, Data: f32Bytes(a, b)})
	}
	require.Equal(t, inf, mk(one, inf).sample([3]float64{1}, false, -1, nil)[0])
	require.Equal(t, one, mk(one, inf).sample([3]float64{0.5}, false, -1, nil)[0], "weight 0 on the infinity")
	require.Equal(t, uint32(0x7fffffff), mk(ninf, inf).sample([3]float64{1}, false, -1, nil)[0])
}

func TestTextureBilinearU8Norm(t *testing.T) {
	cases := []struct {
		name   string
		texels [4]byte
		wx, wy int
		want   uint32
	}{
		// Σw·v = 17344; U = (17344·257 + 128) >> 8 = 17412; 17412/65535.
		// The exact mean 271/1020 would be 0x3e880821.
		{"u8_norm_linear_wrap 0", [4]byte{27, 51, 193, 0}, 128, 128, 0x3e880888},
		// Σw·v·257/256 = 29940.5 rounds up (not to even).
		{"u8_norm_linear_wrap 4", [4]byte{178, 100, 39, 149}, 128, 128, 0x3ee9eaea},
		{"one texel: 249/255", [4]byte{249, 241, 231, 184}, 0, 0, 0x3f79f9fa},
	}
	for _, c := range cases {
		tx := newTex(t, TextureDesc{Dims: []int{2, 2}, Format: "u8", Channels: 1, Address: AddrClamp,
			FilterLin: true, ReadNorm: true, Data: c.texels[:]})
		got := tx.sample([3]float64{0.5 + float64(c.wx)/256, 0.5 + float64(c.wy)/256}, false, -1, nil)
		require.Equal(t, c.want, got[0], c.name)
	}
	require.Equal(t, math.Float32bits(249.0/255), uint32(0x3f79f9fa))
}

func TestTextureGather(t *testing.T) {
	// A 4x4 texture whose texel (x, y) holds x + 10y; tld4 returns
	// (i,j+1), (i+1,j+1), (i+1,j), (i,j) of the footprint.
	var vals []uint32
	for y := 0; y < 4; y++ {
		for x := 0; x < 4; x++ {
			vals = append(vals, math.Float32bits(float32(x+10*y)))
		}
	}
	tx := newTex(t, TextureDesc{Dims: []int{4, 4}, Format: "f32", Address: AddrClamp, Data: f32Bytes(vals...)})
	f := func(v uint32) float32 { return math.Float32frombits(v) }
	got := tx.sample([3]float64{1.7, 2.2}, false, 0, nil)
	require.Equal(t, []float32{21, 22, 12, 11}, []float32{f(got[0]), f(got[1]), f(got[2]), f(got[3])})
	// 2.49855 is within half of 1/256 of 2.5: the footprint moves up a row.
	got = tx.sample([3]float64{1.7, float64(float32(2.49855))}, false, 0, nil)
	require.Equal(t, []float32{31, 32, 22, 21}, []float32{f(got[0]), f(got[1]), f(got[2]), f(got[3])})
	got = tx.sample([3]float64{-3, 1.2}, false, 0, nil) // clamped at the left edge
	require.Equal(t, []float32{10, 10, 0, 0}, []float32{f(got[0]), f(got[1]), f(got[2]), f(got[3])})
}

// TestTextureGPUCases replays whole nvcc texture cases from their input and
// expected files (the GPU's outputs), without running the kernels.
func TestTextureGPUCases(t *testing.T) {
	root := filepath.Join("..", "testdata", "nvcc", "cases")
	read := func(t *testing.T, p string) []byte {
		b, err := os.ReadFile(filepath.Join(root, p))
		if os.IsNotExist(err) {
			t.Skipf("%s is not in this checkout", p)
		}
		require.NoError(t, err)
		return b
	}
	cases := []struct {
		name   string
		desc   TextureDesc
		img    string
		coords string
		nd     int
	}{
		{"tex2d_clamp_linear", TextureDesc{Dims: []int{64, 48}, Format: "f32", Address: AddrClamp, FilterLin: true}, "img", "coords", 2},
		{"tex2d_border_linear", TextureDesc{Dims: []int{64, 48}, Format: "f32", Address: AddrBorder, FilterLin: true}, "img", "coords", 2},
		{"tex2d_wrap_linear_norm", TextureDesc{Dims: []int{64, 48}, Format: "f32", Address: AddrWrap, FilterLin: true, Normalized: true}, "img", "coords", 2},
		{"tex2d_float4_linear", TextureDesc{Dims: []int{64, 48}, Format: "f32", Channels: 4, Address: AddrClamp, FilterLin: true}, "img", "coords", 2},
		{"tex2d_u8_norm_linear_wrap", TextureDesc{Dims: []int{64, 48}, Format: "u8", Address: AddrWrap, FilterLin: true, Normalized: true, ReadNorm: true}, "img", "coords", 2},
		{"tex3d_linear_wrap", TextureDesc{Dims: []int{16, 12, 8}, Format: "f32", Address: AddrWrap, FilterLin: true, Normalized: true}, "vol", "coords", 3},
		{"tex1d_linear", TextureDesc{Dims: []int{100}, Format: "f32", Address: AddrClamp, FilterLin: true}, "img", "x", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.desc.Data = read(t, filepath.Join(c.name, "inputs", c.img+".bin"))
			tx := newTex(t, c.desc)
			coords := read(t, filepath.Join(c.name, "inputs", c.coords+".bin"))
			want := read(t, filepath.Join(c.name, "O3", "expected", "out.bin"))
			n := len(coords) / (4 * c.nd)
			for i := 0; i < n; i++ {
				var x [3]float64
				for d := 0; d < c.nd; d++ {
					x[d] = float64(math.Float32frombits(binary.LittleEndian.Uint32(coords[4*(i*c.nd+d):])))
				}
				got := tx.sample(x, false, -1, nil)
				for ch := 0; ch < tx.Channels; ch++ {
					w := binary.LittleEndian.Uint32(want[4*(i*tx.Channels+ch):])
					require.Equal(t, w, got[ch], "sample %d channel %d at %v: got %v want %v", i, ch, x[:c.nd],
						math.Float32frombits(got[ch]), math.Float32frombits(w))
				}
			}
		})
	}
}

// TestTextureFootprint checks the texel addresses a fetch reports to the
// memory model: one texel for point sampling, the 2, 4 or 8 corners of the
// linear filter's footprint (zero weights included), the 4 texels of tld4,
// nothing for a border texel or a linear fetch out of range.
func TestTextureFootprint(t *testing.T) {
	const base = 0x7_0000_1000
	texel := func(dims []int, x, y, z int) uint64 { // f32, one channel
		nx, ny := dims[0], 1
		if len(dims) > 1 {
			ny = dims[1]
		}
		return base + uint64(((z*ny+y)*nx+x)*4)
	}
	cases := []struct {
		name   string
		desc   TextureDesc
		coord  [3]float64
		intC   bool
		gather int
		want   func(d []int) []uint64
	}{
		{"point 2d", TextureDesc{Dims: []int{8, 8}}, [3]float64{2.75, 3.25}, false, -1,
			func(d []int) []uint64 { return []uint64{texel(d, 2, 3, 0)} }},
		{"linear 1d", TextureDesc{Dims: []int{8}, FilterLin: true}, [3]float64{2.75}, false, -1,
			func(d []int) []uint64 { return []uint64{texel(d, 2, 0, 0), texel(d, 3, 0, 0)} }},
		{"linear 2d, weights 0 included", TextureDesc{Dims: []int{8, 8}, FilterLin: true}, [3]float64{2.5, 3.5}, false, -1,
			func(d []int) []uint64 {
				return []uint64{texel(d, 2, 3, 0), texel(d, 3, 3, 0), texel(d, 2, 4, 0), texel(d, 3, 4, 0)}
			}},
		{"linear 3d", TextureDesc{Dims: []int{4, 4, 4}, FilterLin: true}, [3]float64{1.75, 1.25, 2.5}, false, -1,
			func(d []int) []uint64 {
				var out []uint64
				for k := 0; k < 8; k++ {
					out = append(out, texel(d, 1+k&1, 0+k>>1&1, 2+k>>2&1))
				}
				return out
			}},
		{"linear 2d clamped at the edge", TextureDesc{Dims: []int{8, 8}, FilterLin: true}, [3]float64{7.9, 0.1}, false, -1,
			func(d []int) []uint64 {
				return []uint64{texel(d, 7, 0, 0), texel(d, 7, 0, 0), texel(d, 7, 0, 0), texel(d, 7, 0, 0)}
			}},
		{"tld4", TextureDesc{Dims: []int{8, 8}}, [3]float64{2.75, 3.25}, false, 0,
			func(d []int) []uint64 {
				return []uint64{texel(d, 2, 3, 0), texel(d, 3, 3, 0), texel(d, 3, 2, 0), texel(d, 2, 2, 0)}
			}},
		{"border", TextureDesc{Dims: []int{8, 8}, Address: AddrBorder}, [3]float64{-2, 3}, false, -1,
			func(d []int) []uint64 { return nil }},
		{"linear memory", TextureDesc{Dims: []int{16}, Linear: true}, [3]float64{5}, true, -1,
			func(d []int) []uint64 { return []uint64{texel(d, 5, 0, 0)} }},
		{"linear memory out of range", TextureDesc{Dims: []int{16}, Linear: true}, [3]float64{16}, true, -1,
			func(d []int) []uint64 { return nil }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := 4
			for _, x := range c.desc.Dims {
				n *= x
			}
			c.desc.Format, c.desc.Data, c.desc.Base = "f32", make([]byte, n), base
			tx := newTex(t, c.desc)
			var addr [16]uint64
			fp := &texels{addr: &addr}
			tx.sample(c.coord, c.intC, c.gather, fp)
			require.Equal(t, c.want(c.desc.Dims), append([]uint64(nil), addr[:fp.n]...))
		})
	}
}

// TestLayeredTexture checks that tex.a1d/tex.a2d read their layer, and that
// a layer index out of range reads the last layer, a negative one too (it
// is unsigned; recorded on the H200).
func TestLayeredTexture(t *testing.T) {
	// Two layers of 2x1 texels: layer 0 holds 1, 2; layer 1 holds 3, 4.
	tx := newTex(t, TextureDesc{Dims: []int{2}, Layers: 2, Format: "f32", Address: AddrClamp, Data: f32Bytes(math.Float32bits(1), math.Float32bits(2), math.Float32bits(3), math.Float32bits(4))})
	tests := []struct {
		x     float64
		layer int64
		want  float32
	}{
		{0.5, 0, 1}, {1.5, 0, 2}, {0.5, 1, 3}, {1.5, 1, 4}, {1.5, -1, 4}, {0.5, -2, 3}, {0.5, 7, 3},
	}
	for _, tt := range tests {
		got := tx.sampleLayer([3]float64{tt.x}, tt.layer, false, -1, nil)
		require.Equal(t, math.Float32bits(tt.want), got[0], "x %v layer %d", tt.x, tt.layer)
	}
	// Linear filtering stays within the layer.
	lin := newTex(t, TextureDesc{Dims: []int{2}, Layers: 2, Format: "f32", Address: AddrClamp, FilterLin: true, Data: f32Bytes(math.Float32bits(1), math.Float32bits(2), math.Float32bits(3), math.Float32bits(4))})
	got := lin.sampleLayer([3]float64{1}, 1, false, -1, nil)
	require.Equal(t, math.Float32bits(3.5), got[0])
	_, err := NewDevice().CreateTexture(TextureDesc{Dims: []int{2}, Layers: 3, Format: "f32", Data: f32Bytes(math.Float32bits(1), math.Float32bits(2), math.Float32bits(3), math.Float32bits(4))})
	require.ErrorContains(t, err, "3 layer(s)")
}
