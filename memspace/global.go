package memspace

import (
	"fmt"
	"sort"
	"sync"
)

// Allocation is one block of device memory.
type Allocation struct {
	Base uint64
	Data []byte
	Name string // what it holds, for error messages ("buffer A", "module constants")
}

// End is one past the last valid address.
func (a *Allocation) End() uint64 { return a.Base + uint64(len(a.Data)) }

// GlobalMemory is the device's global memory: a set of allocations, each aligned to
// AllocAlign and separated by a guard gap so that running off the end of one is
// never a hit in the next.
//
// Allocating and freeing is not safe during a launch; reading and writing
// allocations from many goroutines is (the kernel decides whether that races).
type GlobalMemory struct {
	allocs []*Allocation // sorted by Base
	next   uint64
	total  uint64
	// Limit caps the bytes allocated (0: unlimited).
	Limit uint64

	locks [64]sync.Mutex // atomics from blocks running in parallel
}

// Lock returns the lock that serialises atomic operations on the 8-byte
// word holding addr.
func (g *GlobalMemory) Lock(addr uint64) *sync.Mutex { return &g.locks[addr>>3&63] }

// NewGlobalMemory returns an empty global memory.
func NewGlobalMemory() *GlobalMemory {
	return &GlobalMemory{next: GlobalBase, Limit: DefaultMemoryLimit}
}

// DefaultMemoryLimit caps a device's allocations, so that a bad launch spec
// fails with an error instead of exhausting the host.
const DefaultMemoryLimit = 16 << 30

// Malloc allocates n bytes (zeroed) and returns the device address.
func (g *GlobalMemory) Malloc(n uint64, name string) (*Allocation, error) {
	if n == 0 {
		n = 1
	}
	if n > 1<<40 {
		return nil, fmt.Errorf("malloc of %d bytes: too large", n)
	}
	if g.Limit != 0 && g.total+n > g.Limit {
		return nil, fmt.Errorf("malloc of %d bytes for %s: out of device memory (limit %d bytes)", n, name, g.Limit)
	}
	a := &Allocation{Base: g.next, Data: make([]byte, n), Name: name}
	// Leave at least one alignment unit of unmapped guard space after each allocation.
	g.next = alignUp(g.next+n+AllocAlign, AllocAlign)
	g.total += n
	g.allocs = append(g.allocs, a) // bases increase monotonically: stays sorted
	return a, nil
}

// Free releases the allocation that starts at base.
func (g *GlobalMemory) Free(base uint64) error {
	i := sort.Search(len(g.allocs), func(i int) bool { return g.allocs[i].Base >= base })
	if i == len(g.allocs) || g.allocs[i].Base != base {
		return fmt.Errorf("free of %#x: not the start of an allocation", base)
	}
	g.total -= uint64(len(g.allocs[i].Data))
	g.allocs = append(g.allocs[:i], g.allocs[i+1:]...)
	return nil
}

// Find returns the allocation containing [addr, addr+n), or nil.
func (g *GlobalMemory) Find(addr, n uint64) *Allocation {
	as := g.allocs
	lo, hi := 0, len(as)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if as[m].Base <= addr {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 {
		return nil
	}
	a := as[lo-1]
	if addr-a.Base+n > uint64(len(a.Data)) || addr+n < addr {
		return nil
	}
	return a
}

// Slice returns the n bytes at addr, which must lie inside one allocation.
// hint caches the last allocation found; pass a per-goroutine pointer.
func (g *GlobalMemory) Slice(addr, n uint64, hint **Allocation) ([]byte, bool) {
	if a := *hint; a != nil {
		if off := addr - a.Base; off < uint64(len(a.Data)) && n <= uint64(len(a.Data))-off {
			return a.Data[off : off+n : off+n], true
		}
	}
	a := g.Find(addr, n)
	if a == nil {
		return nil, false
	}
	*hint = a
	off := addr - a.Base
	return a.Data[off : off+n : off+n], true
}

// Describe explains why addr is not a valid n-byte global access.
func (g *GlobalMemory) Describe(addr, n uint64) string {
	a := g.Find(addr, 1)
	if a == nil {
		// Nearest allocation below, for context.
		i := sort.Search(len(g.allocs), func(i int) bool { return g.allocs[i].Base > addr })
		if i > 0 {
			p := g.allocs[i-1]
			return fmt.Sprintf("not inside any allocation (%d bytes past the end of %s [%#x, %#x))", addr-p.End(), p.Name, p.Base, p.End())
		}
		return "not inside any allocation"
	}
	return fmt.Sprintf("runs past the end of %s [%#x, %#x) by %d bytes", a.Name, a.Base, a.End(), addr+n-a.End())
}

// Allocations lists the live allocations in address order.
func (g *GlobalMemory) Allocations() []*Allocation { return g.allocs }

func alignUp(x, a uint64) uint64 { return (x + a - 1) &^ (a - 1) }
