package vm

import (
	"encoding/binary"
	"math"
	"math/bits"

	"github.com/ptxvm/ptxvm/vm/internal/fpu"
)

// texels records the texel addresses one lane's fetch reads (for the memory
// model): at most 16, the footprint of a trilinear fetch of a mipmapped 3D
// texture.
type texels struct {
	n    uint8
	addr *[16]uint64
}

func (t *texels) add(a uint64) {
	if int(t.n) < len(t.addr) {
		t.addr[t.n] = a
		t.n++
	}
}

// texel returns channel values of texel (x, y, z) as float64 (float reads)
// or as integer bits (element reads of integer formats), and whether it is
// inside the texture.
func (t *Texture) texel(x, y, z int, lo uint64, fp *texels) ([4]float64, [4]uint32, bool) {
	var f [4]float64
	var u [4]uint32
	if x < 0 || y < 0 || z < 0 || x >= t.dims[0] || y >= t.dims[1] || z >= t.dims[2] {
		return f, u, false
	}
	off := uint64(((z*t.dims[1]+y)*t.dims[0]+x)*t.Channels*t.esz) + lo + t.off
	if fp != nil {
		fp.add(t.Base + uint64(off))
	}
	for c := 0; c < t.Channels; c++ {
		b := t.Data[off+uint64(c*t.esz):]
		var raw uint32
		switch t.esz {
		case 1:
			raw = uint32(b[0])
		case 2:
			raw = uint32(binary.LittleEndian.Uint16(b))
		default:
			raw = binary.LittleEndian.Uint32(b)
		}
		u[c] = raw
		switch t.Format {
		case "f32":
			f[c] = float64(math.Float32frombits(raw))
		case "f16":
			f[c] = float64(math.Float32frombits(fpu.F16ToF32(uint16(raw))))
		case "u8":
			f[c] = float64(raw) / 255
			u[c] = raw
		case "s8":
			f[c] = math.Max(float64(int8(raw))/127, -1)
			u[c] = uint32(int32(int8(raw)))
		case "u16":
			f[c] = float64(raw) / 65535
		case "s16":
			f[c] = math.Max(float64(int16(raw))/32767, -1)
			u[c] = uint32(int32(int16(raw)))
		default:
			f[c] = float64(raw)
		}
	}
	return f, u, true
}

// floatResult reports whether fetches return floats (float formats, or
// normalized reads).
func (t *Texture) floatResult() bool {
	return t.Format == "f32" || t.Format == "f16" || t.ReadNorm
}

// address maps an integer texel index to the texture for one dimension,
// returning false for border.
func (t *Texture) address(i, n int) (int, bool) {
	if i >= 0 && i < n {
		return i, true
	}
	switch t.Address {
	case AddrWrap:
		i %= n
		if i < 0 {
			i += n
		}
		return i, true
	case AddrMirror:
		p := 2 * n
		i %= p
		if i < 0 {
			i += p
		}
		if i >= n {
			i = p - 1 - i
		}
		return i, true
	case AddrBorder:
		return 0, false
	}
	if i < 0 {
		return 0, true
	}
	return n - 1, true
}

// Filtering as the hardware does it (established against the H100 and H200, sm_90;
// see texture_test.go for vectors taken from the GPU):
//
//   - Coordinates for linear filtering and tld4 become fixed point with 8
//     fractional bits: X = RNE(x·256), or RNE(x·N·256) for normalized
//     coordinates (x·N is exact; no separate frac() for wrap: the texel
//     indices wrap). X − 128 gives the base texel (X−128)>>8 and the 8-bit
//     fraction (X−128)&255 of each dimension. Point sampling uses floor of
//     the exact coordinate.
//   - The corner weights are integers out of 256 that always sum to 256,
//     split off one dimension at a time: z exactly (256−Wz, Wz); then x,
//     rounding the x=1 half: hi = ⌊(B·Wx+128)/256⌋; then y, rounding the
//     corner whose y bit equals its x bit (the other corner of the column
//     takes the remainder). In 2D this is w11 = ⌊(Wx·Wy+128)/256⌋,
//     w00 = ⌊((256−Wx)(256−Wy)+128)/256⌋, w10 = Wx−w11, w01 = Wy−w11.
//   - f32/f16 texels are filtered as a block-floating-point group: the
//     texels with non-zero weight are aligned to the exponent of the largest
//     magnitude among them, keeping 28 significant bits (truncated toward
//     zero), the integer weighted sum is exact, and it is rounded once to f32
//     with ties away from zero. Each channel forms its own group.
//   - 8/16-bit textures read as normalized floats are filtered as 16-bit
//     unorm (an 8-bit v becomes v·257): U = ⌊(Σ w·v16 + 128)/256⌋, and the
//     result is U/65535 rounded to f32.
//
// fp, if not nil, receives the address of every texel the fetch reads from
// memory: one for point sampling, the 2, 4 or 8 corners of the linear
// filter's footprint (those with zero weight too: the hardware fetches the
// whole footprint), the 4 of tld4; border texels are not read.
func (t *Texture) sample(c [3]float64, intCoords bool, gatherComp int, fp *texels) [4]uint32 {
	return t.sampleLayer(c, 0, intCoords, gatherComp, fp)
}

// sampleLayer is sample in one layer of a layered texture. The layer index
// is unsigned and clamped to the last layer (recorded: a negative index
// reads the last layer).
func (t *Texture) sampleLayer(c [3]float64, layer int64, intCoords bool, gatherComp int, fp *texels) [4]uint32 {
	var out [4]uint32
	lo := t.layerOffset(layer)
	if t.Linear {
		// tex1Dfetch: no filtering, no wrapping; out-of-range reads return
		// zero.
		f, u, ok := t.texel(int(clampCoord(c[0])), 0, 0, 0, fp)
		if !ok {
			return out
		}
		return t.result(f, u)
	}
	if intCoords {
		// Integer coordinates on a CUDA array: unfiltered texel reads with
		// the addressing mode applied.
		var idx [3]int
		for d := 0; d < t.nd; d++ {
			idx[d] = int(clampCoord(c[d]))
		}
		f, u, _ := t.fetch(idx[0], idx[1], idx[2], lo, fp)
		return t.result(f, u)
	}
	if gatherComp >= 0 {
		return t.gather(c, lo, gatherComp, fp)
	}
	var ft footprint
	t.footprint(c, lo, 256, fp, &ft)
	return t.blend(&ft)
}

// footprint is the texels a filtered fetch blends: up to 16 (two levels of
// a trilinear fetch) with integer weights that sum to 256.
type footprint struct {
	n    int
	w    [16]int
	vals [16][4]float64
	raws [16][4]uint32
}

// footprint adds the texels of a fetch at c (in layer offset lo) to ft,
// their weights scaled by scale (256: the fetch alone; 256−f and f: the two
// levels of a trilinear fetch). Point sampling gives one texel of weight
// scale; linear filtering the 2^nd corners (sliceWeights). The texels of weight 0
// are fetched for the memory model but not added.
func (t *Texture) footprint(c [3]float64, lo uint64, scale int, fp *texels, ft *footprint) {
	if !t.FilterLin {
		var idx [3]int
		for d := 0; d < t.nd; d++ {
			x := c[d]
			if t.Normalized {
				x *= float64(t.dims[d])
			}
			idx[d] = floorInt(x)
		}
		f, u, _ := t.fetch(idx[0], idx[1], idx[2], lo, fp)
		ft.w[ft.n], ft.vals[ft.n], ft.raws[ft.n] = scale, f, u
		ft.n++
		return
	}
	var base, raw, frac [3]int
	for d := 0; d < t.nd; d++ {
		x := fixedCoord(c[d], t.Normalized, t.dims[d]) - 128
		raw[d] = int(x >> 8)
		if t.Address == AddrClamp {
			// Recorded (trilinear fetches, whose weight rounding shows
			// it): clamping bounds the fixed-point coordinate to the
			// texel centres, so that the fraction is 0 beyond the edge.
			// The same texels are read either way.
			x = min(max(x, 0), int64(t.dims[d]-1)<<8)
		}
		base[d], frac[d] = int(x>>8), int(x&255)
	}
	if fp != nil {
		// The memory model sees the whole footprint at the unclamped
		// coordinate, zero weights included.
		for k := 0; k < 1<<t.nd; k++ {
			t.fetch(raw[0]+k&1, raw[1]+k>>1&1, raw[2]+k>>2&1, lo, fp)
		}
	}
	w := sliceWeights(t.nd, frac, scale)
	for k := 0; k < 1<<t.nd; k++ {
		if w[k] == 0 {
			continue
		}
		f, u, ok := t.fetch(base[0]+k&1, base[1]+k>>1&1, base[2]+k>>2&1, lo, nil)
		if !ok {
			f, u = [4]float64{}, [4]uint32{} // border
		}
		ft.w[ft.n], ft.vals[ft.n], ft.raws[ft.n] = w[k], f, u
		ft.n++
	}
}

// blend filters a footprint whose weights sum to 256: a single
// point-sampled texel is returned as it is (integer formats too).
func (t *Texture) blend(ft *footprint) [4]uint32 {
	if ft.n == 1 && !t.FilterLin {
		return t.result(ft.vals[0], ft.raws[0])
	}
	var out [4]uint32
	for ch := 0; ch < t.Channels; ch++ {
		if t.ReadNorm {
			out[ch] = t.filterNorm(ft, ch, 8)
		} else {
			out[ch] = filterFloat(ft, ch, 8)
		}
	}
	return out
}

// gather is tld4: the four texels of the bilinear footprint, unweighted, in
// the order (i,j+1), (i+1,j+1), (i+1,j), (i,j); border texels read 0.
func (t *Texture) gather(c [3]float64, lo uint64, comp int, fp *texels) [4]uint32 {
	var out [4]uint32
	var base [3]int
	for d := 0; d < t.nd; d++ {
		base[d] = int((fixedCoord(c[d], t.Normalized, t.dims[d]) - 128) >> 8)
	}
	i, j := base[0], base[1]
	pts := [4][2]int{{i, j + 1}, {i + 1, j + 1}, {i + 1, j}, {i, j}}
	for k, p := range pts {
		f, u, ok := t.fetch(p[0], p[1], 0, lo, fp)
		if !ok {
			continue
		}
		out[k] = t.result(f, u)[comp]
	}
	return out
}

// fixedCoord converts a coordinate to fixed point with 8 fractional bits,
// rounding halves up (recorded: x·256 = k+½ gives k+1, for negative
// coordinates too). A normalized coordinate is first truncated to
// normFracBits fractional bits, then scaled by the extent exactly and
// rounded the same way (recorded: x·N·256 = k+½+ε gives k when the
// truncation drops ε).
// normFracBits is the fixed-point precision of normalized coordinates
// (recorded: 21 or 22 fit the layered and 2D cases; 22 is taken).
const normFracBits = 22

func fixedCoord(x float64, normalized bool, n int) int64 {
	x = clampCoord(x)
	if normalized {
		q := math.Floor(math.Ldexp(x, normFracBits)) * float64(n)
		return int64(math.Floor(math.Ldexp(q, 8-normFracBits) + 0.5))
	}
	return int64(math.Floor(x*256 + 0.5))
}

// clampCoord bounds a coordinate so that texel arithmetic cannot overflow;
// NaN reads as 0.
func clampCoord(x float64) float64 {
	if x != x {
		return 0
	}
	return math.Max(math.Min(x, 1<<30), -(1 << 30))
}

func floorInt(x float64) int {
	return int(math.Floor(clampCoord(x)))
}

// linearWeights returns the integer weights (out of 256) of the 2^nd corners
// of the filter footprint, indexed by bit 0 = x+1, bit 1 = y+1, bit 2 = z+1,
// from the 8-bit fractions of each dimension.
func linearWeights(nd int, frac [3]int) [8]int {
	return sliceWeights(nd, frac, 256)
}

// sliceWeights splits the weight b among the corners of the footprint, one
// dimension at a time: z (rounding the z=0 half: ⌊(b·(256−Wz)+128)/256⌋),
// then x (rounding the x=1 half: ⌊(b·Wx+128)/256⌋), then y (rounding the
// corner whose y bit equals its x bit). A trilinear
// mipmapped fetch gives each level its slice of 256 this way (recorded:
// 256−f and f for the level-of-detail fraction f, like z of a 3D fetch).
func sliceWeights(nd int, frac [3]int, b int) [8]int {
	var w [8]int
	fx, fy, fz := frac[0], frac[1], frac[2]
	slices := 1
	if nd == 3 {
		slices = 2
	}
	z1 := b - (b*(256-fz)+128)>>8
	for z := 0; z < slices; z++ {
		bz := b
		if nd == 3 {
			bz = b - z1
			if z == 1 {
				bz = z1
			}
		}
		x1 := (bz*fx + 128) >> 8
		x0 := bz - x1
		o := z << 2
		if nd == 1 {
			w[0], w[1] = x0, x1
			continue
		}
		w11 := (x1*fy + 128) >> 8
		w00 := (x0*(256-fy) + 128) >> 8
		w[o], w[o|1], w[o|2], w[o|3] = w00, x1-w11, x0-w00, w11
	}
	return w
}

// filterFloat blends channel ch of a footprint (weights summing to
// 2^wbits) as one block-floating-point group: each texel truncated (toward
// zero) to 28 significant bits relative to the largest magnitude of the
// group, an exact integer weighted sum, one rounding to f32 with ties away
// from zero.
func filterFloat(ft *footprint, ch int, wbits int) uint32 {
	maxAbs := 0.0
	for k := 0; k < ft.n; k++ {
		if ft.w[k] == 0 {
			continue
		}
		v := ft.vals[k][ch]
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return filterNonFinite(ft, ch)
		}
		maxAbs = math.Max(maxAbs, math.Abs(v))
	}
	if maxAbs == 0 {
		return 0
	}
	_, e := math.Frexp(maxAbs) // maxAbs in [2^(e-1), 2^e)
	g := e - 28                // the grid: 28 significant bits
	var s int64
	for k := 0; k < ft.n; k++ {
		if ft.w[k] != 0 {
			s += int64(ft.w[k]) * int64(math.Ldexp(ft.vals[k][ch], -g)) // conversion truncates toward zero
		}
	}
	return math.Float32bits(scaledToF32RNA(s, g-wbits))
}

// filterNonFinite handles a footprint with an infinity or NaN of non-zero
// weight: infinities of one sign survive, anything else is the canonical
// NaN.
func filterNonFinite(ft *footprint, ch int) uint32 {
	var s float64
	for k := 0; k < ft.n; k++ {
		if ft.w[k] != 0 {
			s += ft.vals[k][ch]
		}
	}
	if math.IsNaN(s) {
		return 0x7fffffff
	}
	return math.Float32bits(float32(s))
}

// scaledToF32RNA returns s·2^e rounded to float32, ties away from zero.
func scaledToF32RNA(s int64, e int) float32 {
	if s == 0 {
		return 0
	}
	neg := s < 0
	m := uint64(s)
	if neg {
		m = uint64(-s)
	}
	n := bits.Len64(m)
	shift := n - 24 // keep 24 significant bits
	if lsb := -149 - e; lsb > shift {
		shift = lsb // subnormal result: the last bit is worth 2^-149
	}
	if shift > 0 {
		if shift >= 64 {
			m = 0
		} else {
			rem, half := m&(1<<shift-1), uint64(1)<<(shift-1)
			m >>= shift
			if rem >= half {
				m++
			}
		}
		e += shift
	}
	var r float32
	if bits.Len64(m)+e > 128 {
		r = float32(math.Inf(1))
	} else {
		r = float32(math.Ldexp(float64(m), e))
	}
	if neg {
		r = -r
	}
	return r
}

// filterNorm blends channel ch of an 8/16-bit texture read as normalized
// floats in 16-bit fixed point (weights summing to 2^wbits).
func (t *Texture) filterNorm(ft *footprint, ch int, wbits int) uint32 {
	var s int64
	for k := 0; k < ft.n; k++ {
		if ft.w[k] == 0 {
			continue
		}
		v := int64(int32(ft.raws[k][ch]))
		if t.esz == 1 {
			v *= 257 // 8-bit unorm to 16-bit unorm; v/255 = 257v/65535
		}
		s += int64(ft.w[k]) * v
	}
	one := float64(int64(1) << wbits)
	switch t.Format {
	case "u8", "u16":
		return math.Float32bits(float32((s+int64(1)<<(wbits-1))>>wbits) / 65535)
	case "s8":
		// Signed normalized filtering was not measured: blend exactly.
		return math.Float32bits(float32(math.Max(float64(s)/(one*257*127), -1)))
	default:
		return math.Float32bits(float32(math.Max(float64(s)/(one*32767), -1)))
	}
}

// fetch applies the addressing mode to each dimension.
func (t *Texture) fetch(x, y, z int, lo uint64, fp *texels) ([4]float64, [4]uint32, bool) {
	idx := [3]int{x, y, z}
	for d := 0; d < t.nd; d++ {
		i, ok := t.address(idx[d], t.dims[d])
		if !ok {
			return [4]float64{}, [4]uint32{}, false
		}
		idx[d] = i
	}
	return t.texel(idx[0], idx[1], idx[2], lo, fp)
}

// result converts channel values to the registers a fetch writes.
func (t *Texture) result(f [4]float64, u [4]uint32) [4]uint32 {
	var r [4]uint32
	for c := 0; c < 4; c++ {
		if t.floatResult() {
			r[c] = math.Float32bits(float32(f[c]))
		} else {
			r[c] = u[c]
		}
	}
	return r
}
