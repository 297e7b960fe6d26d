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
	acc := &w.acc
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
		geom := int(in.Imm)
		first := 0
		var layer int64
		if geom == geomA1D || geom == geomA2D {
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
		res := t.sampleLayer(c, layer, intCoords, int(in.Off), fp)
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
		w.observe(f, pc)
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
		case txqLevel, txqLevel | 1, txqLevel | 2:
			// Without mipmaps, the extent a level of that number would have.
			lod := min(uint32(f.r(in.B)[l]), 31)
			v = uint64(max(1, t.dims[in.Imm&3]>>lod))
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
		case txqArraySize:
			v = uint64(t.Layers)
		case txqChannelDataType:
			v = clDataType(t.Format, t.ReadNorm)
		case txqChannelOrder:
			v = clOrder(t.Channels)
		}
		d[l] = v
	}
	return nil
}
