package vm

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/ptxvm/ptxvm/memspace"
)

// ldmatrix, stmatrix and movmatrix (.m8n8 .b16), with the fragment layout
// of the PTX ISA: matrix i's row r (eight 16-bit elements, 16 bytes) is at
// the address lane 8i+r supplies; lane t holds, in register i, the
// elements (t/4, 2(t%4)) and (t/4, 2(t%4)+1) of matrix i, the first in the
// low half. With .trans the fragment is of the transposed matrix: lane t
// holds the elements (2(t%4), t/4) and (2(t%4)+1, t/4) of what memory holds.
//
// They are .sync.aligned: the whole warp executes them together; a lane
// that does not (a guard, a branch, an exited or missing lane) makes the
// result undefined in the ISA, and a fault here.

// matrixLanes checks that the whole warp executes a matrix instruction.
func (w *Warp) matrixLanes(in *Inst, f *frame, exec uint32, pc int32) error {
	if exec == ^uint32(0) {
		return nil
	}
	l := bits.TrailingZeros32(^exec)
	return w.fault(f, pc, l, fmt.Sprintf("%s is .sync.aligned: every lane of the warp must execute it (lane %d does not)", in.Op, l))
}

// matrixRows checks the row addresses of the lanes of need (in acc.Addr)
// and returns the rows' bytes, 16 per lane, for reading or writing.
func (w *Warp) matrixRows(in *Inst, f *frame, need uint32, pc int32, rows *[32][]byte) error {
	acc := w.acc
	for x := need; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x) & 31
		a := acc.Addr[l]
		if in.Space == memspace.Generic {
			if sp, _ := memspace.ResolveGeneric(a); sp != memspace.Shared {
				return w.fault(f, pc, l, fmt.Sprintf("%s: generic address %#x is not in shared memory", in.Op, a))
			}
		}
		b, mf := w.view.Bytes(in.Space, a, 16, l)
		if mf != nil {
			return w.fault(f, pc, l, fmt.Sprintf("%s row of 16 bytes at %s address %#x: %s", in.Op, mf.Space, mf.Addr, mf.Reason))
		}
		rows[l] = b
	}
	return nil
}

// matrixObserve hands the rows' accesses to the observer.
func (w *Warp) matrixObserve(in *Inst, f *frame, need uint32, pc int32, kind memspace.Kind) {
	if !w.watch {
		return
	}
	acc := w.acc
	acc.Space, acc.Kind, acc.Size, acc.Mask = in.Space, kind, 16, need
	w.observe(f, pc, false)
}

// rowLanes is the mask of the lanes that supply row addresses for n matrices.
func rowLanes(n uint8) uint32 { return uint32(uint64(1)<<(8*uint(n)) - 1) }

// execLdmatrix loads in.Vec 8x8 matrices of 16-bit elements.
func (w *Warp) execLdmatrix(in *Inst, f *frame, exec uint32, pc int32) error {
	if err := w.matrixLanes(in, f, exec, pc); err != nil {
		return err
	}
	need := rowLanes(in.Vec)
	w.addresses(in, f, need)
	var rows [32][]byte
	if err := w.matrixRows(in, f, need, pc, &rows); err != nil {
		return err
	}
	trans := in.Flags&FTrans != 0
	for i := 0; i < int(in.Vec); i++ {
		d := f.r(in.V[i])
		m := rows[8*i : 8*i+8]
		for t := 0; t < 32; t++ {
			g, q := t>>2, t&3
			var lo, hi uint16
			if trans {
				lo = binary.LittleEndian.Uint16(m[2*q][2*g:])
				hi = binary.LittleEndian.Uint16(m[2*q+1][2*g:])
			} else {
				lo = binary.LittleEndian.Uint16(m[g][4*q:])
				hi = binary.LittleEndian.Uint16(m[g][4*q+2:])
			}
			d[t] = uint64(lo) | uint64(hi)<<16
		}
	}
	w.matrixObserve(in, f, need, pc, memspace.Load)
	return nil
}

// execStmatrix stores in.Vec 8x8 matrices of 16-bit elements.
func (w *Warp) execStmatrix(in *Inst, f *frame, exec uint32, pc int32) error {
	if err := w.matrixLanes(in, f, exec, pc); err != nil {
		return err
	}
	need := rowLanes(in.Vec)
	w.addresses(in, f, need)
	var rows [32][]byte
	if err := w.matrixRows(in, f, need, pc, &rows); err != nil {
		return err
	}
	trans := in.Flags&FTrans != 0
	for i := 0; i < int(in.Vec); i++ {
		s := f.r(in.V[i])
		m := rows[8*i : 8*i+8]
		for t := 0; t < 32; t++ {
			g, q := t>>2, t&3
			lo, hi := uint16(s[t]), uint16(s[t]>>16)
			if trans {
				binary.LittleEndian.PutUint16(m[2*q][2*g:], lo)
				binary.LittleEndian.PutUint16(m[2*q+1][2*g:], hi)
			} else {
				binary.LittleEndian.PutUint16(m[g][4*q:], lo)
				binary.LittleEndian.PutUint16(m[g][4*q+2:], hi)
			}
		}
	}
	w.matrixObserve(in, f, need, pc, memspace.Store)
	return nil
}

// execMovmatrix transposes the 8x8 matrix of 16-bit elements the warp's
// registers A hold into D, in the same fragment layout.
func (w *Warp) execMovmatrix(in *Inst, f *frame, exec uint32, pc int32) error {
	if err := w.matrixLanes(in, f, exec, pc); err != nil {
		return err
	}
	a := *f.r(in.A) // D may be A
	d := f.r(in.D)
	for t := 0; t < 32; t++ {
		g, q := t>>2, t&3
		var v uint64
		for j := 0; j < 2; j++ {
			// D(g, 2q+j) = A(2q+j, g): held by lane 4(2q+j) + g/2, half g%2.
			src := a[4*(2*q+j)+g>>1]
			v |= (src >> (16 * uint(g&1)) & 0xffff) << (16 * uint(j))
		}
		d[t] = v
	}
	return nil
}
