package warpsimd

import (
	"encoding/binary"

	"github.com/ptxvm/ptxvm/vm/internal/fpu"
)

// MaxChain is the most steps a Chain holds.
const MaxChain = 32

// ChainStep is one step of a Chain: the two loads' offsets past the
// chain's first ones, and the register slots it reads its addend from and
// writes its three results to.
type ChainStep struct {
	// Delta1 and Delta2 are added to each lane's first offsets (k1 and
	// k2 of LdLdFmaChain); multiples of 4.
	Delta1, Delta2 uint32
	// D1, D2 and D are the slots the two loaded words and the sum are
	// written to, zero-extended, in that order; negative: not written.
	D1, D2, D int32
	// C is the slot of the addend: the sum of the step before (or any
	// register, for the first step), read when a run starts here.
	C int32
	// Next1, Next2 and NextD are the steps whose writes next overwrite the
	// slots D1, D2 and D (this one, when a later write of this step does;
	// MaxChain when none does): a run that ends at step e writes a
	// result only where that step is e or later.
	Next1, Next2, NextD int32
	// Swap: the fma multiplies the second word by the first (the product
	// is the same; only fpu's order of operands is kept).
	Swap int32
}

// Chain is a run of N (ld.shared.b32, ld.shared.b32, fma.rn.f32) steps
// whose fma sums chain, the inner loop of a multiply from shared tiles
// (vm/fuse.go), over a register file by slot. Step j of lane l loads
//
//	v1 = the word at uint32(regs[A1][l]) + k1 + Steps[j].Delta1 of mem
//	v2 = the word at uint32(regs[A2][l]) + k2 + Steps[j].Delta2 of mem
//
// and sets acc = fma.rn.f32(v1, v2, acc), acc being regs[C][l] before the
// first step; A1, A2 and C are read before anything is written. The
// field offsets are fixed (chain_amd64.s reads them; TestChainLayout).
type Chain struct {
	N         int32 // steps, 1 to MaxChain
	A1, A2, C int32 // slots of the address registers and of the first addend
	Span1     uint32
	Span2     uint32 // the largest Delta1 and Delta2
	MaxSlot   int32  // the largest slot named (LdLdFmaChain checks it against len(regs))
	_         int32
	Steps     [MaxChain]ChainStep
}

// LdLdFmaChain runs steps s to e-1 of ch for all 32 lanes of regs. It
// reports false, having written nothing, when a lane's first offset
// (uint32(a) + k, modulo 2^32) is not a multiple of 4 or its last word
// would end past mem (the offset plus the span of all of ch's steps, which
// does not wrap), or when ch names a slot past regs, holds more than
// MaxChain steps or s and e are not steps of it (0 <= s < e <= N); the
// caller then runs the steps one by one, which fault as they would. mem
// must be shorter than 2^31 bytes.
func LdLdFmaChain(regs [][32]uint64, ch *Chain, mem []byte, k1, k2 uint32, s, e int) bool {
	if len(mem) < 4 || uint64(len(mem)) >= 1<<31 || ch.N < 1 || ch.N > MaxChain ||
		ch.MaxSlot < 0 || int(ch.MaxSlot) >= len(regs) || s < 0 || s >= e || e > int(ch.N) {
		return false
	}
	last := uint32(len(mem) - 4)
	if ch.Span1 > last || ch.Span2 > last {
		return false
	}
	if hasFMA {
		return ldLdFmaChainAVX2(&regs[0], ch, &mem[0], k1, k2, last-ch.Span1, last-ch.Span2, int32(s), int32(e))
	}
	return ldLdFmaChainGo(regs, ch, mem, k1, k2, s, e)
}

// ldLdFmaChainGo is LdLdFmaChain one lane at a time (its caller checked
// ch, mem and the spans).
func ldLdFmaChainGo(regs [][32]uint64, ch *Chain, mem []byte, k1, k2 uint32, s, e int) bool {
	last := uint32(len(mem) - 4)
	var o1, o2, acc [32]uint32
	a1, a2, c := &regs[ch.A1], &regs[ch.A2], &regs[ch.Steps[s].C]
	for l := range 32 {
		o1[l], o2[l], acc[l] = uint32(a1[l])+k1, uint32(a2[l])+k2, uint32(c[l])
		if o1[l]&3 != 0 || o1[l] > last-ch.Span1 || o2[l]&3 != 0 || o2[l] > last-ch.Span2 {
			return false
		}
	}
	end := int32(e)
	for j := s; j < e; j++ {
		s := &ch.Steps[j]
		for l := range 32 {
			p1, p2 := o1[l]+s.Delta1, o2[l]+s.Delta2
			v1 := binary.LittleEndian.Uint32(mem[p1 : p1+4])
			v2 := binary.LittleEndian.Uint32(mem[p2 : p2+4])
			x, y := v1, v2
			if s.Swap != 0 {
				x, y = v2, v1
			}
			z, ok := fpu.FmaRN32Fast(x, y, acc[l])
			if !ok {
				z = fpu.Fma32(x, y, acc[l], fpu.RN, false, false)
			}
			acc[l] = z
			if s.D1 >= 0 && s.Next1 >= end {
				regs[s.D1][l] = uint64(v1)
			}
			if s.D2 >= 0 && s.Next2 >= end {
				regs[s.D2][l] = uint64(v2)
			}
			if s.D >= 0 && s.NextD >= end {
				regs[s.D][l] = uint64(z)
			}
		}
	}
	return true
}

// Link sets what follows from the steps' offsets and slots: Span1, Span2,
// MaxSlot, and each result's Next.
func (ch *Chain) Link() {
	ch.Span1, ch.Span2 = 0, 0
	ch.MaxSlot = max(ch.A1, ch.A2)
	n := min(max(int(ch.N), 0), MaxChain)
	for j := range n {
		s := &ch.Steps[j]
		ch.Span1, ch.Span2 = max(ch.Span1, s.Delta1), max(ch.Span2, s.Delta2)
		ch.MaxSlot = max(ch.MaxSlot, s.C, s.D1, s.D2, s.D)
	}
	// The writes in program order: step j's are 3j, 3j+1, 3j+2.
	slot := func(w int) int32 {
		s := &ch.Steps[w/3]
		return [3]int32{s.D1, s.D2, s.D}[w%3]
	}
	for w := range 3 * n {
		next := int32(MaxChain)
		for v := w + 1; v < 3*n; v++ {
			if slot(v) == slot(w) {
				next = int32(v / 3)
				break
			}
		}
		s := &ch.Steps[w/3]
		*[3]*int32{&s.Next1, &s.Next2, &s.NextD}[w%3] = next
	}
}
