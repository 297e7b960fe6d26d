package vm

import "github.com/ptxvm/ptxvm/vm/internal/fpu"

// mma.sync.aligned.m16n8k16 / m16n8k8 .row.col.f32.f16.f16.f32: D = A*B + C
// for one 16x8 tile per warp, A 16xk (row), B kx8 (col), the fragments of
// the PTX ISA ("Matrix Fragments for mma.m16n8k16 / mma.m16n8k8 with
// floating point type"). With g = lane>>2 and q = lane&3, lane holds
//
//	A (k16)  a0: A[g][2q..2q+1]  a1: A[g+8][2q..]  a2: A[g][2q+8..]  a3: A[g+8][2q+8..]
//	A (k8)   a0: A[g][2q..2q+1]  a1: A[g+8][2q..]
//	B (k16)  b0: B[2q..2q+1][g]  b1: B[2q+8..2q+9][g]
//	B (k8)   b0: B[2q..2q+1][g]
//	C, D     c0: C[g][2q]  c1: C[g][2q+1]  c2: C[g+8][2q]  c3: C[g+8][2q+1]
//
// (two f16 per register, the lower-numbered column or row in the low half).
// Each element of D is fpu.DotF16F32 of a row of A, a column of B and the
// element of C: the tensor core's arithmetic as measured on the H100/H200
// (bit-exact on the recorded m16n8k16 vectors; m16n8k8 is the same
// arithmetic over 8 products, not recorded).
//
// The instruction is .sync.aligned: every lane of the warp must execute it
// (a fault otherwise, as for ldmatrix).

// execMma executes an OpMma for the whole warp.
func (w *Warp) execMma(in *Inst, f *frame, exec uint32, pc int32) error {
	if err := w.matrixLanes(in, f, exec, pc); err != nil {
		return err
	}
	dr, ar, br, cr := in.MmaRegs(f.fn)
	k := in.MmaK()
	var (
		A [16][16]uint16 // rows of A
		B [8][16]uint16  // columns of B
		C [16][8]uint32
	)
	for i, r := range ar {
		v := f.r(r)
		row, col := 8*(i&1), 8*(i>>1)
		for t := 0; t < 32; t++ {
			g, q := t>>2, t&3
			x := v[t]
			A[g+row][2*q+col], A[g+row][2*q+col+1] = uint16(x), uint16(x>>16)
		}
	}
	for i, r := range br {
		v := f.r(r)
		for t := 0; t < 32; t++ {
			g, q := t>>2, t&3
			x := v[t]
			B[g][2*q+8*i], B[g][2*q+8*i+1] = uint16(x), uint16(x>>16)
		}
	}
	for i, r := range cr {
		v := f.r(r)
		row, col := 8*(i>>1), i&1
		for t := 0; t < 32; t++ {
			C[t>>2+row][2*(t&3)+col] = uint32(v[t])
		}
	}
	for i, r := range dr { // after every source is read: D may name A, B or C registers
		d := f.r(r)
		row, col := 8*(i>>1), i&1
		for t := 0; t < 32; t++ {
			g, j := t>>2+row, 2*(t&3)+col
			d[t] = uint64(fpu.DotF16F32(A[g][:k], B[j][:k], C[g][j]))
		}
	}
	return nil
}
