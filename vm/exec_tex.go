package vm

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/ptxvm/ptxvm/memspace"
)

// execTex performs tex and tld4 for the lanes of exec. While accesses are
// watched, each lane's texels go to the SM's footprint buffer (Access.Tex);
// TexelSize and Linear are those of the first executing lane's texture when
// lanes fetch from textures of different formats.
func (w *Warp) execTex(in *Inst, f *frame, exec uint32, pc int32) error {
	dev := w.cta.launch.Module.dev
	h := f.r(in.A)
	acc := w.acc
	acc.Space, acc.Kind, acc.Size, acc.Mask = memspace.Texture, memspace.Load, 16, exec
	acc.Surface = false
	intCoords := !in.T2.Float()
	if w.watch {
		w.cta.sm.tex.TexelSize = 0
		w.cta.sm.tex.Linear = false
	}
	for x := exec; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x) & 31
		t := dev.texture(h[l])
		if t == nil {
			return w.fault(f, pc, l, fmt.Sprintf("%#x is not a texture object of this device", h[l]))
		}
		var c [3]float64
		geom := int(in.Imm & 0xff)
		first := 0
		var layer int64
		if geom == geomA1D || geom == geomA2D || geom == geomACube {
			first = 1 // layered textures: the layer index first
			layer = int64(int32(f.r(in.W[0])[l]))
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
		var fp *texels
		if w.watch {
			tf := &w.cta.sm.tex
			fp = &texels{addr: &tf.Addr[l]}
		}
		var res [4]uint32
		switch {
		case geom == geomCube || geom == geomACube:
			if !t.Cube {
				return w.fault(f, pc, l, "tex/tld4 .cube or .acube on a texture that is not a cube map")
			}
			face, u, v := cubeFace(float32(c[0]), float32(c[1]), float32(c[2]))
			layer = int64(min(uint64(uint32(layer)), uint64(t.layers/6-1)))*6 + int64(face)
			var L int
			if in.Imm&texGrad != 0 {
				L = t.cubeGradLOD(c, in, f, l)
			} else {
				L = t.texLOD(in, f, l, c)
			}
			res = t.sampleLOD([3]float64{u, v}, layer, L, int(in.Off), fp)
		case t.Cube:
			return w.fault(f, pc, l, "a cube map is read with tex/tld4 .cube or .acube only")
		case in.Imm&(texLevel|texGrad) != 0 || len(t.levels) > 1 && !intCoords:
			// (tex.level and tex.grad take .f32 coordinates only; a plain
			// tex with integer coordinates reads level 0's texels, as
			// before mipmaps: not recorded on a mipmapped texture.)
			res = t.sampleLOD(c, layer, t.texLOD(in, f, l, c), int(in.Off), fp)
		default:
			res = t.sampleLayer(c, layer, intCoords, int(in.Off), fp)
		}
		for i := 0; i < 4; i++ {
			f.r(in.V[i])[l] = uint64(res[i])
		}
		if fp != nil {
			tf := &w.cta.sm.tex
			tf.Count[l] = fp.n
			if tf.TexelSize == 0 {
				tf.TexelSize = uint8(t.esz * t.Channels)
				tf.Linear = t.Linear
			}
			acc.Addr[l] = t.Base
			if fp.n > 0 {
				acc.Addr[l] = tf.Addr[l][0]
			}
		}
	}
	if w.watch {
		acc.Tex = &w.cta.sm.tex
		w.observe(f, pc, false)
	}
	return nil
}

// texLOD is the fixed-point level of detail of lane l's fetch: tex.level's
// operand, tex.grad's gradients, or 0 (a plain tex of a mipmapped texture
// samples level 0: no derivatives outside fragment shaders).
func (t *Texture) texLOD(in *Inst, f *frame, l int, c [3]float64) int {
	switch in.Imm & (texLevel | texGrad) {
	case texLevel:
		return t.lodFixed(float64(math.Float32frombits(uint32(f.r(in.B)[l]))))
	case texGrad:
		regs := in.RegList(f.fn)
		var g [6]float32
		for i, r := range regs {
			g[i] = math.Float32frombits(uint32(f.r(r)[l]))
		}
		n := len(regs) / 2
		return t.gradLOD(g[:n], g[n:2*n], c)
	}
	return t.lodFixed(0)
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
		if in.Imm&txqLevel != 0 {
			v = t.extent(int(in.Imm&3), int64(int32(f.r(in.B)[l])))
		} else {
			v = t.extent(int(in.Imm), 0) // the lowering refuses the other queries, as the GPU does
		}
		d[l] = v
	}
	return nil
}
