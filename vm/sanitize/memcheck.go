package sanitize

import (
	"errors"
	"fmt"
	"math/bits"
	"sort"
	"strings"

	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/vm"
)

// memState is memcheck's: it has no shadow; the VM validates every access
// and faults on the first bad lane, and shared accesses are checked here
// against the block's allocation (static plus dynamic), which the VM's
// reserved window extends.
type memState struct{}

// shared reports lanes of a shared access past the block's allocation.
func (m *memState) shared(c *checker, cta *vm.CTA, a *memspace.Access) {
	limit := c.l.Kernel.DynamicBase + c.l.DynSmem
	for x := a.Mask; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x)
		addr := a.Addr[l]
		if addr+uint64(a.Size) <= limit {
			continue
		}
		// Reads of the reserved window (%reserved_smem_*) are the
		// kernel's own business when it names it; a plain array index
		// that runs into it is not.
		site := c.site(a.Origin.Inst, cta, a.Origin.Warp, l, accessWord(a.Kind))
		c.add(Memcheck, "out of bounds", SevError, fmt.Sprintf("Invalid __shared__ %s of size %d bytes", accessVerb(a.Kind), a.Size), []Site{site}, memspace.Shared, int(a.Size), addr,
			fmt.Sprintf("Access to %#x is out of bounds: the block has %d bytes of shared memory", addr, limit-vm.SharedReserved))
	}
}

func accessVerb(k memspace.Kind) string {
	switch k {
	case memspace.Load:
		return "read"
	case memspace.Store:
		return "write"
	}
	return "atomic"
}

func accessWord(k memspace.Kind) string {
	switch k {
	case memspace.Load:
		return "Read"
	case memspace.Store:
		return "Write"
	}
	return "Atomic"
}

// fault claims a memory fault of the VM.
func (m *memState) fault(c *checker, ft *vm.Fault, info *vm.InstInfo, site Site) bool {
	mf := ft.MemFault
	if mf == nil {
		if errors.Is(ft, vm.ErrStackOverflow) {
			// compute-sanitizer's hardware exception record for a
			// thread whose calls ran past its stack.
			c.add(Memcheck, "stack overflow", SevError, "Stack overflow", []Site{site}, memspace.Generic, 0, 0, ft.Msg)
			return true
		}
		if strings.Contains(ft.Msg, "trap instruction") {
			c.add(Memcheck, "trap", SevError, "Hardware exception: trap", []Site{site}, memspace.Generic, 0, 0, ft.Msg)
			return true
		}
		return false
	}
	verb := "read"
	if info != nil {
		switch op := info.Inst().Op; op {
		case vm.OpSt:
			verb = "write"
		case vm.OpAtom:
			verb = "atomic"
		}
	}
	site.Access = strings.ToUpper(verb[:1]) + verb[1:]
	if mf.Space == memspace.Generic {
		// A generic access checked before its window was resolved (a
		// misaligned one): report it in the space it points into.
		r := *mf
		r.Space, _ = memspace.ResolveGeneric(mf.Addr)
		mf = &r
	}
	kind, detail := "out of bounds", fmt.Sprintf("Access to %#x is out of bounds", mf.Addr)
	if mf.Reason == "misaligned address" {
		kind, detail = "misaligned", fmt.Sprintf("Access to %#x is misaligned", mf.Addr)
	} else if mf.Space == memspace.Global && c.opt.Mem != nil {
		detail += nearest(c.opt.Mem, mf.Addr)
	} else if mf.Reason != "" {
		detail += " (" + mf.Reason + ")"
	}
	f := c.add(Memcheck, kind, SevError, fmt.Sprintf("Invalid %s %s of size %d bytes", spaceName(mf.Space), verb, mf.Size), []Site{site}, mf.Space, mf.Size, mf.Addr, detail)
	// compute-sanitizer has a record for every bad lane of the warp
	// instruction; the VM stopped at the first.
	if n := m.badLanes(c, ft, mf); n > 1 {
		f.Count += n - 1
	}
	return true
}

// badLanes counts the lanes of the faulting warp instruction whose access
// is bad the way the faulting lane's is (misaligned, or out of bounds of
// global memory, the block's shared memory or the thread's local frame).
func (m *memState) badLanes(c *checker, ft *vm.Fault, mf *memspace.Fault) int {
	cta := c.cta
	if cta == nil || ft.Warp < 0 || ft.Warp >= len(cta.Warps()) {
		return 1
	}
	a := cta.Warps()[ft.Warp].LastAccess()
	if a.Mask>>ft.Lane&1 == 0 || a.Size == 0 {
		return 1
	}
	n := 0
	size := uint64(a.Size)
	for x := a.Mask; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x)
		sp, addr := a.Space, a.Addr[l]
		if sp == memspace.Generic {
			sp, addr = memspace.ResolveGeneric(addr)
		}
		if sp != mf.Space {
			continue
		}
		bad := false
		switch {
		case mf.Reason == "misaligned address":
			bad = addr%size != 0
		case sp == memspace.Global && c.opt.Mem != nil:
			bad = c.opt.Mem.Find(addr, size) == nil
		case sp == memspace.Shared:
			bad = addr+size > c.l.Kernel.DynamicBase+c.l.DynSmem
		case sp == memspace.Local:
			bad = addr+size > c.l.Kernel.Entry.LocalSize
		default:
			bad = l == ft.Lane
		}
		if bad {
			n++
		}
	}
	return max(n, 1)
}

// nearest says how far addr is from the nearest allocation, as
// compute-sanitizer does (an access at the first byte past the end is "1
// bytes after" it).
func nearest(g *memspace.GlobalMemory, addr uint64) string {
	as := g.Allocations()
	if len(as) == 0 {
		return ""
	}
	i := sort.Search(len(as), func(i int) bool { return as[i].Base > addr })
	best, dist, after := (*memspace.Allocation)(nil), uint64(0), false
	if i > 0 {
		p := as[i-1]
		if addr >= p.End() {
			best, dist, after = p, addr-p.End()+1, true
		} else {
			best, dist, after = p, 0, true
		}
	}
	if i < len(as) {
		n := as[i]
		if best == nil || n.Base-addr < dist {
			best, dist, after = n, n.Base-addr, false
		}
	}
	if best == nil {
		return ""
	}
	where := "after"
	if !after {
		where = "before"
	}
	return fmt.Sprintf(" and is %d bytes %s the nearest allocation at %#x of size %d bytes", dist, where, best.Base, best.Size)
}
