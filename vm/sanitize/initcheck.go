package sanitize

import (
	"math/bits"
	"sort"

	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/vm"
)

// initState is initcheck's shadow: a bit per byte of each global
// allocation the host never wrote, set when the kernel writes the byte;
// with Shared, a bit per byte of the running block's shared memory.
type initState struct {
	allocs []*memspace.Allocation // address order
	bits   [][]uint64
	shared bool
	sh     []uint64 // the block's shared memory, when shared
}

func newInitState(uninit []*memspace.Allocation, shared bool) *initState {
	s := &initState{shared: shared}
	as := append([]*memspace.Allocation(nil), uninit...)
	sort.Slice(as, func(i, j int) bool { return as[i].Base < as[j].Base })
	for _, a := range as {
		if a == nil {
			continue
		}
		s.allocs = append(s.allocs, a)
		s.bits = append(s.bits, make([]uint64, (a.Size+63)/64))
	}
	return s
}

func (s *initState) beginCTA() { clear(s.sh) }

// find returns the index of the tracked allocation holding addr, or -1.
func (s *initState) find(addr uint64) int {
	i := sort.Search(len(s.allocs), func(i int) bool { return s.allocs[i].Base > addr }) - 1
	if i < 0 || addr-s.allocs[i].Base >= s.allocs[i].Size {
		return -1
	}
	return i
}

// access checks a warp-wide access's reads and records its writes.
func (s *initState) access(c *checker, cta *vm.CTA, a *memspace.Access) {
	switch a.Space {
	case memspace.Global:
		if len(s.allocs) == 0 {
			return
		}
	case memspace.Shared:
		if !s.shared {
			return
		}
		if n := (len(cta.Shared()) + 63) / 64; len(s.sh) < n {
			s.sh = append(s.sh, make([]uint64, n-len(s.sh))...)
		}
	default:
		return
	}
	// An atomic reads its word; it does not make it initialised for
	// compute-sanitizer (every atomic on a word never stored to is
	// reported), so it writes no shadow.
	read := a.Kind != memspace.Store
	write := a.Kind == memspace.Store
	for x := a.Mask; x != 0; x &= x - 1 {
		l := bits.TrailingZeros32(x)
		addr := a.Addr[l]
		var bm []uint64
		var off uint64
		if a.Space == memspace.Shared {
			bm, off = s.sh, addr
		} else {
			i := s.find(addr)
			if i < 0 {
				continue
			}
			bm, off = s.bits[i], addr-s.allocs[i].Base
		}
		n := uint64(a.Size)
		if lim := uint64(len(bm)) * 64; off+n > lim {
			if off >= lim {
				continue
			}
			n = lim - off
		}
		if read {
			for b := off; b < off+n; b++ {
				if bm[b/64]>>(b%64)&1 == 0 {
					s.report(c, cta, a, l, addr)
					break
				}
			}
		}
		if write {
			for b := off; b < off+n; b++ {
				bm[b/64] |= 1 << (b % 64)
			}
		}
	}
}

func (s *initState) report(c *checker, cta *vm.CTA, a *memspace.Access, l int, addr uint64) {
	what := "Read"
	kind := "uninitialized read"
	if a.Kind == memspace.Atomic || a.Kind == memspace.Reduction {
		what, kind = "Atomic", "uninitialized atomic"
	}
	site := c.site(a.Origin.Inst, cta, a.Origin.Warp, l, what)
	title := "Uninitialized " + spaceName(a.Space) + " memory read"
	detail := ""
	if a.Space == memspace.Shared {
		detail = "shared memory: reported by ptxvm only (compute-sanitizer's initcheck tracks global memory)"
	}
	c.add(Initcheck, kind, SevError, title, []Site{site}, a.Space, int(a.Size), addr, detail)
}
