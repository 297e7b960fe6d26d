package vm

import (
	"encoding/binary"
	"fmt"

	"github.com/ptxvm/ptxvm/vm/internal/fpu"
)

// wmma .m16n16k16, f16 multiplicands, f32 accumulator (lower_wmma.go). The
// fragments, as wmma.load gives them on the H100/H200 (recorded:
// testdata/conformance/issue24/mma_vectors2, wmma_*_dump, the same for
// every layout), with g = lane>>2 and q = lane&3:
//
//	A reg i (f16x2), element s: A[g + 8*(i&1)][2q + s + 8*((i>>1)&1)]
//	B reg i (f16x2), element s: B[2q + s + 8*(i&1)][g + 8*((i>>1)&1)]
//	C, D reg i (f32):           C[g + 8*((i>>1)&1)][2q + (i&1) + 8*(i>>2)]
//
// so registers 4-7 of A and B repeat 0-3 (wmma.mma reads 0-3). Each
// element of D is fpu.DotF32 (f16) of a row of A, a column of B and the
// element of C: the sixteen products in one sum, as mma.m16n8k16 does
// (every recorded wmma element matches it). Addresses: element (r, c) of
// a .row matrix is at p + (r*stride + c)*size, of a .col one at
// p + (c*stride + r)*size; the stride is in elements, 16 when absent.

// wmmaPos is the (row, column) that register i, element s of lane t holds
// in matrix kind (0 a, 1 b, 2 c/d).
func wmmaPos(kind uint64, t, i, s int) (int, int) {
	g, q := t>>2, t&3
	switch kind {
	case 0:
		return g + 8*(i&1), 2*q + s + 8*(i>>1&1)
	case 1:
		return 2*q + s + 8*(i&1), g + 8*(i>>1&1)
	}
	return g + 8*(i>>1&1), 2*q + i&1 + 8*(i>>2)
}

// wmmaAccess loads or stores one lane's fragment.
func (w *Warp) wmmaAccess(in *Inst, f *frame, pc int32, regs []int32, load bool) error {
	kind := min(in.Imm, 2)
	esz := uint64(4)
	per := 1
	if kind < 2 {
		esz, per = 2, 2
	}
	col := in.Flags&FTrans != 0
	for t := 0; t < 32; t++ {
		stride := uint64(16)
		if in.B != NoReg {
			stride = uint64(uint32(f.r(in.B)[t]))
		}
		base := w.acc.Addr[t]
		for i, r := range regs {
			v := f.r(r)
			var word uint64
			for s := 0; s < per; s++ {
				row, c := wmmaPos(kind, t, i, s)
				if col {
					row, c = c, row
				}
				a := base + (uint64(row)*stride+uint64(c))*esz
				b, mf := w.view.Bytes(in.Space, a, esz, t)
				if mf != nil {
					return w.fault(f, pc, t, fmt.Sprintf("wmma element of %d bytes at %s address %#x: %s", esz, mf.Space, mf.Addr, mf.Reason))
				}
				switch {
				case load && esz == 2:
					word |= uint64(binary.LittleEndian.Uint16(b)) << (16 * uint(s))
				case load:
					word = uint64(binary.LittleEndian.Uint32(b))
				default:
					binary.LittleEndian.PutUint32(b, uint32(v[t]))
				}
			}
			if load {
				v[t] = word
			}
		}
	}
	return nil
}

// execWmmaLoad executes wmma.load.a/b/c.
func (w *Warp) execWmmaLoad(in *Inst, f *frame, exec uint32, pc int32) error {
	if err := w.matrixLanes(in, f, exec, pc); err != nil {
		return err
	}
	w.addresses(in, f, exec)
	return w.wmmaAccess(in, f, pc, in.RegList(f.fn), true)
}

// execWmmaStore executes wmma.store.d.
func (w *Warp) execWmmaStore(in *Inst, f *frame, exec uint32, pc int32) error {
	if err := w.matrixLanes(in, f, exec, pc); err != nil {
		return err
	}
	w.addresses(in, f, exec)
	return w.wmmaAccess(in, f, pc, in.RegList(f.fn), false)
}

// execWmmaMma executes wmma.mma.sync.aligned.*.m16n16k16.f32.f32.
func (w *Warp) execWmmaMma(in *Inst, f *frame, exec uint32, pc int32) error {
	if err := w.matrixLanes(in, f, exec, pc); err != nil {
		return err
	}
	l := in.RegList(f.fn)
	if len(l) != 32 {
		return nil
	}
	var (
		A [16][16]uint32 // rows of A
		B [16][16]uint32 // columns of B
		C [16][16]uint32
	)
	for i := 0; i < 4; i++ {
		av, bv := f.r(l[8+i]), f.r(l[16+i])
		for t := 0; t < 32; t++ {
			for s := 0; s < 2; s++ {
				r, c := wmmaPos(0, t, i, s)
				A[r][c] = uint32(av[t]>>(16*uint(s))) & 0xffff
				k, n := wmmaPos(1, t, i, s)
				B[n][k] = uint32(bv[t]>>(16*uint(s))) & 0xffff
			}
		}
	}
	for i := 0; i < 8; i++ {
		cv := f.r(l[24+i])
		for t := 0; t < 32; t++ {
			r, c := wmmaPos(2, t, i, 0)
			C[r][c] = uint32(cv[t])
		}
	}
	for i := 0; i < 8; i++ { // after every source is read
		d := f.r(l[i])
		for t := 0; t < 32; t++ {
			r, c := wmmaPos(2, t, i, 0)
			d[t] = uint64(fpu.DotF32(fpu.MmaF16, A[r][:], B[c][:], C[r][c]))
		}
	}
	return nil
}
