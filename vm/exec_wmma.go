package vm

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"

	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/vm/internal/fpu"
)

// wmma (lower_wmma.go). The fragments are the registers wmma.load gives on
// the H100/H200, recorded for every shape, type and layout
// (testdata/conformance/issue24/mma_vectors2 wmma_*_dump, mma_vectors3
// mma3_wmma_*_dump*; wmmaPos). Addresses: element (r, c) of a .row matrix
// is at p + (r*stride + c)*size, of a .col one at p + (c*stride + r)*size;
// the stride is in elements (the sub-byte types: bits = elements * width),
// the shape's row (or column) length when absent. wmma.mma computes each
// element of D as the mma.sync instructions ptxas makes of it do
// (wmmaDot).

// wmmaPos is the (row, column) that register i, element s of lane t holds
// in matrix kind (0 a, 1 b, 2 c/d) of form wf with elements e.
func wmmaPos(sh WmmaShape, kind int, e MmaElem, t, i, s int) (int, int) {
	g, q := t>>2, t&3
	w := e.Bits()
	switch kind {
	case 0: // A, M x K
		switch {
		case e == MmaF64:
			return g, q
		case w == 16 && sh == WmmaM16N16K16:
			return g + 8*(i&1), 2*q + s + 8*(i>>1&1)
		case w == 16 && sh == WmmaM32N8K16:
			return g + 8*(i&1) + 16*(i>>2&1), 2*q + s + 8*(i>>1&1)
		case w == 16: // m8n32k16
			return g, 2*q + s + 8*(i&1)
		case e == MmaTF32:
			return g + 8*(i&1), q + 4*(i>>1)
		case w == 8 && sh == WmmaM32N8K16:
			return g + 8*(i&1) + 16*(i>>1), 4*q + s
		case w == 8 && sh == WmmaM16N16K16:
			return g + 8*(i&1), 4*q + s
		case w == 8: // m8n32k16
			return g, 4*q + s
		case w == 4:
			return g, 8*q + s
		}
		return g, 32*q + s // b1
	case 1: // B, K x N
		switch {
		case e == MmaF64:
			return q, g
		case w == 16 && sh == WmmaM16N16K16:
			return 2*q + s + 8*(i&1), g + 8*(i>>1&1)
		case w == 16 && sh == WmmaM32N8K16:
			return 2*q + s + 8*(i&1), g
		case w == 16: // m8n32k16
			return 2*q + s + 8*(i>>1&1), g + 8*(i&1) + 16*(i>>2&1)
		case e == MmaTF32:
			return q + 4*(i&1), g + 8*(i>>1)
		case w == 8 && sh == WmmaM32N8K16:
			return 4*q + s, g
		case w == 8: // m16n16k16, m8n32k16
			return 4*q + s, g + 8*i
		case w == 4:
			return 8*q + s, g
		}
		return 32*q + s, g // b1
	}
	// C, D
	switch {
	case sh == WmmaM8N8K4 || sh == WmmaM8N8K32 || sh == WmmaM8N8K128:
		return g, 2*q + i
	case e == MmaF16 && sh == WmmaM16N16K16:
		return g + 8*(i&1), 2*q + s + 8*(i>>1)
	case e == MmaF16 && sh == WmmaM32N8K16:
		return g + 8*i, 2*q + s
	case e == MmaF16: // m8n32k16: the transpose of m32n8k16's
		return 2*q + s, g + 8*i
	case sh == WmmaM32N8K16:
		return g + 8*(i>>1&1) + 16*(i>>2), 2*q + i&1
	case sh == WmmaM8N32K16:
		return 2*q + i&1, g + 8*(i>>1)
	}
	return g + 8*(i>>1&1), 2*q + i&1 + 8*(i>>2)
}

// wmmaLayout is how a wmma.load/store's fragment lies in memory: the
// matrix (0 A, 1 B, 2 C or D), the element type, its bits, elements per
// register, the elements of a row (the default stride: K for A, N for B
// and C/D in row-major; M, K and M in column-major) and whether the layout
// is column-major.
func (in *Inst) wmmaLayout() (mat int, e MmaElem, bitsPer uint64, per int, rowLen uint64, col bool) {
	wf := in.Wmma()
	mat = int(min(wf.Kind, 2))
	e = wf.Elem
	bitsPer = uint64(e.Bits())
	per = 1
	if bitsPer < 32 {
		per = 32 / int(bitsPer)
	}
	m, n, k := wf.Shape.MNK()
	rowLen = uint64(k)
	if mat != 0 {
		rowLen = uint64(n)
	}
	col = in.Flags&FTrans != 0
	if col {
		rowLen = uint64(m)
		if mat == 1 {
			rowLen = uint64(k)
		}
	}
	return mat, e, bitsPer, per, rowLen, col
}

// wmmaAccess loads or stores one fragment for every lane.
func (w *Warp) wmmaAccess(in *Inst, f *frame, pc int32, regs []int32, load bool) error {
	wf := in.Wmma()
	kind, e, bitsPer, per, rowLen, col := in.wmmaLayout()
	for t := 0; t < 32; t++ {
		stride := rowLen
		if in.B != NoReg {
			stride = uint64(uint32(f.r(in.B)[t]))
		}
		base := w.acc.Addr[t]
		for i, r := range regs {
			v := f.r(r)
			var word uint64
			for s := 0; s < per; s++ {
				row, c := wmmaPos(wf.Shape, kind, e, t, i, s)
				if col {
					row, c = c, row
				}
				bit := (uint64(row)*stride + uint64(c)) * bitsPer
				size := max(bitsPer/8, 1)
				a := base + bit/8
				b, mf := w.view.Bytes(in.Space, a, size, t)
				if mf != nil {
					return w.fault(f, pc, t, fmt.Sprintf("wmma element of %d bytes at %s address %#x: %s", size, mf.Space, mf.Addr, mf.Reason))
				}
				sh := uint(bit % 8)
				mask := uint64(1)<<bitsPer - 1
				if bitsPer == 64 {
					mask = ^uint64(0)
				}
				if load {
					var x uint64
					switch size {
					case 1:
						x = uint64(b[0]) >> sh
					case 2:
						x = uint64(binary.LittleEndian.Uint16(b))
					case 4:
						x = uint64(binary.LittleEndian.Uint32(b))
					default:
						x = binary.LittleEndian.Uint64(b)
					}
					word |= (x & mask) << (bitsPer * uint64(s) % 64)
					continue
				}
				x := v[t] >> (bitsPer * uint64(s) % 64) & mask
				switch size {
				case 1:
					b[0] = b[0]&^byte(mask<<sh) | byte(x<<sh)
				case 2:
					binary.LittleEndian.PutUint16(b, uint16(x))
				case 4:
					binary.LittleEndian.PutUint32(b, uint32(x))
				default:
					binary.LittleEndian.PutUint64(b, x)
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
	regs := in.RegList(f.fn)
	if err := w.wmmaAccess(in, f, pc, regs, true); err != nil {
		return err
	}
	w.wmmaObserve(in, f, pc, regs, memspace.Load)
	return nil
}

// execWmmaStore executes wmma.store.d.
func (w *Warp) execWmmaStore(in *Inst, f *frame, exec uint32, pc int32) error {
	if err := w.matrixLanes(in, f, exec, pc); err != nil {
		return err
	}
	w.addresses(in, f, exec)
	regs := in.RegList(f.fn)
	if err := w.wmmaAccess(in, f, pc, regs, false); err != nil {
		return err
	}
	w.wmmaObserve(in, f, pc, regs, memspace.Store)
	return nil
}

// wmmaEmit receives one machine access of a wmma plan: size bytes for
// each lane of mask at addr; movm says that the register's elements are
// then moved between lanes (MOVM: a 16-bit B fragment of a row-major
// matrix read from global memory as words, as testdata/tensor's
// matmul_wmma does, four MOVM a fragment).
type wmmaEmit func(size uint8, mask uint32, addr [32]uint64, movm bool)

// wmmaWords plans register i of a wmma fragment (per elements of bitsPer
// bits) as one access of 32 aligned words of size bytes that hold exactly
// the bytes its elements occupy in every lane, and reports whether they do
// (else it emits nothing).
func wmmaWords(emit wmmaEmit, bitAt func(t, i, s int) uint64, i, per int, bitsPer, size uint64, base *[32]uint64) bool {
	if bitsPer%8 != 0 || size > 16 || bits.OnesCount64(size) != 1 {
		return false
	}
	for t := 1; t < 32; t++ {
		if base[t] != base[0] {
			return false
		}
	}
	var offs [128]uint64
	n := 0
	for t := 0; t < 32; t++ {
		for s := 0; s < per; s++ {
			if n == len(offs) {
				return false
			}
			offs[n] = bitAt(t, i, s) / 8
			n++
		}
	}
	slices.Sort(offs[:n])
	u := slices.Compact(offs[:n])
	el := bitsPer / 8
	if uint64(len(u))*el != 32*size {
		return false
	}
	var addr [32]uint64
	for l := 0; l < 32; l++ {
		word := u[uint64(l)*size/el:][:size/el]
		if (base[0]+word[0])%size != 0 || word[len(word)-1] != word[0]+size-el {
			return false
		}
		addr[l] = base[0] + word[0]
	}
	emit(uint8(size), ^uint32(0), addr, true)
	return true
}

// wmmaObserve shows the memory hierarchy a wmma.load or wmma.store (whose
// addresses w.acc holds) as the machine code that ptxas emits for it
// accesses memory (wmmaPlan).
func (w *Warp) wmmaObserve(in *Inst, f *frame, pc int32, regs []int32, kind memspace.Kind) {
	if !w.watch {
		return
	}
	acc := w.acc
	base := acc.Addr // every lane's: the instruction is .aligned
	var stride [32]uint64
	if in.B != NoReg {
		for t := range stride {
			stride[t] = uint64(uint32(f.r(in.B)[t]))
		}
	}
	in.wmmaPlan(len(regs), &base, &stride, in.B != NoReg, func(size uint8, mask uint32, addr [32]uint64, _ bool) {
		acc.Space, acc.Kind, acc.Size, acc.Mask, acc.Addr = in.Space, kind, size, mask, addr
		w.observe(f, pc, false)
	})
}

// WmmaMachineOps is how many memory instructions ptxas emits for a
// wmma.load or wmma.store of nregs registers, and how many MOVM after
// them (wmmaPlan, with the matrix's own width as its stride and an aligned
// address).
func (in *Inst) WmmaMachineOps(nregs int) (mem, movm int) {
	var base, stride [32]uint64
	in.wmmaPlan(nregs, &base, &stride, false, func(_ uint8, _ uint32, _ [32]uint64, mv bool) {
		mem++
		if mv && in.Space != memspace.Shared {
			movm++
		}
	})
	return mem, movm
}

// wmmaPlan lays a wmma.load or wmma.store of nregs registers out as the
// machine code ptxas emits for it (testdata/tensor's SASS) and emits each
// access: a 16-bit A or B fragment loaded from shared memory is read by
// LDSM (ldmatrix, 16-byte rows, x4: 32 rows per access); any other
// fragment by one LDS/LDG/STS/STG per register, the registers whose
// elements are adjacent in memory merged into one wider access (the f32
// accumulators' pairs: STG.E.64), as every lane holds them. base and
// stride are each lane's address and row stride (stride unless hasStride:
// the matrix's width).
func (in *Inst) wmmaPlan(nregs int, base, stride *[32]uint64, hasStride bool, emit wmmaEmit) {
	wf := in.Wmma()
	mat, e, bitsPer, per, rowLen, col := in.wmmaLayout()
	if !hasStride {
		for t := range stride {
			stride[t] = rowLen
		}
	}
	load := in.Op == OpWmmaLoad
	// bitAt is the bit offset of element s of register i of lane t.
	bitAt := func(t, i, s int) uint64 {
		row, c := wmmaPos(wf.Shape, mat, e, t, i, s)
		if col {
			row, c = c, row
		}
		return (uint64(row)*stride[t] + uint64(c)) * bitsPer
	}
	if load && mat < 2 && bitsPer == 16 && in.Space == memspace.Shared {
		// LDSM: the fragment's 16-byte rows, eight consecutive rows of one
		// column block a phase, 32 rows an access.
		const maxChunks = 128
		var chunks [maxChunks]uint64
		nc := 0
		for i := range nregs {
			for t := 0; t < 32; t++ {
				for s := 0; s < per; s++ {
					c := bitAt(t, i, s) / 8 &^ 15
					if !slices.Contains(chunks[:nc], c) && nc < maxChunks {
						chunks[nc] = c
						nc++
					}
				}
			}
		}
		// Column block first, then row: rows of one block go together.
		s := stride[0] * 2
		if s == 0 {
			s = 1
		}
		slices.SortFunc(chunks[:nc], func(a, b uint64) int {
			ab, bb := a%s, b%s
			if ab != bb {
				return cmp.Compare(ab, bb)
			}
			return cmp.Compare(a, b)
		})
		var addr [32]uint64
		for c := 0; c < nc; c += 32 {
			part := chunks[c:min(c+32, nc)]
			for l, off := range part {
				addr[l] = base[0] + off
			}
			emit(16, uint32(uint64(1)<<len(part)-1), addr, false)
		}
		return
	}
	// One access per register (elements adjacent in memory), adjacent
	// registers merged up to 16 bytes where every lane's are adjacent and
	// aligned.
	var first, size [32]uint64 // of the access being built, per lane
	open := false
	var addr [32]uint64
	flush := func() {
		if open {
			for t := 0; t < 32; t++ {
				addr[t] = base[t] + first[t]
			}
			emit(uint8(size[0]), ^uint32(0), addr, false)
		}
		open = false
	}
	var seen [16]uint64 // lane 0's bit offset of each register seen (the sm_70 layouts repeat registers)
	nseen := 0
	for i := range nregs {
		b0 := bitAt(0, i, 0)
		if slices.Contains(seen[:nseen], b0) {
			continue
		}
		if nseen < len(seen) {
			seen[nseen] = b0
			nseen++
		}
		// This register's bytes in every lane, if its elements are
		// adjacent; else one access per element.
		adj := true
		var lo [32]uint64
		for t := 0; t < 32 && adj; t++ {
			lo[t] = bitAt(t, i, 0)
			for s := 1; s < per && adj; s++ {
				adj = bitAt(t, i, s) == lo[t]+uint64(s)*bitsPer
			}
		}
		bytes := max(uint64(per)*bitsPer/8, 1)
		if !adj {
			// Its elements are apart in memory (a 16-bit B fragment of a
			// row-major matrix: two k rows). ptxas loads the same bytes
			// as whole words, one per lane (testdata/tensor's
			// matmul_wmma: four 32-bit LDG per B fragment, as per A):
			// the register's bytes in every lane, as aligned words.
			flush()
			if !wmmaWords(emit, bitAt, i, per, bitsPer, bytes, base) {
				for s := 0; s < per; s++ {
					for t := 0; t < 32; t++ {
						addr[t] = base[t] + bitAt(t, i, s)/8
					}
					emit(uint8(max(bitsPer/8, 1)), ^uint32(0), addr, false)
				}
			}
			continue
		}
		join := open && size[0]+bytes <= 16 && bits.OnesCount64(size[0]+bytes) == 1
		for t := 0; t < 32 && join; t++ {
			join = lo[t]/8 == first[t]+size[t] && (base[t]+first[t])%(size[t]+bytes) == 0
		}
		if !join {
			flush()
			for t := 0; t < 32; t++ {
				first[t], size[t] = lo[t]/8, 0
			}
			open = true
		}
		for t := 0; t < 32; t++ {
			size[t] += bytes
		}
	}
	flush()
}

// WmmaRegs splits an OpWmmaMma's register list in f into D, A, B and C.
func (in *Inst) WmmaRegs(f *Func) (d, a, b, c []int32) {
	l := f.RegLists[in.Target]
	wf := in.Wmma()
	nd, na, nb, nc := wmmaRegCount(wf.Shape, 3, wf.D), wmmaRegCount(wf.Shape, 0, wf.A), wmmaRegCount(wf.Shape, 1, wf.A),
		wmmaRegCount(wf.Shape, 2, wf.C)
	if len(l) != nd+na+nb+nc {
		return nil, nil, nil, nil
	}
	return l[:nd], l[nd : nd+na], l[nd+na : nd+na+nb], l[nd+na+nb:]
}

// execWmmaMma executes wmma.mma.
func (w *Warp) execWmmaMma(in *Inst, f *frame, exec uint32, pc int32) error {
	if err := w.matrixLanes(in, f, exec, pc); err != nil {
		return err
	}
	dr, ar, br, cr := in.WmmaRegs(f.fn)
	if dr == nil {
		return nil
	}
	wf := in.Wmma()
	m, n, k := wf.Shape.MNK()
	var (
		A [32][128]uint32 // rows of A (b1: bits)
		B [32][128]uint32 // columns of B
		C [32][32]uint64
	)
	fill := func(kind int, e MmaElem, regs []int32, set func(r, c int, x uint64)) {
		wb := uint(e.Bits())
		per := 1
		if wb < 32 {
			per = 32 / int(wb)
		}
		mask := uint64(1)<<wb - 1
		if wb == 64 {
			mask = ^uint64(0)
		}
		for i := len(regs) - 1; i >= 0; i-- { // the first copy of a repeated element wins
			v := f.r(regs[i])
			for t := 0; t < 32; t++ {
				for s := 0; s < per; s++ {
					row, c := wmmaPos(wf.Shape, kind, e, t, i, s)
					set(row, c, v[t]>>(wb*uint(s)%64)&mask)
				}
			}
		}
	}
	if wf.A == MmaF64 {
		var (
			a, b [8][4]uint64 // rows of A, columns of B
			c    [8][8]uint64
		)
		fill(0, wf.A, ar, func(r, cc int, x uint64) { a[r&7][cc&3] = x })
		fill(1, wf.A, br, func(r, cc int, x uint64) { b[cc&7][r&3] = x })
		fill(2, wf.C, cr, func(r, cc int, x uint64) { c[r&7][cc&7] = x })
		w.wmmaWriteD(f, wf, dr, func(r, cc int) uint64 { return fpu.DotF64Rnd(a[r&7][:], b[cc&7][:], c[r&7][cc&7], wmmaRnd(wf.Rnd)) })
		return nil
	}
	fill(0, wf.A, ar, func(r, c int, x uint64) { A[r&31][c&127] = uint32(x) })
	fill(1, wf.A, br, func(r, c int, x uint64) { B[c&31][r&127] = uint32(x) })
	fill(2, wf.C, cr, func(r, c int, x uint64) { C[r&31][c&31] = x })
	var D [32][32]uint32
	if fm, ok := wmmaTermsFormat(wf); ok && k <= 16 {
		// Each element of A and B enters n or m dot products: decoded once.
		var TA, TB [32][16]fpu.TcTerm
		for r := 0; r < m; r++ {
			fpu.DecodeTcRow(fm, TA[r][:k], A[r][:])
		}
		for c := 0; c < n; c++ {
			fpu.DecodeTcRow(fm, TB[c][:k], B[c][:])
		}
		for r := 0; r < m; r++ {
			for c := 0; c < n; c++ {
				D[r][c] = fpu.DotF32Terms(fm, TA[r][:k], TB[c][:k], A[r][:k], B[c][:k], uint32(C[r][c]))
			}
		}
	} else {
		for r := 0; r < m; r++ {
			for c := 0; c < n; c++ {
				D[r][c] = wmmaDot(wf, in.Flags&FSatFinite != 0, A[r][:k], B[c][:k], uint32(C[r][c]))
			}
		}
	}
	w.wmmaWriteD(f, wf, dr, func(r, c int) uint64 { return uint64(D[r][c]) })
	return nil
}

// wmmaTermsFormat reports the multiplicand format of the forms whose
// elements wmmaDot sums with fpu.DotF32 alone (f16 with f32 C and D, bf16),
// which fpu.DotF32Terms computes from multiplicands decoded once.
func wmmaTermsFormat(wf WmmaForm) (fpu.MmaIn, bool) {
	switch {
	case wf.A == MmaBF16:
		return fpu.MmaBF16, true
	case wf.A == MmaF16 && wf.C == MmaF32 && wf.D == MmaF32:
		return fpu.MmaF16, true
	}
	return 0, false
}

// wmmaRnd is the fpu rounding of a wmma .f64 rounding field (none: .rn).
func wmmaRnd(r uint8) fpu.Round {
	if r == 0 {
		return fpu.RN
	}
	return fpu.Round(r - 1)
}

// wmmaWriteD writes D's fragment from d(row, column).
func (w *Warp) wmmaWriteD(f *frame, wf WmmaForm, dr []int32, d func(r, c int) uint64) {
	e := wf.D
	wb := uint(e.Bits())
	per := 1
	if wb < 32 {
		per = 32 / int(wb)
	}
	mask := uint64(1)<<wb - 1
	if wb == 64 {
		mask = ^uint64(0)
	}
	for i, r := range dr {
		v := f.r(r)
		for t := 0; t < 32; t++ {
			var word uint64
			for s := 0; s < per; s++ {
				row, c := wmmaPos(wf.Shape, 2, e, t, i, s)
				word |= d(row&31, c&31) & mask << (wb * uint(s) % 64)
			}
			v[t] = word
		}
	}
}

// wmmaDot is one element of a wmma.mma's D (not .f64): c + the dot product
// of a row of A and a column of B, with the arithmetic of the mma.sync
// instructions ptxas makes of the wmma.mma.
func wmmaDot(wf WmmaForm, sat bool, a, b []uint32, c uint32) uint32 {
	switch wf.A {
	case MmaS8, MmaU8, MmaS4, MmaU4:
		return fpu.DotInt(a, b, wf.A.Signed(), wf.A.Signed(), uint(wf.A.Bits()), c, sat)
	case MmaB1:
		var x, y [4]uint32
		for kk := 0; kk < 128; kk++ {
			x[kk>>5] |= a[kk] & 1 << (kk & 31)
			y[kk>>5] |= b[kk] & 1 << (kk & 31)
		}
		return fpu.DotB1(x[:], y[:], wf.Xor, c)
	case MmaBF16:
		return fpu.DotF32(fpu.MmaBF16, a, b, c)
	case MmaTF32: // two m16n8k4 steps in k order (HMMA.1684 twice)
		return fpu.DotF32(fpu.MmaTF32, a[4:8], b[4:8], fpu.DotF32(fpu.MmaTF32, a[:4], b[:4], c))
	}
	// f16 multiplicands
	switch {
	case wf.C == MmaF32 && wf.D == MmaF32:
		return fpu.DotF32(fpu.MmaF16, a, b, c)
	case wf.C == MmaF16 && wf.D == MmaF16:
		return uint32(fpu.DotF16F16(a, b, uint16(c)))
	case wf.C == MmaF16: // HADD2.F32 widens C, then the f32 mma
		return fpu.DotF32(fpu.MmaF16, a, b, fpu.F16ToF32(uint16(c)))
	}
	// an f32 mma, then F2FP.F16.F32 rounds D to nearest f16
	return uint32(fpu.F32ToF16(fpu.DotF32(fpu.MmaF16, a, b, c), fpu.RN, false, false))
}
