package vm

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"sync"

	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/vm/internal/fpu"
)

// execAtom performs atom/red for the lanes of exec, one lane at a time in
// ascending lane order (the documented order in which contending lanes of a
// warp are serialised). Global atomics take a lock, so blocks running on
// other host cores see each read-modify-write as indivisible.
func (w *Warp) execAtom(in *Inst, f *frame, exec uint32, pc int32) error {
	if exec == 0 {
		return nil
	}
	acc := w.acc
	acc.Space, acc.Size, acc.Mask = in.Space, uint8(in.T.Size()), exec
	acc.Kind = memspace.Atomic
	acc.FloatOp = in.T.Float()
	acc.CAS = in.AtomOp() == atomCas
	if in.D == NoReg {
		acc.Kind = memspace.Reduction
	}
	w.addresses(in, f, exec)
	if in.Vec > 1 {
		acc.Size = uint8(in.T.Size() * int(in.Vec))
		if err := w.execVecAtom(in, f, exec, pc); err != nil {
			return err
		}
		if w.watch {
			w.observe(f, pc, false)
		}
		return nil
	}
	n := uint64(in.T.Size())
	b := f.r(in.B)
	var c, d *[32]uint64
	if in.C != NoReg {
		c = f.r(in.C)
	}
	if in.D != NoReg {
		d = f.r(in.D)
	}
	for x := exec; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x) & 31
		sp, addr := in.Space, acc.Addr[l]
		if sp == memspace.Generic {
			sp, addr = memspace.ResolveGeneric(addr)
		}
		if sp != memspace.Global && sp != memspace.Shared {
			return w.fault(f, pc, l, fmt.Sprintf("atomic on a %s address %#x: atomics apply to global and shared memory", sp, acc.Addr[l]))
		}
		mem, mf := w.view.Bytes(sp, addr, n, l)
		if mf != nil {
			return w.fault(f, pc, l, fmt.Sprintf("atomic of %d bytes on %s address %#x: %s", n, mf.Space, mf.Addr, mf.Reason))
		}
		var mu *sync.Mutex
		if sp == memspace.Global {
			mu = w.view.Global.Lock(addr)
			mu.Lock()
		}
		if n == 16 {
			// .b128 exch and cas: registers are (low, high) slot pairs.
			oldLo, oldHi := readN(mem, 8), readN(mem[8:], 8)
			newLo, newHi := f.r(in.B)[l], f.r(in.B + 32)[l]
			if in.AtomOp() == atomCas {
				if oldLo == newLo && oldHi == newHi {
					newLo, newHi = f.r(in.C)[l], f.r(in.C + 32)[l]
				} else {
					newLo, newHi = oldLo, oldHi
				}
			}
			writeN(mem, 8, newLo)
			writeN(mem[8:], 8, newHi)
			if mu != nil {
				mu.Unlock()
			}
			if d != nil {
				d[l], f.r(in.D + 32)[l] = oldLo, oldHi
			}
			continue
		}
		old := readN(mem, n)
		var cv uint64
		if c != nil {
			cv = c[l]
		}
		writeN(mem, n, atomApply(in, sp, old, b[l], cv))
		if mu != nil {
			mu.Unlock()
		}
		if d != nil {
			d[l] = old
		}
	}
	if w.watch {
		w.observe(f, pc, false)
	}
	return nil
}

func readN(b []byte, n uint64) uint64 {
	switch n {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(binary.LittleEndian.Uint16(b))
	case 4:
		return uint64(binary.LittleEndian.Uint32(b))
	}
	return binary.LittleEndian.Uint64(b)
}

func writeN(b []byte, n uint64, v uint64) {
	switch n {
	case 1:
		b[0] = byte(v)
	case 2:
		binary.LittleEndian.PutUint16(b, uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(b, uint32(v))
	default:
		binary.LittleEndian.PutUint64(b, v)
	}
}

// atomApply computes the new memory value of an atomic operation.
func atomApply(in *Inst, sp memspace.Space, old, b, c uint64) uint64 {
	t := in.T
	n := t.Bits()
	msk := sizeMask(t)
	old &= msk
	b &= msk
	switch in.AtomOp() {
	case atomAnd:
		return old & b
	case atomOr:
		return old | b
	case atomXor:
		return old ^ b
	case atomExch:
		return b
	case atomCas:
		if old == b {
			return c & msk
		}
		return old
	case atomInc:
		if old >= b {
			return 0
		}
		return old + 1
	case atomDec:
		if old == 0 || old > b {
			return b
		}
		return old - 1
	case atomMin, atomMax:
		if t.Float() {
			return atomFloatMinMax(t, old, b, in.AtomOp() == atomMax)
		}
		less := old < b
		if t.Signed() {
			less = sext(old, n) < sext(b, n)
		}
		if (in.AtomOp() == atomMin) == less {
			return old
		}
		return b
	case atomAdd:
		switch t {
		case F32:
			// Global f32 atomic adds flush subnormals; shared ones keep them.
			return uint64(fpu.Add32(uint32(old), uint32(b), fpu.RN, sp == memspace.Global, false))
		case F64:
			return fpu.AtomAdd64(old, b, sp == memspace.Shared)
		case F16:
			return uint64(fpu.Add16(uint16(old), uint16(b), fpu.RN, false, false))
		case BF16:
			return uint64(fpu.AddBF16(uint16(old), uint16(b), fpu.RN))
		case F16x2:
			lo := fpu.Add16(uint16(old), uint16(b), fpu.RN, false, false)
			hi := fpu.Add16(uint16(old>>16), uint16(b>>16), fpu.RN, false, false)
			return uint64(hi)<<16 | uint64(lo)
		case BF16x2:
			lo := fpu.AddBF16(uint16(old), uint16(b), fpu.RN)
			hi := fpu.AddBF16(uint16(old>>16), uint16(b>>16), fpu.RN)
			return uint64(hi)<<16 | uint64(lo)
		}
		return (old + b) & msk
	}
	return old
}

// execVecAtom performs a vector atomic: element e of each lane is an atomic
// on its own at address + e*size.
func (w *Warp) execVecAtom(in *Inst, f *frame, exec uint32, pc int32) error {
	list := in.RegList(f.fn)
	nv := int(in.Vec)
	n := uint64(in.T.Size())
	acc := w.acc
	for x := exec; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x) & 31
		sp, addr := in.Space, acc.Addr[l]
		if sp == memspace.Generic {
			sp, addr = memspace.ResolveGeneric(addr)
		}
		if sp != memspace.Global && sp != memspace.Shared {
			return w.fault(f, pc, l, fmt.Sprintf("atomic on a %s address %#x: atomics apply to global and shared memory", sp, acc.Addr[l]))
		}
		mem, mf := w.view.Bytes(sp, addr, n*uint64(nv), l)
		if mf != nil {
			return w.fault(f, pc, l, fmt.Sprintf("vector atomic of %d bytes on %s address %#x: %s", n*uint64(nv), mf.Space, mf.Addr, mf.Reason))
		}
		var mu *sync.Mutex
		if sp == memspace.Global {
			mu = w.view.Global.Lock(addr)
			mu.Lock()
		}
		for e := 0; e < nv; e++ {
			m := mem[uint64(e)*n:]
			old := readN(m, n)
			writeN(m, n, atomApply(in, sp, old, f.r(list[nv+e])[l], 0))
			f.r(list[e])[l] = old
		}
		if mu != nil {
			mu.Unlock()
		}
	}
	return nil
}

// atomFloatMinMax is atom.min/max on f16, bf16 (and their pairs) and f32.
func atomFloatMinMax(t Type, old, b uint64, isMax bool) uint64 {
	one := func(et Type, x, y uint64) uint64 {
		switch et {
		case F16:
			if isMax {
				return uint64(fpu.Max16(uint16(x), uint16(y), false, false, false))
			}
			return uint64(fpu.Min16(uint16(x), uint16(y), false, false, false))
		case BF16:
			if isMax {
				return uint64(fpu.MaxBF16(uint16(x), uint16(y), false, false))
			}
			return uint64(fpu.MinBF16(uint16(x), uint16(y), false, false))
		}
		if isMax {
			return uint64(fpu.Max32(uint32(x), uint32(y), false, false, false))
		}
		return uint64(fpu.Min32(uint32(x), uint32(y), false, false, false))
	}
	switch t {
	case F16x2, BF16x2:
		et := halfType(t)
		return one(et, old&0xffff, b&0xffff) | one(et, old>>16&0xffff, b>>16&0xffff)<<16
	}
	return one(t, old, b)
}
