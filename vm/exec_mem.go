package vm

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/vm/internal/warpsimd"
)

// Fault is a run-time error of a kernel, located as precisely as the
// module allows.
type Fault struct {
	Kernel   string
	Func     string // function executing (the kernel or a callee)
	Block    [3]uint32
	Thread   [3]uint32
	Warp     int
	Lane     int
	PC       int
	PTXFile  string
	PTXLine  int
	Source   string // CUDA source position from .loc, "" if none
	Msg      string
	MemFault *memspace.Fault
	Err      error // the kind of fault (ErrIllegalInstruction), or nil
}

func (f *Fault) Error() string {
	s := fmt.Sprintf("%s:%d: kernel %s", f.PTXFile, f.PTXLine, f.Kernel)
	if f.Func != f.Kernel {
		s += " (in " + f.Func + ")"
	}
	s += fmt.Sprintf(", block (%d,%d,%d), thread (%d,%d,%d), pc %d", f.Block[0], f.Block[1], f.Block[2],
		f.Thread[0], f.Thread[1], f.Thread[2], f.PC)
	if f.Source != "" {
		s += ", source " + f.Source
	}
	return s + ": " + f.Msg
}

// ErrIllegalInstruction is wrapped by the Fault of an instruction the GPU
// refuses to execute (CUDA reports cudaErrorIllegalInstruction): a barrier
// thread count that is not a multiple of the warp size, a bar.warp.sync
// whose membermask leaves out the lane executing it.
var ErrIllegalInstruction = errors.New("illegal instruction")

// ErrStackOverflow is wrapped by the Fault of a call that overflows the
// thread's stack (the launch's stack limit, or the VM's bound on nested
// calls): on the GPU a launch failure that compute-sanitizer's memcheck
// reports as a stack overflow.
var ErrStackOverflow = errors.New("stack overflow")

// ErrAssert is wrapped by the Fault of a failed device-side assert() (a
// call of __assertfail; CUDA reports cudaErrorAssert, "device-side assert
// triggered").
var ErrAssert = errors.New("device-side assert triggered")

// Unwrap returns what the fault is an instance of (ErrIllegalInstruction),
// or nil.
func (f *Fault) Unwrap() error { return f.Err }

// illegal builds the Fault of an illegal instruction for lane l at pc.
func (w *Warp) illegal(f *frame, pc int32, l int, msg string) *Fault {
	ft := w.fault(f, pc, l, "illegal instruction: "+msg)
	ft.Err = ErrIllegalInstruction
	return ft
}

// assertFault builds the Fault of lane l's failed assert() at pc: the
// message the GPU prints, read from the arguments of the __assertfail call.
func (w *Warp) assertFault(f *frame, pc int32, l int, site *AssertSite) *Fault {
	pb := uint64(f.fn.ParamBlock)
	arg := func(off int64, size uint64) uint64 {
		if off < 0 || uint64(off)+size > pb {
			return 0
		}
		b := f.params[uint64(l)*pb+uint64(off):]
		v := uint64(0)
		for i := size; i > 0; i-- {
			v = v<<8 | uint64(b[i-1])
		}
		return v
	}
	str := func(off int64) string {
		addr := arg(off, 8)
		var s []byte
		for len(s) < 1024 {
			b, err := w.view.Read(memspace.Generic, addr+uint64(len(s)), 1, l)
			if err != nil || b[0] == 0 {
				break
			}
			s = append(s, b[0])
		}
		return string(s)
	}
	msg := fmt.Sprintf("device-side assert triggered: %s:%d: %s: Assertion `%s` failed.",
		str(site.File), uint32(arg(site.Line, 4)), str(site.Function), str(site.Message))
	ft := w.fault(f, pc, l, msg)
	ft.Err = ErrAssert
	return ft
}

// fault builds a Fault for lane l at pc of frame f.
func (w *Warp) fault(f *frame, pc int32, l int, msg string) *Fault {
	c := w.cta
	info := &f.fn.Info[pc]
	ft := &Fault{
		Kernel:  c.launch.Kernel.Name,
		Func:    f.fn.Name,
		Block:   c.ctaid,
		Thread:  [3]uint32{uint32(w.sregs[srTidX][l]), uint32(w.sregs[srTidY][l]), uint32(w.sregs[srTidZ][l])},
		Warp:    w.id,
		Lane:    l,
		PC:      int(pc),
		PTXFile: c.launch.Module.Filename,
		PTXLine: int(info.Line),
		Msg:     msg,
	}
	if loc, ok := info.Source(); ok {
		ft.Source = loc.String()
	}
	return ft
}

// addresses fills w.acc.Addr for the lanes of exec.
func (w *Warp) addresses(in *Inst, f *frame, exec uint32) {
	acc := w.acc
	off := uint64(in.Off)
	// The 32-bit windows wrap: [r+imm] is a 32-bit sum, whatever r's width.
	msk := ^uint64(0)
	if in.Flags&FAddr32 != 0 {
		msk = 0xffffffff
	}
	switch {
	case in.Flags&FAbsAddr != 0:
		// A shared address written as a constant (a variable, or a number)
		// is the block's own: in its slot of the shared::cluster window.
		switch b := w.view.SharedBase; {
		case b == 0:
		case in.Space == memspace.Shared:
			off += b
		case in.Space == memspace.Generic && off-memspace.SharedWindow < memspace.WindowSize:
			off += b
		}
		off &= msk
		for x := exec; x != 0; x &= x - 1 {
			acc.Addr[bits.TrailingZeros32(x)&31] = off
		}
	case in.Flags&FLocalRel != 0:
		off = (off + f.localBase) & msk
		for x := exec; x != 0; x &= x - 1 {
			acc.Addr[bits.TrailingZeros32(x)&31] = off
		}
	case in.Flags&FAddr32 != 0:
		a, o := f.r(in.A), uint32(off)
		if exec == ^uint32(0) {
			warpsimd.AddKQ(&acc.Addr, a, uint64(o), 0xffffffff)
			return
		}
		for x := exec; x != 0; x &= x - 1 {
			l := bits.TrailingZeros32(x) & 31
			acc.Addr[l] = uint64(uint32(a[l]) + o)
		}
	default:
		a := f.r(in.A)
		if exec == ^uint32(0) {
			warpsimd.AddKQ(&acc.Addr, a, off, ^uint64(0))
			return
		}
		for x := exec; x != 0; x &= x - 1 {
			l := bits.TrailingZeros32(x) & 31
			acc.Addr[l] = a[l] + off
		}
	}
}

// execMem performs ld/st for the lanes of exec.
func (w *Warp) execMem(in *Inst, f *frame, exec uint32, pc int32) error {
	if exec == 0 {
		return nil
	}
	if exec == ^uint32(0) && !w.watch && in.Fast == FastLdShared32 &&
		w.loadShared32Regs(f.r(in.A), uint32(in.Off), f.r(in.V[0])) {
		// A full warp's ld.shared.{b,u,f}32 [r+imm] with nothing watching:
		// the tiled matmul's inner loop. No addresses are written out.
		return nil
	}
	if exec == ^uint32(0) && !w.watch && in.Fast == FastStShared32 &&
		w.storeShared32Regs(f.r(in.A), uint32(in.Off), f.r(in.V[0])) {
		// The same for st.shared.b32 [r+imm] (a tile's row, stored).
		return nil
	}
	if in.Op == OpLd && in.Flags&FAbsAddr != 0 && exec&(exec-1) != 0 && !w.watch && in.Vec <= 4 &&
		(in.Space == memspace.Param || in.Space == memspace.Const) {
		// A kernel parameter or a constant at a fixed address: every lane
		// reads the same bytes (or faults alike, the first lane named).
		// Load them for the first lane, then copy its values to the others.
		first := exec & -exec
		if err := w.execMem(in, f, first, pc); err != nil {
			return err
		}
		l0 := bits.TrailingZeros32(first)
		for e := 0; e < int(in.Vec); e++ {
			d := f.r(in.V[e])
			v := d[l0]
			for x := exec; x != 0; x &= x - 1 {
				d[bits.TrailingZeros32(x)&31] = v
			}
		}
		return nil
	}
	acc := w.acc
	acc.Space = in.Space
	acc.Size = uint8(in.T.Size() * int(in.Vec))
	acc.Mask = exec
	w.addresses(in, f, exec)
	if in.Vec == 1 && (in.Space == memspace.Shared || in.Space == memspace.Global) && (acc.Size == 4 || acc.Size == 8) {
		if in.Op == OpLd {
			acc.Kind = memspace.Load
			if w.loadSharedWords(acc, f.r(in.V[0])) || w.view.LoadScalar(acc, f.r(in.V[0])) {
				if in.T.Signed() && acc.Size == 4 {
					d := f.r(in.V[0])
					for x := exec; x != 0; x &= x - 1 {
						l := bits.TrailingZeros32(x) & 31
						d[l] = uint64(int64(int32(d[l])))
					}
				}
				if w.watch {
					w.observe(f, pc, true)
				} else if exec == ^uint32(0) && acc.Size == 4 && in.Space == memspace.Global {
					w.prefetchNext(pc)
				}
				return nil
			}
		} else {
			acc.Kind = memspace.Store
			if w.storeSharedWords(acc, f.r(in.V[0])) || w.view.StoreScalar(acc, f.r(in.V[0])) {
				if w.watch {
					w.vbuf[0] = f.r(in.V[0])[:]
					acc.Values, acc.Elems = &w.vbuf, 1
					w.observe(f, pc, true)
				}
				return nil
			}
		}
	}
	n := int(in.Vec)
	for e, r := range in.MemRegs(f.fn) {
		if r == NoReg { // a store's sink: not written
			w.vbuf[e] = nil
			continue
		}
		w.vbuf[e] = f.r(r)[:]
	}
	var mf *memspace.Fault
	if in.Op == OpLd {
		acc.Kind = memspace.Load
		mf = w.view.Load(acc, n, in.T.Signed(), &w.vbuf)
	} else {
		acc.Kind = memspace.Store
		mf = w.view.Store(acc, n, &w.vbuf)
	}
	if mf != nil {
		op := "load"
		if in.Op == OpSt {
			op = "store"
		}
		ft := w.fault(f, pc, mf.Lane, fmt.Sprintf("%s of %d bytes from %s address %#x: %s", op, mf.Size, mf.Space, mf.Addr, mf.Reason))
		if in.Op == OpSt {
			ft.Msg = fmt.Sprintf("%s of %d bytes to %s address %#x: %s", op, mf.Size, mf.Space, mf.Addr, mf.Reason)
		}
		ft.MemFault = mf
		return ft
	}
	if w.watch {
		if in.Op == OpSt {
			acc.Values, acc.Elems = &w.vbuf, uint8(n)
		}
		w.observe(f, pc, true)
	}
	return nil
}

// execCvta converts between generic and state-space addresses.
func (w *Warp) execCvta(in *Inst, f *frame, exec uint32) {
	d, a := f.r(in.D), f.r(in.A)
	var base uint64
	switch in.Space {
	case memspace.Shared:
		base = memspace.SharedWindow
	case memspace.Local:
		base = memspace.LocalWindow
	case memspace.Const:
		base = w.view.ConstBase
	case memspace.Param:
		base = w.view.ParamBase
	}
	msk := sizeMask(in.T)
	for x := exec; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x) & 31
		if in.Flags&FToSpace != 0 {
			d[l] = (a[l] - base) & msk
		} else {
			d[l] = (a[l] + base) & msk
		}
	}
}

// execIsspacep tests which window a generic address falls in.
func (w *Warp) execIsspacep(in *Inst, f *frame, exec uint32) {
	a := f.r(in.A)
	var r uint32
	for x := exec; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x) & 31
		s, off := memspace.ResolveGeneric(a[l])
		ok := false
		switch in.Space {
		case memspace.Global:
			// The constant bank and kernel parameters have generic
			// addresses of their own on the GPU: not global.
			ok = s == memspace.Global && off-w.view.ConstBase >= w.view.ConstSize && off-w.view.ParamBase >= w.view.ParamSize
		case memspace.Shared:
			// .shared::cta: the block's own window; .shared::cluster: any
			// block's of the cluster.
			ok = s == memspace.Shared && (in.Flags&FCluster != 0 || w.isOwnShared(off))
		case memspace.Local:
			ok = s == memspace.Local
		case memspace.Const:
			ok = s == memspace.Global && off-w.view.ConstBase < w.view.ConstSize
		case memspace.Param:
			ok = s == memspace.Global && off-w.view.ParamBase < w.view.ParamSize
		}
		if ok {
			r |= 1 << l
		}
	}
	p := &f.preds[in.D]
	*p = *p&^exec | r
}

// loadSharedWords loads a full warp's 4-byte shared words at the addresses
// in acc (written out for the hierarchy watching it, or because the
// register form did not apply) eight lanes at a time (warpsimd). It
// reports false, dst possibly written, where LoadScalar must decide.
func (w *Warp) loadSharedWords(acc *memspace.Access, dst *[32]uint64) bool {
	sh, sb := w.view.Shared, w.view.SharedBase
	if acc.Space != memspace.Shared || acc.Size != 4 || acc.Mask != ^uint32(0) || sb+uint64(len(sh)) > 1<<32 {
		return false
	}
	// The addresses are 32-bit window addresses: their offset in sh is
	// the low 32 bits less the base (below it wraps past the end).
	return warpsimd.LoadWords32(dst, &acc.Addr, sh, -uint32(sb))
}

// loadShared32Regs loads a full warp's ld.shared.b32 [a+off] into d
// without writing the addresses out: eight lanes at a time (warpsimd:
// a row of eight words is one load, one word broadcast, other groups
// gathered) when d is not a, else lane by lane
// (memspace.View.LoadShared32Regs). It reports false where the general
// path must decide (a misaligned or out-of-range lane), a unchanged.
// The tiled multiply's chain (fuse.go) leaves two or three of its
// loads a turn to run this way, where a turn ends inside the chain.
func (w *Warp) loadShared32Regs(a *[32]uint64, off uint32, d *[32]uint64) bool {
	sh, sb := w.view.Shared, w.view.SharedBase
	if d != a && sb+uint64(len(sh)) <= 1<<32 && warpsimd.LoadWords32(d, a, sh, off-uint32(sb)) {
		return true
	}
	return w.view.LoadShared32Regs(a, off, d)
}

// storeShared32Regs is storeSharedWords from the address register a and
// the offset off, without writing the addresses out: the words of s at
// uint32(a[l]) + off, which is what addresses and storeSharedWords store.
// It reports false, having written nothing, where the general path must
// decide.
func (w *Warp) storeShared32Regs(a *[32]uint64, off uint32, s *[32]uint64) bool {
	sh, sb := w.view.Shared, w.view.SharedBase
	return sb+uint64(len(sh)) <= 1<<32 && warpsimd.StoreWords32(sh, a, s, off-uint32(sb))
}

// storeSharedWords is loadSharedWords for a store: a full warp's 4-byte
// shared words from src, at the addresses in acc, in one pass where each
// group of eight lanes writes eight consecutive words (warpsimd). It
// reports false, having written nothing, where StoreScalar must decide.
func (w *Warp) storeSharedWords(acc *memspace.Access, src *[32]uint64) bool {
	sh, sb := w.view.Shared, w.view.SharedBase
	if acc.Space != memspace.Shared || acc.Size != 4 || acc.Mask != ^uint32(0) || sb+uint64(len(sh)) > 1<<32 {
		return false
	}
	return warpsimd.StoreWords32(sh, &acc.Addr, src, -uint32(sb))
}

// loadStride is what prefetchNext remembers of one load instruction of a
// warp: its pc, its first lane's last address, and how far that moved the
// time before.
type loadStride struct {
	pc   int32
	addr uint64
	d    uint64
}

// prefetchNext, after a full warp's 4-byte global load at pc from the
// addresses in w.acc, asks the host's caches for the lines the same
// instruction will read next if its addresses move on by the same stride
// as the last two times (memspace.View.PrefetchWords): the tiled
// multiply's tile loads step a row panel at a time, each row a host page
// apart, and waited on memory for every warp load. A hint only: what runs
// and what it reads are unchanged.
func (w *Warp) prefetchNext(pc int32) {
	e := &w.strides[pc&3]
	a := w.acc.Addr[0]
	if e.pc != pc {
		*e = loadStride{pc: pc, addr: a}
		return
	}
	d := a - e.addr
	if d == e.d && d != 0 {
		w.view.PrefetchWords(w.acc, d)
	}
	e.addr, e.d = a, d
}
