package vm

import (
	"fmt"

	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/vm/internal/fpu"
)

// wgmma.mma_async (lower_wgmma.go): D = A*B + D (scale-d) or A*B, A 64xK,
// B KxN, for a warpgroup of four consecutive warps (warp rank w = warp id
// mod 4 holds rows 16w to 16w+15 of A and D). Each warp computes its own
// rows when it issues the instruction: the rows of A it needs are its own
// registers or shared memory, and B is shared memory; the commit and wait
// have nothing left to do. With g = lane>>2 and q = lane&3:
//
//	D (f32, s32) reg i: D[16w + g + 8*((i>>1)&1)][8*(i>>2) + 2q + (i&1)]
//	D (f16) reg i, half s: D[16w + g + 8*(i&1)][8*(i>>1) + 2q + s]
//	A reg i, element s (e per register): A[16w + g + 8*(i&1)][e*q + s + 4e*(i>>1)]
//
// (the mma.sync m16n8 fragments, repeated over N/8 column blocks), the
// PTX ISA's "Register Fragments" of wgmma.
//
// A matrix in shared memory is given by a 64-bit descriptor (the PTX ISA's
// "Matrix Descriptor Format"): bits 0-13 the start address >> 4, 16-29 the
// leading-dimension byte offset (LBO) >> 4, 32-45 the stride-dimension byte
// offset (SBO) >> 4, 62-63 the swizzle (0 none, 1 128B, 2 64B, 3 32B). With
// e the element size, T = 16/e elements per 16 bytes, W the swizzle's row
// width (32, 64 or 128 bytes) and (mn, k) an element of A (mn: its row) or
// of B (mn: its column), the byte address before the swizzle is, for the
// K-major layout (imm-trans 0):
//
//	no swizzle: start + (mn/8)*SBO + (k/T)*LBO + (mn%8)*16 + (k%T)*e
//	swizzled:   start + (mn/8)*SBO + (mn%8)*W + k*e
//
// and for the MN-major layout (imm-trans 1):
//
//	no swizzle: start + (mn/T)*SBO + (k/8)*LBO + (k%8)*16 + (mn%T)*e
//	swizzled:   start + (mn/(W/e))*LBO + (k/8)*SBO + (k%8)*W + (mn%(W/e))*e
//
// and the swizzle XORs address bits 4-6 (128B; 4-5 for 64B, 4 for 32B)
// with bits 7-9 of the shared address. The arithmetic is mma.sync's
// (fpu.DotF32, DotF16F16; exact integer sums), over K products at once,
// except fp8's: sm_90a's native fp8 tensor instruction keeps fewer bits
// than the f16 one (fpu.DotFP8WG). The .b1 form is popc(a AND b) summed
// over K bits, laid out as the 8-bit k32 forms are (one byte holds 8
// consecutive k).

// wgDesc is a decoded matrix descriptor.
type wgDesc struct {
	start, lbo, sbo uint64
	swz             uint64 // 0 none, else log2(W/16): 3 for 128B, 2 for 64B, 1 for 32B
}

func decodeWgDesc(d uint64) wgDesc {
	s := wgDesc{start: (d & 0x3fff) << 4, lbo: (d >> 16 & 0x3fff) << 4, sbo: (d >> 32 & 0x3fff) << 4}
	switch d >> 62 {
	case 1:
		s.swz = 3
	case 2:
		s.swz = 2
	case 3:
		s.swz = 1
	}
	return s
}

// addr is the shared address of element (mn, k) of e bytes.
func (d *wgDesc) addr(mn, k, e uint64, mnMajor bool) uint64 {
	t := 16 / e
	var a uint64
	switch {
	case d.swz == 0 && !mnMajor:
		a = d.start + mn/8*d.sbo + k/t*d.lbo + mn%8*16 + k%t*e
	case d.swz == 0:
		a = d.start + mn/t*d.sbo + k/8*d.lbo + k%8*16 + mn%t*e
	case !mnMajor:
		a = d.start + mn/8*d.sbo + mn%8*(16<<d.swz) + k*e
	default:
		w := uint64(16) << d.swz
		a = d.start + mn/(w/e)*d.lbo + k/8*d.sbo + k%8*w + mn%(w/e)*e
	}
	if d.swz != 0 {
		a ^= (a >> 7 & (1<<d.swz - 1)) << 4
	}
	return a
}

// wgElemBytes is a multiplicand format's element size.
func wgElemBytes(f uint64) uint64 {
	switch f {
	case wgTF32:
		return 4
	case wgS8, wgU8, wgE4M3, wgE5M2, wgB1:
		return 1
	}
	return 2
}

// execWgmma executes an OpWgmma for one warp of the warpgroup.
func (w *Warp) execWgmma(in *Inst, f *frame, exec uint32, pc int32) error {
	if err := w.matrixLanes(in, f, exec, pc); err != nil {
		return err
	}
	fm := in.Wgmma()
	n, k := fm.N, fm.K
	if fm.A == wgB1 {
		k /= 8 // bytes of 8 single-bit elements, laid out as an 8-bit k32
	}
	list := f.fn.RegLists[in.Target]
	nd := wgmmaDRegs(in.T, n)
	dr := list[:nd]
	wr := uint64(w.id % 4)
	ea, eb := wgElemBytes(fm.A), wgElemBytes(fm.B)
	var (
		A [16][32]uint32  // this warp's rows of A
		B [256][32]uint32 // columns of B
	)
	read := func(desc uint64, mn, kk, e uint64, mnMajor bool) (uint32, error) {
		d := decodeWgDesc(desc)
		a := d.addr(mn, kk, e, mnMajor) | w.view.SharedBase&^0x3ffff
		b, mf := w.view.Read(memspace.Shared, a, e, 0)
		if mf != nil {
			return 0, w.fault(f, pc, 0, fmt.Sprintf("wgmma.mma_async reading shared memory through a descriptor (%#x): %s", desc, mf))
		}
		return uint32(readN(b, e)), nil
	}
	if fm.RS {
		e := int(4 / ea)
		width := uint(8 * ea)
		mask := uint64(1)<<width - 1
		for i, r := range list[nd : nd+4] {
			v := f.r(r)
			row, col := 8*(i&1), 4*e*(i>>1)
			for t := 0; t < 32; t++ {
				g, q := t>>2, t&3
				for s := 0; s < e; s++ {
					A[g+row][(e*q+s+col)&31] = uint32(v[t] >> (width * uint(s)) & mask)
				}
			}
		}
	} else {
		da := f.r(in.A)[0]
		for r := uint64(0); r < 16; r++ {
			for kk := uint64(0); kk < uint64(k); kk++ {
				x, err := read(da, 16*wr+r, kk, ea, fm.TransA)
				if err != nil {
					return err
				}
				A[r][kk] = x
			}
		}
	}
	db := f.r(in.B)[0]
	for c := uint64(0); c < uint64(n); c++ {
		for kk := uint64(0); kk < uint64(k); kk++ {
			x, err := read(db, c, kk, eb, fm.TransB)
			if err != nil {
				return err
			}
			B[c][kk] = x
		}
	}
	neg := func(x uint32, f uint64) uint32 {
		switch f {
		case wgTF32:
			return x ^ 0x80000000
		case wgE4M3, wgE5M2:
			return x ^ 0x80
		}
		return x ^ 0x8000
	}
	if fm.NegA {
		for r := range A {
			for kk := 0; kk < k; kk++ {
				A[r][kk] = neg(A[r][kk], fm.A)
			}
		}
	}
	if fm.NegB {
		for c := 0; c < n; c++ {
			for kk := 0; kk < k; kk++ {
				B[c][kk] = neg(B[c][kk], fm.B)
			}
		}
	}
	scaleD := in.Imm&wgScaleD != 0
	if in.V[0] != NoReg {
		p := f.preds[in.V[0]]
		if in.Flags&FNeg2 != 0 {
			p = ^p
		}
		scaleD = p&1 != 0 // uniform across the warpgroup
	}
	var fin fpu.MmaIn
	switch fm.A {
	case wgBF16:
		fin = fpu.MmaBF16
	case wgTF32:
		fin = fpu.MmaTF32
	}
	// The f32-accumulator forms of f16, bf16 and tf32: each element of A
	// enters n dot products and each of B 16, so they are decoded once
	// (fpu.DotF32Terms).
	terms := in.T == F32 && (fm.A == wgF16 || fm.A == wgBF16 || fm.A == wgTF32) && k <= 16
	var TA [16][16]fpu.TcTerm
	var TB [256][16]fpu.TcTerm
	if terms {
		for r := range A {
			fpu.DecodeTcRow(fin, TA[r][:k], A[r][:])
		}
		for c := 0; c < n; c++ {
			fpu.DecodeTcRow(fin, TB[c][:k], B[c][:])
		}
	}
	dot := func(r, c int, acc uint32) uint32 {
		a, b := A[r][:k], B[c][:k]
		switch {
		case terms:
			if !scaleD {
				acc = 0x80000000
			}
			return fpu.DotF32Terms(fin, TA[r][:k], TB[c][:k], a, b, acc)
		case fm.A == wgB1:
			if !scaleD {
				acc = 0
			}
			return fpu.DotB1(a, b, false, acc)
		case fm.A == wgE4M3 || fm.A == wgE5M2:
			if !scaleD {
				acc = 0x80000000
				if in.T == F16 {
					acc = 0x8000
				}
			}
			return fpu.DotFP8WG(fm.A == wgE5M2, fm.B == wgE5M2, a, b, acc, in.T == F16)
		case in.T == S32:
			if !scaleD {
				acc = 0
			}
			return fpu.DotInt(a, b, fm.A == wgS8, fm.B == wgS8, 8, acc, fm.Sat)
		case in.T == F16:
			if !scaleD {
				acc = 0x8000
			}
			return uint32(fpu.DotF16F16(a, b, uint16(acc)))
		}
		if !scaleD {
			acc = 0x80000000
		}
		return fpu.DotF32(fin, a, b, acc)
	}
	half := in.T == F16
	for i, r := range dr {
		d := f.r(r)
		for t := 0; t < 32; t++ {
			g, q := t>>2, t&3
			if half {
				row, col := g+8*(i&1), 8*(i>>1)+2*q
				lo := dot(row, col, uint32(d[t]&0xffff))
				hi := dot(row, col+1, uint32(d[t]>>16&0xffff))
				d[t] = uint64(lo) | uint64(hi)<<16
			} else {
				d[t] = uint64(dot(g+8*((i>>1)&1), 8*(i>>2)+2*q+(i&1), uint32(d[t])))
			}
		}
	}
	return nil
}
