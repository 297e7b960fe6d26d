package vm

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/vm/internal/fpu"
)

// surfAddr resolves lane l's coordinates of a surface instruction to the
// device address of its size bytes. ok is false for an access the .zero
// mode drops; a .trap access out of range returns a message.
func (s *Surface) addr(in *Inst, f *frame, l int, size int) (addr uint64, ok bool, msg string) {
	var c [4]int64 // x (bytes), y, z, layer
	w := in.W
	switch in.SurfGeom() {
	case geomA1D:
		c[3], c[0] = int64(uint32(f.r(w[0])[l])), int64(int32(f.r(w[1])[l]))
	case geomA2D:
		c[3], c[0], c[1] = int64(uint32(f.r(w[0])[l])), int64(int32(f.r(w[1])[l])), int64(int32(f.r(w[2])[l]))
	default:
		for i := 0; i < 3 && w[i] != NoReg; i++ {
			c[i] = int64(int32(f.r(w[i])[l]))
		}
	}
	if in.SurfFormatted() {
		c[0] *= int64(s.elem)
	}
	if c[0]%int64(size) != 0 {
		// Recorded on the H200: an unaligned byte x stops the launch with
		// cudaErrorMisalignedAddress, in every boundary mode (whether the
		// check comes before the range check was not told apart).
		return 0, false, fmt.Sprintf("misaligned surface access: x = %d bytes is not a multiple of the %d-byte access (the GPU stops the launch: misaligned address)", c[0], size)
	}
	row := int64(s.dims[0] * s.elem)
	lim := [4]int64{row - int64(size), int64(s.dims[1]) - 1, int64(s.dims[2]) - 1, int64(s.layers) - 1}
	for i, v := range c {
		if v >= 0 && v <= lim[i] {
			continue
		}
		switch in.SurfMode() {
		case SurfZero:
			return 0, false, ""
		case SurfClamp:
			c[i] = min(max(v, 0), lim[i])
		default:
			what := [4]string{"x (bytes)", "y", "z", "layer"}[i]
			return 0, false, fmt.Sprintf("surface access out of range (.trap): %s = %d, the surface's %v × %d layer(s) of %d-byte elements allow 0 to %d", what, v, s.Dims, s.layers, s.elem, lim[i])
		}
	}
	return s.Base + uint64(c[3])*s.pitch[2] + uint64(c[2])*s.pitch[1] + uint64(c[1])*s.pitch[0] + uint64(c[0]), true, ""
}

// surfBytes returns the n bytes at addr for lane l.
func (w *Warp) surfBytes(addr uint64, n int, l int, write bool) ([]byte, *memspace.Fault) {
	if write {
		return w.view.Bytes(memspace.Global, addr, uint64(n), l)
	}
	return w.view.Read(memspace.Global, addr, uint64(n), l)
}

// execSurf performs suld, sust and sured for the lanes of exec.
func (w *Warp) execSurf(in *Inst, f *frame, exec uint32, pc int32) error {
	dev := w.cta.launch.Module.dev
	h := f.r(in.A)
	acc := w.acc
	acc.Space, acc.Surface, acc.Tex, acc.Values = memspace.Texture, true, nil, nil
	esz := in.T.Size()
	n := int(in.Vec)
	size := esz * n
	switch in.Op {
	case OpSuld:
		acc.Kind = memspace.Load
	case OpSust:
		acc.Kind = memspace.Store
	default:
		acc.Kind = memspace.Reduction
		n, size = 1, esz
	}
	var mask uint32
	for x := exec; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x) & 31
		s := dev.surface(h[l])
		if s == nil {
			return w.fault(f, pc, l, fmt.Sprintf("%#x is not a surface object of this device", h[l]))
		}
		if in.SurfFormatted() && in.Op == OpSust {
			size = s.elem // sust.p writes one element; sured.p its value's bytes
		}
		a, ok, msg := s.addr(in, f, l, size)
		if msg != "" {
			return w.fault(f, pc, l, msg)
		}
		if !ok {
			if in.Op == OpSuld {
				for e := 0; e < n; e++ {
					f.r(in.V[e])[l] = 0
				}
			}
			continue
		}
		mask |= 1 << l
		acc.Addr[l] = a
		mem, mf := w.surfBytes(a, size, l, in.Op != OpSuld)
		if mf != nil {
			return w.fault(f, pc, l, fmt.Sprintf("surface access of %d bytes at %#x: %s", size, mf.Addr, mf.Reason))
		}
		switch {
		case in.Op == OpSuld:
			for e := 0; e < n; e++ {
				f.r(in.V[e])[l] = readLE(mem[e*esz:], esz)
			}
		case in.Op == OpSust && in.SurfFormatted():
			s.storeFormatted(mem, f, in, l)
		case in.Op == OpSust:
			for e := 0; e < n; e++ {
				writeLE(mem[e*esz:], esz, f.r(in.V[e])[l])
			}
		default:
			mu := w.view.Global.Lock(a)
			mu.Lock()
			red := Inst{T: in.T, Imm: in.Imm >> 24}
			writeLE(mem, esz, atomApply(&red, memspace.Global, readLE(mem, esz), f.r(in.B)[l], 0))
			mu.Unlock()
		}
	}
	acc.Mask, acc.Size = mask, uint8(size)
	if w.watch && mask != 0 {
		w.observe(f, pc, false)
	}
	return nil
}

// storeFormatted writes sust.p's values (R, G, B, A) to the element at
// mem, converted to the surface's format: .f32 values for float formats,
// .u32/.s32 for integer ones (saturated to the channel's range).
// Channels the instruction does not supply are left as they are.
func (s *Surface) storeFormatted(mem []byte, f *frame, in *Inst, l int) {
	for c := 0; c < s.Channels && c < int(in.Vec); c++ {
		v := uint32(f.r(in.V[c])[l])
		var raw uint64
		switch s.Format {
		case "f32":
			raw = uint64(v)
		case "f16":
			raw = uint64(sustF16(v))
		case "u8", "u16", "u32", "u64":
			if s.Normalized {
				raw = unorm8(math.Float32frombits(v))
				break
			}
			raw = min(uint64(v), uint64(1)<<(8*s.esz)-1)
		default:
			lo, hi := -int64(1)<<(8*s.esz-1), int64(1)<<(8*s.esz-1)-1
			raw = uint64(min(max(int64(int32(v)), lo), hi))
		}
		writeLE(mem[c*s.esz:], s.esz, raw)
	}
}

// sustF16 is sust.p's conversion of an f32 to an f16 channel, as the GPU
// does it (recorded on the H200): rounded toward zero, so that overflow
// saturates to the largest finite half; infinities stay infinite and a NaN
// keeps its sign and the top bits of its payload, quieted (0x7fc00001 gives
// 0x7e00).
func sustF16(v uint32) uint16 {
	if v&0x7f800000 == 0x7f800000 && v&0x7fffff != 0 {
		return uint16(v>>16&0x8000 | 0x7e00 | v>>13&0x3ff)
	}
	return fpu.F32ToF16(v, fpu.RZ, false, false)
}

// unorm8 is sust.p's conversion of an f32 to an 8-bit unorm channel, as
// recorded on the H200: the value clamped to [0, 1] (NaN: 0), truncated to
// 12 fractional bits, times 255, rounded to nearest with halves down
// (0.5 gives 127; 0.7235870 gives 184).
func unorm8(f float32) uint64 {
	x := float64(f)
	if x != x || x <= 0 {
		return 0
	}
	if x >= 1 {
		return 255
	}
	q := math.Floor(x*4096) * 255 // 4096 · 255 · q
	return uint64(math.Ceil(q/4096 - 0.5))
}

func readLE(b []byte, n int) uint64 {
	var v uint64
	for i := n - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

func writeLE(b []byte, n int, v uint64) {
	for i := 0; i < n; i++ {
		b[i] = byte(v >> (8 * i))
	}
}

// extent is what suq.width/height/depth (dimension i) answer, as recorded:
// the CUDA array's extents, 0 for a dimension it does not have, and the
// layer count in the first unused one (a 1D layered array's height, a 2D
// layered array's depth).
func (s *Surface) extent(i int) uint64 {
	switch {
	case i < s.nd:
		return uint64(s.dims[i])
	case i == s.nd && s.Layers > 0:
		return uint64(s.Layers)
	}
	return 0
}

// execSuq answers surface queries.
func (w *Warp) execSuq(in *Inst, f *frame, exec uint32, pc int32) error {
	dev := w.cta.launch.Module.dev
	h, d := f.r(in.A), f.r(in.D)
	for x := exec; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x) & 31
		s := dev.surface(h[l])
		if s == nil {
			return w.fault(f, pc, l, fmt.Sprintf("%#x is not a surface object of this device", h[l]))
		}
		d[l] = s.extent(int(in.Imm)) // the lowering refuses the other queries, as the GPU does
	}
	return nil
}
