package vm

import "github.com/ptxvm/ptxvm/vm/internal/fpu"

// mma.sync.aligned (lower_mma.go): D = A*B + C for one tile per warp, A
// Mxk (row), B kxN (col), with the fragments of the PTX ISA ("Matrix
// Fragments for mma.m16n8k*", "mma.m8n8k4 with .f64"). With g = lane>>2
// and q = lane&3 and e elements per 32-bit register (2 for f16/bf16, 1 for
// tf32, 4 for s8; the lower-numbered column or row in the low bits), lane
// holds
//
//	A reg i, element s: A[g + 8*(i&1)][e*q + s + 4e*(i>>1)]
//	B reg i, element s: B[e*q + s + 4e*i][g]
//	C, D (f32, s32) reg i: C[g + 8*(i>>1)][2q + (i&1)]
//	C, D (f16) reg i, element s: C[g + 8i][2q + s]
//	.f64 (m8n8k4): A[g][q], B[q][g], C reg i: C[g][2q + i]
//
// Each element of D is one dot product of a row of A, a column of B and
// the element of C with the tensor core's arithmetic as measured on the
// H100/H200 (fpu.DotF32, DotF16F16, DotS8S32, DotF64; docs/semantics.md,
// "Tensor cores"). The register lists are checked at load; execMma does
// not allocate.
//
// The instruction is .sync.aligned: every lane of the warp must execute it
// (a fault otherwise, as for ldmatrix).

// execMma executes an OpMma for the whole warp.
func (w *Warp) execMma(in *Inst, f *frame, exec uint32, pc int32) error {
	if err := w.matrixLanes(in, f, exec, pc); err != nil {
		return err
	}
	if in.MmaExt() {
		w.execMmaExt(in, f)
		return nil
	}
	dr, ar, br, cr := in.MmaRegs(f.fn)
	if in.T2 == F64 {
		w.execMmaF64(f, dr, ar, br, cr)
		return nil
	}
	k := min(in.MmaK(), 32)
	e, width := 2, uint(16) // elements per register, their bits
	switch in.T2 {
	case TF32:
		e, width = 1, 32
	case S8:
		e, width = 4, 8
	}
	mask := uint64(1)<<width - 1
	var (
		A [16][32]uint32 // rows of A
		B [8][32]uint32  // columns of B
		C [16][8]uint32
	)
	for i, r := range ar {
		v := f.r(r)
		row, col := 8*(i&1), 4*e*(i>>1)
		for t := 0; t < 32; t++ {
			g, q := t>>2, t&3
			x := v[t]
			for s := 0; s < e; s++ {
				A[g+row][(e*q+s+col)&31] = uint32(x >> (width * uint(s)) & mask)
			}
		}
	}
	for i, r := range br {
		v := f.r(r)
		for t := 0; t < 32; t++ {
			g, q := t>>2, t&3
			x := v[t]
			for s := 0; s < e; s++ {
				B[g][(e*q+s+4*e*i)&31] = uint32(x >> (width * uint(s)) & mask)
			}
		}
	}
	half := in.T == F16
	for i, r := range cr {
		v := f.r(r)
		for t := 0; t < 32; t++ {
			g, q := t>>2, t&3
			if half {
				C[g+8*(i&1)][2*q], C[g+8*(i&1)][2*q+1] = uint32(v[t]&0xffff), uint32(v[t]>>16&0xffff)
			} else {
				C[g+8*(i>>1)][2*q+(i&1)] = uint32(v[t])
			}
		}
	}
	var fin fpu.MmaIn
	switch in.T2 {
	case BF16:
		fin = fpu.MmaBF16
	case TF32:
		fin = fpu.MmaTF32
	}
	sat := in.Flags&FSatFinite != 0
	// The f32-accumulator forms: each element of A enters 8 dot products
	// and each of B 16, so they are decoded once (fpu.DotF32Terms).
	terms := in.T != S32 && !half && k <= 16
	var TA [16][16]fpu.TcTerm
	var TB [8][16]fpu.TcTerm
	if terms {
		for g := range A {
			fpu.DecodeTcRow(fin, TA[g][:k], A[g][:])
		}
		for j := range B {
			fpu.DecodeTcRow(fin, TB[j][:k], B[j][:])
		}
	}
	dot := func(g, j int) uint32 {
		switch {
		case in.T == S32:
			return fpu.DotS8S32(A[g][:k], B[j][:k], C[g][j], sat)
		case half:
			return uint32(fpu.DotF16F16(A[g][:k], B[j][:k], uint16(C[g][j])))
		case terms:
			return fpu.DotF32Terms(fin, TA[g][:k], TB[j][:k], A[g][:k], B[j][:k], C[g][j])
		}
		return fpu.DotF32(fin, A[g][:k], B[j][:k], C[g][j])
	}
	for i, r := range dr { // after every source is read: D may name A, B or C registers
		d := f.r(r)
		for t := 0; t < 32; t++ {
			g, q := t>>2, t&3
			if half {
				row := g + 8*(i&1)
				d[t] = uint64(dot(row, 2*q)) | uint64(dot(row, 2*q+1))<<16
			} else {
				d[t] = uint64(dot(g+8*(i>>1), 2*q+(i&1)))
			}
		}
	}
	return nil
}

// execMmaF64 is mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64.
func (w *Warp) execMmaF64(f *frame, dr, ar, br, cr []int32) {
	if len(ar) != 1 || len(br) != 1 || len(cr) != 2 || len(dr) != 2 {
		return
	}
	var (
		A, B [8][4]uint64 // rows of A, columns of B
		C    [8][8]uint64
	)
	av, bv := f.r(ar[0]), f.r(br[0])
	for t := 0; t < 32; t++ {
		g, q := t>>2, t&3
		A[g][q], B[g][q] = av[t], bv[t]
	}
	for i, r := range cr {
		v := f.r(r)
		for t := 0; t < 32; t++ {
			C[t>>2][2*(t&3)+i] = v[t]
		}
	}
	for i, r := range dr {
		d := f.r(r)
		for t := 0; t < 32; t++ {
			g, j := t>>2, 2*(t&3)+i
			d[t] = fpu.DotF64(A[g][:], B[j][:], C[g][j])
		}
	}
}
