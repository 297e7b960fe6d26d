package vm

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"

	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/ptx"
	"github.com/ptxvm/ptxvm/vm/internal/fpu"
)

// Texture addressing and filtering, as cudaTextureDesc sets them.
const (
	AddrClamp = iota
	AddrWrap
	AddrMirror
	AddrBorder
)

// TextureDesc describes a texture object (cudaResourceDesc +
// cudaTextureDesc).
type TextureDesc struct {
	Linear     bool   // a tex1Dfetch object over linear memory (else a CUDA array)
	Dims       []int  // 1 to 3 extents, in texels
	Format     string // element type: u8 s8 u16 s16 u32 s32 f16 f32
	Channels   int    // 1, 2 or 4
	Address    int    // AddrClamp, AddrWrap, AddrMirror, AddrBorder
	FilterLin  bool   // linear (bilinear, trilinear) filtering
	Normalized bool   // coordinates in [0, 1)
	ReadNorm   bool   // 8/16-bit integers read as normalized floats
	// Data holds the texels (x fastest, channels interleaved). For a CUDA
	// array it is a copy taken when the object is created; for a linear
	// object it aliases device memory.
	Data []byte
	Base uint64 // device address of the data, for the memory model
}

// Texture is a texture object of a device.
type Texture struct {
	TextureDesc
	esz  int // bytes per channel
	dims [3]int
	nd   int
}

// CreateTexture makes a texture object and returns its handle (the value
// a kernel receives as cudaTextureObject_t).
func (d *Device) CreateTexture(desc TextureDesc) (uint64, error) {
	t := &Texture{TextureDesc: desc}
	switch desc.Format {
	case "u8", "s8":
		t.esz = 1
	case "u16", "s16", "f16":
		t.esz = 2
	case "u32", "s32", "f32":
		t.esz = 4
	default:
		return 0, fmt.Errorf("texture format %q is not supported (u8 s8 u16 s16 u32 s32 f16 f32)", desc.Format)
	}
	if desc.Channels == 0 {
		t.Channels = 1
	}
	if c := t.Channels; c != 1 && c != 2 && c != 4 {
		return 0, fmt.Errorf("texture channels must be 1, 2 or 4, not %d", c)
	}
	if len(desc.Dims) < 1 || len(desc.Dims) > 3 || desc.Linear && len(desc.Dims) != 1 {
		return 0, fmt.Errorf("texture dims %v: want 1 to 3 extents (1 for linear memory)", desc.Dims)
	}
	t.nd = len(desc.Dims)
	t.dims = [3]int{1, 1, 1}
	n := t.esz * t.Channels
	for i, x := range desc.Dims {
		if x <= 0 || x > 1<<16 && !desc.Linear {
			return 0, fmt.Errorf("texture extent %d is out of range", x)
		}
		t.dims[i] = x
		n *= x
	}
	if len(desc.Data) < n {
		return 0, fmt.Errorf("texture of %v texels × %d channels of %s needs %d bytes; its buffer has %d", desc.Dims, t.Channels, desc.Format, n, len(desc.Data))
	}
	if desc.ReadNorm && t.esz == 4 || desc.ReadNorm && desc.Format == "f16" {
		return 0, fmt.Errorf("normalized-float reads need an 8- or 16-bit integer format, not %s", desc.Format)
	}
	if desc.FilterLin && !desc.ReadNorm && desc.Format != "f32" && desc.Format != "f16" {
		return 0, fmt.Errorf("linear filtering needs a float format or normalized-float reads")
	}
	if !desc.Linear {
		t.Data = append([]byte(nil), desc.Data[:n]...)
	}
	d.textures = append(d.textures, t)
	return uint64(len(d.textures)), nil
}

func (d *Device) texture(h uint64) *Texture {
	if h == 0 || h > uint64(len(d.textures)) {
		return nil
	}
	return d.textures[h-1]
}

// texel returns channel values of texel (x, y, z) as float64 (float reads)
// or as integer bits (element reads of integer formats), and whether it is
// inside the texture.
func (t *Texture) texel(x, y, z int) ([4]float64, [4]uint32, bool) {
	var f [4]float64
	var u [4]uint32
	if x < 0 || y < 0 || z < 0 || x >= t.dims[0] || y >= t.dims[1] || z >= t.dims[2] {
		return f, u, false
	}
	off := ((z*t.dims[1]+y)*t.dims[0] + x) * t.Channels * t.esz
	for c := 0; c < t.Channels; c++ {
		b := t.Data[off+c*t.esz:]
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

// sample fetches at coordinates c (texel space or normalized) and returns
// four channel results as register bits.
func (t *Texture) sample(c [3]float64, intCoords bool, gatherComp int) [4]uint32 {
	var out [4]uint32
	if intCoords || t.Linear {
		// tex1Dfetch and integer coordinates: no filtering, no wrapping;
		// out-of-range reads return zero.
		f, u, ok := t.texel(int(c[0]), 0, 0)
		if !ok {
			return out
		}
		return t.result(f, u)
	}
	var pos [3]float64
	for d := 0; d < t.nd; d++ {
		x := c[d]
		if t.Normalized {
			x *= float64(t.dims[d])
		}
		pos[d] = x
	}
	if gatherComp >= 0 {
		// tld4: the four texels of the bilinear footprint, unweighted, in
		// the order (i,j+1), (i+1,j+1), (i+1,j), (i,j).
		i, j := floorInt(pos[0]-0.5), floorInt(pos[1]-0.5)
		pts := [4][2]int{{i, j + 1}, {i + 1, j + 1}, {i + 1, j}, {i, j}}
		for k, p := range pts {
			f, u, ok := t.fetch(p[0], p[1], 0)
			if !ok {
				continue
			}
			r := t.result(f, u)
			out[k] = r[gatherComp]
		}
		return out
	}
	if !t.FilterLin {
		var f [4]float64
		var u [4]uint32
		ok := true
		idx := [3]int{}
		for d := 0; d < t.nd; d++ {
			idx[d] = floorInt(pos[d])
		}
		f, u, ok = t.fetch(idx[0], idx[1], idx[2])
		if !ok {
			return t.result([4]float64{}, [4]uint32{})
		}
		return t.result(f, u)
	}
	// Linear filtering: weights in 9-bit fixed point with 8 fractional bits.
	var base [3]int
	var w [3]float64
	for d := 0; d < t.nd; d++ {
		xb := pos[d] - 0.5
		i := math.Floor(xb)
		base[d] = int(i)
		w[d] = math.Round((xb-i)*256) / 256
	}
	var acc [4]float64
	corners := 1 << t.nd
	for k := 0; k < corners; k++ {
		wt := 1.0
		var p [3]int
		for d := 0; d < t.nd; d++ {
			if k>>d&1 != 0 {
				p[d] = base[d] + 1
				wt *= w[d]
			} else {
				p[d] = base[d]
				wt *= 1 - w[d]
			}
		}
		f, _, ok := t.fetch(p[0], p[1], p[2])
		if !ok {
			continue
		}
		for ch := 0; ch < 4; ch++ {
			acc[ch] += wt * f[ch]
		}
	}
	for ch := 0; ch < 4; ch++ {
		out[ch] = math.Float32bits(float32(acc[ch]))
	}
	return out
}

func floorInt(x float64) int {
	if x != x {
		return 0
	}
	return int(math.Floor(math.Max(math.Min(x, 1<<30), -(1 << 30))))
}

// fetch applies the addressing mode to each dimension.
func (t *Texture) fetch(x, y, z int) ([4]float64, [4]uint32, bool) {
	idx := [3]int{x, y, z}
	for d := 0; d < t.nd; d++ {
		i, ok := t.address(idx[d], t.dims[d])
		if !ok {
			return [4]float64{}, [4]uint32{}, false
		}
		idx[d] = i
	}
	return t.texel(idx[0], idx[1], idx[2])
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

// Texture geometries (Inst.Imm of OpTex).
const (
	geom1D = iota + 1
	geom2D
	geom3D
	geomA1D
	geomA2D
)

var geomNames = map[string]uint64{".1d": geom1D, ".2d": geom2D, ".3d": geom3D, ".a1d": geomA1D, ".a2d": geomA2D}

// Texture queries (Inst.Imm of OpTxq).
var txqNames = map[string]uint64{".width": 0, ".height": 1, ".depth": 2, ".normalized_coords": 3, ".filter_mode": 4,
	".addr_mode_0": 5, ".addr_mode_1": 6, ".addr_mode_2": 7, ".num_mipmap_levels": 8, ".num_samples": 9}

// lowerTex lowers tex, tld4 and txq.
func (l *fnLower) lowerTex(pi *ptx.Instruction, in *Inst, m *mods) bool {
	ops := pi.Operands
	if pi.Opcode == "txq" {
		q, ok := takeOne(m, txqNames)
		if !ok || len(ops) != 2 || ops[1].Kind != ptx.OpAddress {
			l.errorf(pi.Pos, "txq needs a query (.width, .height, .depth, ...) and operands d, [texture]")
			return false
		}
		in.Op, in.Imm = OpTxq, q
		in.D = l.dst(ops[0])
		in.A = l.texHandle(ops[1])
		return true
	}
	comp := int64(-1)
	if pi.Opcode == "tld4" {
		c, ok := takeOne(m, map[string]uint64{".r": 0, ".g": 1, ".b": 2, ".a": 3})
		if !ok {
			l.errorf(pi.Pos, "tld4 needs a component (.r, .g, .b, .a)")
			return false
		}
		comp = int64(c)
	}
	g, ok := takeOne(m, geomNames)
	if !ok {
		l.errorf(pi.Pos, "%s: unsupported or missing geometry (1d, 2d, 3d, a1d, a2d are supported)", pi.Opcode)
		return false
	}
	if m.vec != 4 || len(m.types) != 2 {
		l.errorf(pi.Pos, "%s needs .v4 and a destination and coordinate type", pi.Opcode)
		return false
	}
	if len(ops) != 2 || ops[0].Kind != ptx.OpVector || len(ops[0].Elems) != 4 || ops[1].Kind != ptx.OpAddress ||
		len(ops[1].Elems) != 1 || ops[1].Elems[0].Kind != ptx.OpVector {
		l.errorf(pi.Pos, "%s takes {d0, d1, d2, d3}, [texture, {coordinates}] (offsets and depth compares are not supported)", pi.Opcode)
		return false
	}
	in.Op, in.Imm = OpTex, g
	in.T, in.T2 = m.types[0], m.types[1]
	in.Off = comp
	for i, e := range ops[0].Elems {
		in.V[i] = l.dst(e)
	}
	in.A = l.texHandle(ops[1])
	coords := ops[1].Elems[0].Elems
	for i := range in.W {
		in.W[i] = NoReg
	}
	for i, e := range coords {
		if i >= 4 {
			break
		}
		t := in.T2
		if i == 0 && (g == geomA1D || g == geomA2D) {
			t = S32 // the array index
		}
		in.W[i] = l.src(e, t)
	}
	return true
}

func (l *fnLower) texHandle(o *ptx.Operand) int32 {
	if o.Name == "" || o.Int != 0 {
		l.errorf(o.Pos, "a texture operand must be a register holding a texture object")
		return 0
	}
	r, ok := l.reg(o.Name)
	if !ok || r.pred {
		l.errorf(o.Pos, "%s is not a register holding a texture object (texture references are not supported)", o.Name)
		return 0
	}
	return r.off
}

// execTex performs tex and tld4 for the lanes of exec.
func (w *Warp) execTex(in *Inst, f *frame, exec uint32, pc int32) error {
	dev := w.cta.launch.Module.dev
	h := f.r(in.A)
	acc := &w.acc
	acc.Space, acc.Kind, acc.Size, acc.Mask = memspace.Texture, memspace.Load, 16, exec
	intCoords := !in.T2.Float()
	for x := exec; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x) & 31
		t := dev.texture(h[l])
		if t == nil {
			return w.fault(f, pc, l, fmt.Sprintf("%#x is not a texture object of this device", h[l]))
		}
		var c [3]float64
		geom := int(in.Imm)
		first := 0
		if geom == geomA1D || geom == geomA2D {
			first = 1 // layered textures: the layer index is ignored (single layer)
		}
		for i := 0; i < 3 && first+i < 4; i++ {
			r := in.W[first+i]
			if r == NoReg {
				break
			}
			v := f.r(r)[l]
			if intCoords {
				c[i] = float64(int32(v))
			} else {
				c[i] = float64(math.Float32frombits(uint32(v)))
			}
		}
		res := t.sample(c, intCoords, int(in.Off))
		for i := 0; i < 4; i++ {
			f.r(in.V[i])[l] = uint64(res[i])
		}
		acc.Addr[l] = t.Base
	}
	if o := w.view.Observer; o != nil {
		o.Observe(acc)
	}
	return nil
}

// execTxq answers texture queries.
func (w *Warp) execTxq(in *Inst, f *frame, exec uint32, pc int32) error {
	dev := w.cta.launch.Module.dev
	h, d := f.r(in.A), f.r(in.D)
	for x := exec; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x) & 31
		t := dev.texture(h[l])
		if t == nil {
			return w.fault(f, pc, l, fmt.Sprintf("%#x is not a texture object of this device", h[l]))
		}
		var v uint64
		switch in.Imm {
		case 0, 1, 2:
			v = uint64(t.dims[in.Imm])
		case 3:
			if t.Normalized {
				v = 1
			}
		case 4:
			if t.FilterLin {
				v = 1
			}
		case 5, 6, 7:
			v = uint64(t.Address)
		case 8, 9:
			v = 1
		}
		d[l] = v
	}
	return nil
}
