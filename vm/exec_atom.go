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
	acc := &w.acc
	acc.Space, acc.Size, acc.Mask = in.Space, uint8(in.T.Size()), exec
	acc.Kind = memspace.Atomic
	if in.D == NoReg {
		acc.Kind = memspace.Reduction
	}
	w.addresses(in, f, exec)
	if o := w.view.Observer; o != nil {
		o.Observe(acc)
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
	return nil
}

func readN(b []byte, n uint64) uint64 {
	switch n {
	case 2:
		return uint64(binary.LittleEndian.Uint16(b))
	case 4:
		return uint64(binary.LittleEndian.Uint32(b))
	}
	return binary.LittleEndian.Uint64(b)
}

func writeN(b []byte, n uint64, v uint64) {
	switch n {
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
	switch in.Imm {
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
		less := old < b
		if t.Signed() {
			less = sext(old, n) < sext(b, n)
		}
		if (in.Imm == atomMin) == less {
			return old
		}
		return b
	case atomAdd:
		switch t {
		case F32:
			// Global f32 atomic adds flush subnormals; shared ones keep them.
			return uint64(fpu.Add32(uint32(old), uint32(b), fpu.RN, sp == memspace.Global, false))
		case F64:
			return fpu.Add64(old, b, fpu.RN)
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
