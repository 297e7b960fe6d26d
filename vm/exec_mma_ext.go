package vm

import "github.com/ptxvm/ptxvm/vm/internal/fpu"

// The extended mma forms (mma_form.go, lower_mma.go): D = A*B + C for one
// tile per warp with the PTX ISA's fragments ("Matrix Fragments for
// mma.m16n8k*", "mma.m8n8k*"). With g = lane>>2, q = lane&3 and e = 32/w
// elements of w bits per register (the lower-numbered one in the low
// bits):
//
//	A reg i, element s: A[g + 8*(i&1)][e*q + s + 4e*(i>>1)]   (M = 8: i = 0)
//	B reg i, element s: B[e*q + s + 4e*i][g]
//	C, D (32-bit) reg i: C[g + 8*(i>>1)][2q + (i&1)]
//	C, D (f16) reg i, element s: C[g + 8i][2q + s]
//
// mma.sp's A holds the compressed M x K/2 matrix in the fragment of a
// dense M x K/2 one; the metadata (mmaSpCol) places each of its elements
// in its row. The single-bit forms keep A's rows and B's columns as
// 32-bit words (the fragment's registers are whole words of them).

// mmaExtMaxK bounds k for the element arrays (b1, up to 256, is kept in
// words).
const mmaExtMaxK = 128

// execMmaExt executes an extended OpMma for the whole warp (the lanes were
// checked by execMma).
func (w *Warp) execMmaExt(in *Inst, f *frame) {
	form := in.MmaForm()
	dr, ar, br, cr := in.MmaRegs(f.fn)
	if dr == nil {
		return
	}
	if form.A == MmaB1 {
		w.execMmaB1(f, form, dr, ar, br, cr)
		return
	}
	if form.M884F16() {
		w.execMma884(f, form, dr, ar, br, cr)
		return
	}
	ka := form.K
	if form.Sparse != MmaDense {
		ka /= 2
	}
	var (
		A [16][mmaExtMaxK / 2]uint32 // rows of A (compressed for mma.sp)
		B [8][mmaExtMaxK]uint32      // columns of B
		C [16][8]uint32
		E [32]uint32 // mma.sp metadata per lane
	)
	wa, wb := uint(form.A.Bits()), uint(form.B.Bits())
	ea, eb := 32/int(wa), 32/int(wb)
	for i, r := range ar {
		v := f.r(r)
		row, col := 8*(i&1), 4*ea*(i>>1)
		for t := 0; t < 32; t++ {
			g, q := t>>2, t&3
			for s := 0; s < ea; s++ {
				A[(g+row)&15][(ea*q+s+col)%(mmaExtMaxK/2)] = uint32(v[t]>>(wa*uint(s))) & (1<<wa - 1)
			}
		}
	}
	for i, r := range br {
		v := f.r(r)
		for t := 0; t < 32; t++ {
			g, q := t>>2, t&3
			for s := 0; s < eb; s++ {
				B[g][(eb*q+s+4*eb*i)%mmaExtMaxK] = uint32(v[t]>>(wb*uint(s))) & (1<<wb - 1)
			}
		}
	}
	mmaExtC(f, form.C, cr, &C)
	if form.Sparse != MmaDense {
		ev := f.r(in.A)
		for t := range E {
			E[t] = uint32(ev[t])
		}
	}
	var (
		x, y [mmaExtMaxK / 2]uint32 // one dot product's operands
		cols [mmaExtMaxK / 2]int    // mma.sp: the row's logical columns
	)
	dot := func(r, j int) uint32 {
		n := ka
		if form.Sparse != MmaDense {
			mmaSpCols(form, &E, r, cols[:ka])
			for c := 0; c < ka; c++ {
				if form.A == MmaTF32 {
					x[c], y[c] = A[r][c], mmaSpTF32(cols[c], B[j][2*c:2*c+2])
				} else {
					x[c], y[c] = A[r][c], B[j][cols[c]]
				}
			}
		} else {
			copy(x[:n], A[r][:n])
			copy(y[:n], B[j][:n])
		}
		return mmaExtDot(form, x[:n], y[:n], C[r][j])
	}
	mmaExtD(f, form.D, form.M, dr, dot)
}

// mmaExtC reads the C fragment (f16 pairs or 32-bit elements).
func mmaExtC(f *frame, ct MmaElem, cr []int32, C *[16][8]uint32) {
	for i, r := range cr {
		v := f.r(r)
		for t := 0; t < 32; t++ {
			g, q := t>>2, t&3
			if ct == MmaF16 {
				C[(g+8*i)&15][2*q], C[(g+8*i)&15][2*q+1] = uint32(v[t]&0xffff), uint32(v[t]>>16&0xffff)
			} else {
				C[(g+8*(i>>1))&15][2*q+(i&1)] = uint32(v[t])
			}
		}
	}
}

// mmaExtD writes D from dot(row, column), after every source was read.
func mmaExtD(f *frame, dt MmaElem, m int, dr []int32, dot func(r, j int) uint32) {
	var D [16][8]uint32
	for r := 0; r < m; r++ {
		for j := 0; j < 8; j++ {
			D[r][j] = dot(r, j)
		}
	}
	for i, r := range dr {
		d := f.r(r)
		for t := 0; t < 32; t++ {
			g, q := t>>2, t&3
			if dt == MmaF16 {
				row := (g + 8*i) & 15
				d[t] = uint64(D[row][2*q]&0xffff) | uint64(D[row][2*q+1]&0xffff)<<16
			} else {
				d[t] = uint64(D[(g+8*(i>>1))&15][2*q+(i&1)])
			}
		}
	}
}

// mmaExtDot is one element of D: c + the dot product of x and y.
func mmaExtDot(form MmaForm, x, y []uint32, c uint32) uint32 {
	switch {
	case form.A.Int():
		return fpu.DotInt(x, y, form.A.Signed(), form.B.Signed(), uint(form.A.Bits()), c, form.Sat)
	case form.A == MmaE4M3 || form.A == MmaE5M2:
		return fpu.DotFP8(form.A == MmaE5M2, form.B == MmaE5M2, x, y, c, form.D == MmaF16)
	case form.D == MmaF16:
		return uint32(fpu.DotF16F16(x, y, uint16(c)))
	}
	fin := fpu.MmaF16
	switch form.A {
	case MmaBF16:
		fin = fpu.MmaBF16
	case MmaTF32:
		fin = fpu.MmaTF32
	}
	return fpu.DotF32(fin, x, y, c)
}

// mmaSpCols fills cols with the logical column of each compressed element
// of row r of a sparse A, from the metadata the selected lanes hold
// (recorded: mma_vectors3 mma3_sp*, every selector, with valid and
// arbitrary metadata). A row's metadata is a 4-bit field per chunk of its
// logical columns: 4 columns holding 2 elements (16- and 8-bit types; two
// 2-bit indices, the first element's in the low bits), 8 columns holding
// 2 pairs (4-bit types; each index picks a pair), or 2 columns holding 1
// element (tf32; the field of a pair of 16-bit halves, mmaSpTF32). With
// g = r&7, h = r>>3 and selector sel, chunk ch's field is in the metadata
// register of lane
//
//	4g + sel, bits 16h + 4ch                 rows of 4 fields (16 bits)
//	4g + h + 2sel + 2(ch>>3), bits 4(ch&7)   rows of 8 or 16 fields
func mmaSpCols(form MmaForm, E *[32]uint32, r int, cols []int) {
	w := form.A.Bits()
	g, h := r&7, r>>3
	chunks := form.K / 4 // fields per row
	switch w {
	case 32:
		chunks = form.K / 2
	case 4:
		chunks = form.K / 8
	}
	for c := range cols {
		var ch, slot int
		switch w {
		case 32:
			ch = c
		case 4:
			ch, slot = c/4, c/2&1
		default:
			ch, slot = c/2, c&1
		}
		var lane, bit int
		if w >= 16 {
			lane, bit = 4*g+(chunks/4)*int(form.Sel)+ch>>2, 16*h+4*(ch&3)
		} else {
			lane, bit = 4*g+h+2*int(form.Sel)+2*(ch>>3), 4*(ch&7)
		}
		nib := int(E[lane&31] >> uint(bit) & 15)
		switch w {
		case 32: // the field itself: mmaSpTF32 gathers the element
			cols[c] = nib
		case 4:
			cols[c] = 8*ch + 2*(nib>>(2*slot)&3) + c&1
		default:
			cols[c] = 4*ch + nib>>(2*slot)&3
		}
	}
}

// mmaSpTF32 is the tf32 element of column pair b (b[0], b[1]) that
// metadata field nib selects: the pair is four 16-bit halves, the field
// two 2-bit indices of them, the first giving the low half and the second
// the high half (0x4: b[0], 0xe: b[1]; an invalid field mixes halves, as
// recorded with arbitrary metadata).
func mmaSpTF32(nib int, b []uint32) uint32 {
	half := func(i int) uint32 { return b[i>>1&1] >> (16 * uint(i&1)) & 0xffff }
	return half(nib&3) | half(nib>>2&3)<<16
}

// execMmaB1 is the .b1 forms: c + popc(row AND/XOR column) over k bits.
func (w *Warp) execMmaB1(f *frame, form MmaForm, dr, ar, br, cr []int32) {
	var (
		A [16][8]uint32 // rows of A, 32 elements a word
		B [8][8]uint32  // columns of B
		C [16][8]uint32
	)
	for i, r := range ar {
		v := f.r(r)
		for t := 0; t < 32; t++ {
			g, q := t>>2, t&3
			A[(g+8*(i&1))&15][(q+4*(i>>1))&7] = uint32(v[t])
		}
	}
	for i, r := range br {
		v := f.r(r)
		for t := 0; t < 32; t++ {
			g, q := t>>2, t&3
			B[g][(q+4*i)&7] = uint32(v[t])
		}
	}
	mmaExtC(f, MmaS32, cr, &C)
	nw := form.K / 32
	mmaExtD(f, MmaS32, form.M, dr, func(r, j int) uint32 { return fpu.DotB1(A[r][:nw], B[j][:nw], form.Xor, C[r][j]) })
}

// execMma884 is m8n8k4 with f16 multiplicands, which sm_90 has no tensor
// instruction for: ptxas calls a routine of shuffles and f32 arithmetic
// (__cuda_sm_8x_mma_*, SASS of ptxas 13.0), reproduced here operation by
// operation (recorded: mma_vectors3 mma3_m884_*). Each lane's four A and
// four B values (two f16x2 registers, k 0-3) are first transposed within
// its quad of lanes when A is .col or B is .row (mma_shfl_f16: value j of
// lane L becomes value L&3 of lane (L&^3)|j), so that every lane holds a
// row of A and a column of B. Then, all in f32 (f16 inputs widened
// exactly, products exact):
//
//   - f32 D: output i of lane L is row lane a = 4(L>>2) + (L&1) + 2((i>>1)&1)
//     and column lane b = (L&14) + (i&1) + 16(i>>2):
//     d = fadd(fma(a3,b3, fma(a2,b2, fma(a1,b1, fma(a0,b0, +0)))), c_i)
//     (c_i: register i; an f16 C holds the element of row lane ra and
//     column lane cb where the f16 D puts it, widened);
//   - f16 D: output i (register i>>1, half i&1) is row lane L and column
//     lane (L&12) + [0 1 2 3 16 17 18 19][i]:
//     d = f16rn(fadd(fadd(c_i, fma(a1,b1, a0*b0)), fma(a3,b3, a2*b2))).
func (w *Warp) execMma884(f *frame, form MmaForm, dr, ar, br, cr []int32) {
	var A, B [32][4]uint32 // per lane: f32 values of k 0-3
	var Cv [32][8]uint32   // per lane: C's eight elements as f32
	load := func(regs []int32, X *[32][4]uint32) {
		for i, r := range regs {
			v := f.r(r)
			for t := 0; t < 32; t++ {
				X[t][2*i] = fpu.F16ToF32(uint16(v[t]))
				X[t][2*i+1] = fpu.F16ToF32(uint16(v[t] >> 16))
			}
		}
	}
	transpose := func(X *[32][4]uint32) {
		Y := *X
		for t := 0; t < 32; t++ {
			for j := 0; j < 4; j++ {
				X[t][j] = Y[t&^3|j][t&3]
			}
		}
	}
	load(ar, &A)
	load(br, &B)
	if form.ACol {
		transpose(&A)
	}
	if form.BRow {
		transpose(&B)
	}
	for i, r := range cr {
		v := f.r(r)
		for t := 0; t < 32; t++ {
			if form.C == MmaF16 {
				Cv[t][2*i] = fpu.F16ToF32(uint16(v[t]))
				Cv[t][2*i+1] = fpu.F16ToF32(uint16(v[t] >> 16))
			} else {
				Cv[t][i] = uint32(v[t])
			}
		}
	}
	const rn = fpu.RN
	var D [32][8]uint32
	for t := 0; t < 32; t++ {
		for i := 0; i < 8; i++ {
			if form.D == MmaF16 {
				a, b := &A[t], &B[t&12+[8]int{0, 1, 2, 3, 16, 17, 18, 19}[i]]
				p01 := fpu.Fma32(a[1], b[1], fpu.Mul32(a[0], b[0], rn, false, false), rn, false, false)
				p23 := fpu.Fma32(a[3], b[3], fpu.Mul32(a[2], b[2], rn, false, false), rn, false, false)
				x := fpu.Add32(fpu.Add32(Cv[t][i], p01, rn, false, false), p23, rn, false, false)
				D[t][i] = uint32(fpu.F32ToF16(x, rn, false, false))
				continue
			}
			ra, cb := 4*(t>>2)+t&1+2*(i>>1&1), t&14+i&1+16*(i>>2)
			a, b := &A[ra], &B[cb]
			var x uint32
			for k := 0; k < 4; k++ {
				x = fpu.Fma32(a[k], b[k], x, rn, false, false)
			}
			c := Cv[t][i]
			if form.C == MmaF16 { // the f16 fragment's element (row ra, column cb), moved by mma_shfl_f32
				off := cb - ra&12
				c = Cv[ra][off&3+4*(off>>4)]
			}
			D[t][i] = fpu.Add32(x, c, rn, false, false)
		}
	}
	for i, r := range dr {
		d := f.r(r)
		for t := 0; t < 32; t++ {
			if form.D == MmaF16 {
				d[t] = uint64(D[t][2*i]&0xffff) | uint64(D[t][2*i+1]&0xffff)<<16
			} else {
				d[t] = uint64(D[t][i])
			}
		}
	}
}
