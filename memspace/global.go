package memspace

import (
	"encoding/binary"
	"fmt"
	"io"
	"sort"
	"sync"
	"sync/atomic"
)

// Allocations up to DenseLimit bytes are stored contiguously and allocated
// in full by Malloc. Larger ones are sparse: their storage is PageSize-byte
// pages allocated the first time something writes into them, so host
// memory follows what a launch touches, not what it allocates. A page never
// written reads as the allocation's initial contents (Init), or zeros.
const (
	PageShift  = 16
	PageSize   = 1 << PageShift
	pageMask   = PageSize - 1
	DenseLimit = 1 << 20
)

type page = [PageSize]byte

// Allocation is one block of device memory.
type Allocation struct {
	Base uint64
	Size uint64
	Name string // what it holds, for error messages ("buffer A", "module constants")

	// Data holds a dense allocation's bytes (Size of them); nil for a
	// sparse one, whose bytes live in pages.
	Data []byte

	pages []atomic.Pointer[page]
	// init holds the contents of the pages never written (nil: zeros).
	init []byte
	mu   sync.Mutex // page allocation
	held atomic.Uint64
	g    *GlobalMemory
	// cow, under a Checkpoint, is a sparse allocation's pages as they were
	// (checkpoint.go); nil otherwise.
	cow *cow
}

// End is one past the last valid address.
func (a *Allocation) End() uint64 { return a.Base + a.Size }

// Sparse reports whether the allocation's storage is allocated page by page.
func (a *Allocation) Sparse() bool { return a.Data == nil }

// HostBytes is the host memory the allocation's contents take now.
func (a *Allocation) HostBytes() uint64 { return a.held.Load() }

// SetInit sets the contents of the allocation: a dense allocation copies
// data, a sparse one keeps it as the contents of the pages never written
// (so data must not change afterwards; a mapped file is fine). data may be
// shorter than the allocation; the rest is zero.
func (a *Allocation) SetInit(data []byte) error {
	if uint64(len(data)) > a.Size {
		return fmt.Errorf("%s holds %d bytes; %d were given", a.Name, a.Size, len(data))
	}
	if a.Data != nil {
		copy(a.Data, data)
		clear(a.Data[len(data):])
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for i := range a.pages {
		if p := a.pages[i].Load(); p != nil {
			a.pages[i].Store(nil)
			a.held.Add(^uint64(PageSize - 1))
			a.g.host.Add(^uint64(PageSize - 1))
		}
	}
	if uint64(len(data)) < a.Size {
		// Pages past the end of data read as zeros; pad the page that
		// data ends in by writing it.
		a.init = data[:len(data)&^pageMask]
		if rest := data[len(a.init):]; len(rest) > 0 {
			p, err := a.pageLocked(uint64(len(a.init)) >> PageShift)
			if err != nil {
				return err
			}
			copy(p[:], rest)
		}
		if len(a.init) == 0 {
			a.init = nil
		}
		return nil
	}
	a.init = data
	return nil
}

// pageFor returns the page holding offset off for writing, allocating it
// (with its initial contents) on first use.
func (a *Allocation) pageFor(off uint64) (*page, error) {
	i := off >> PageShift
	if p := a.pages[i].Load(); p != nil && a.cow == nil {
		return p, nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.pageLocked(i)
}

func (a *Allocation) pageLocked(i uint64) (*page, error) {
	if c := a.cow; c != nil && !c.written[i] {
		if err := a.copyOnWrite(c, i); err != nil {
			return nil, err
		}
	}
	if p := a.pages[i].Load(); p != nil {
		return p, nil
	}
	if err := a.g.reserveHost(PageSize, a); err != nil {
		return nil, err
	}
	p := new(page)
	if start := i << PageShift; start < uint64(len(a.init)) {
		copy(p[:], a.init[start:])
	}
	a.held.Add(PageSize)
	a.pages[i].Store(p)
	return p, nil
}

// readable returns the n bytes at offset off for reading; they must lie in
// one page. The slice must not be written.
func (a *Allocation) readable(off, n uint64) []byte {
	if a.Data != nil {
		return a.Data[off : off+n : off+n]
	}
	if p := a.pages[off>>PageShift].Load(); p != nil {
		o := off & pageMask
		return p[o : o+n : o+n]
	}
	if off+n <= uint64(len(a.init)) {
		return a.init[off : off+n : off+n]
	}
	return zeros[:n:n]
}

// zeros is what an untouched page reads as (the largest access is 16
// bytes; host copies go through ReadAt).
var zeros [64]byte

// writable returns the n bytes at offset off for writing (and reading);
// they must lie in one page.
func (a *Allocation) writable(off, n uint64) ([]byte, error) {
	if a.Data != nil {
		return a.Data[off : off+n : off+n], nil
	}
	p, err := a.pageFor(off)
	if err != nil {
		return nil, err
	}
	o := off & pageMask
	return p[o : o+n : o+n], nil
}

// load reads n (4 or 8) bytes at offset off of a sparse allocation.
func (a *Allocation) load(off, n uint64) uint64 {
	var b []byte
	if p := a.pages[off>>PageShift].Load(); p != nil {
		b = p[off&pageMask:]
	} else if off < uint64(len(a.init)) {
		b = a.init[off:]
	} else {
		return 0
	}
	if n == 4 {
		return uint64(binary.LittleEndian.Uint32(b))
	}
	return binary.LittleEndian.Uint64(b)
}

// ReadAt copies the allocation's bytes from offset off into dst.
func (a *Allocation) ReadAt(dst []byte, off uint64) error {
	if off > a.Size || uint64(len(dst)) > a.Size-off {
		return fmt.Errorf("read of %d bytes at offset %d of %s (%d bytes): out of range", len(dst), off, a.Name, a.Size)
	}
	if a.Data != nil {
		copy(dst, a.Data[off:])
		return nil
	}
	for len(dst) > 0 {
		n := min(uint64(len(dst)), PageSize-off&pageMask)
		if p := a.pages[off>>PageShift].Load(); p != nil {
			copy(dst[:n], p[off&pageMask:])
		} else {
			c := 0
			if off < uint64(len(a.init)) {
				c = copy(dst[:n], a.init[off:])
			}
			clear(dst[c:n])
		}
		dst, off = dst[n:], off+n
	}
	return nil
}

// WriteAt copies src into the allocation at offset off. Pages that src
// leaves as they were (zeros written into a zero page) stay unallocated.
func (a *Allocation) WriteAt(src []byte, off uint64) error {
	if off > a.Size || uint64(len(src)) > a.Size-off {
		return fmt.Errorf("write of %d bytes at offset %d of %s (%d bytes): out of range", len(src), off, a.Name, a.Size)
	}
	if a.Data != nil {
		copy(a.Data[off:], src)
		return nil
	}
	for len(src) > 0 {
		n := min(uint64(len(src)), PageSize-off&pageMask)
		if a.pages[off>>PageShift].Load() != nil || !a.unchanged(src[:n], off) {
			p, err := a.pageFor(off)
			if err != nil {
				return err
			}
			copy(p[off&pageMask:], src[:n])
		}
		src, off = src[n:], off+n
	}
	return nil
}

// unchanged reports whether writing b at off (within an unallocated page)
// would leave the page's contents as they are.
func (a *Allocation) unchanged(b []byte, off uint64) bool {
	var cur []byte
	if off < uint64(len(a.init)) {
		cur = a.init[off:min(off+uint64(len(b)), uint64(len(a.init)))]
	}
	for i, c := range b {
		if i < len(cur) {
			if c != cur[i] {
				return false
			}
		} else if c != 0 {
			return false
		}
	}
	return true
}

// WriteTo writes the allocation's contents to w, a page at a time.
func (a *Allocation) WriteTo(w io.Writer) (int64, error) {
	if a.Data != nil {
		n, err := w.Write(a.Data)
		return int64(n), err
	}
	buf := make([]byte, PageSize)
	var total int64
	for off := uint64(0); off < a.Size; off += PageSize {
		b := buf[:min(PageSize, a.Size-off)]
		if err := a.ReadAt(b, off); err != nil {
			return total, err
		}
		n, err := w.Write(b)
		total += int64(n)
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

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
	// Limit caps the bytes allocated (0: unlimited): the device's memory.
	Limit uint64
	// HostLimit caps the host memory the allocations' contents may take
	// (0: as much as the host has; see HostAvailable).
	HostLimit uint64
	host      atomic.Uint64 // host bytes held by the allocations

	locks [64]sync.Mutex // atomics from blocks running in parallel
}

// Lock returns the lock that serialises atomic operations on the 8-byte
// word holding addr.
func (g *GlobalMemory) Lock(addr uint64) *sync.Mutex { return &g.locks[addr>>3&63] }

// NewGlobalMemory returns an empty global memory.
func NewGlobalMemory() *GlobalMemory {
	return &GlobalMemory{next: GlobalBase, Limit: DefaultMemoryLimit}
}

// DefaultMemoryLimit is the H100's global memory (85,017,493,504 bytes, as
// Nsight Compute reported device__attribute_total_memory on the GPU the
// corpora were recorded on). Profiles set their own.
const DefaultMemoryLimit = 85_017_493_504

// MaxAllocation is the largest single allocation.
const MaxAllocation = 1 << 40

// HostBytes is the host memory the allocations' contents take now.
func (g *GlobalMemory) HostBytes() uint64 { return g.host.Load() }

// reserveHost takes n bytes of host memory for allocation a (nil: one
// being made), or says why it cannot.
func (g *GlobalMemory) reserveHost(n uint64, a *Allocation) error {
	held := g.host.Add(n)
	over := g.HostLimit != 0 && held > g.HostLimit
	if !over && !hostAvailable(n) {
		over = true
	}
	if !over {
		return nil
	}
	g.host.Add(^(n - 1))
	what := "the host is out of memory"
	if g.HostLimit != 0 {
		what = fmt.Sprintf("the host memory limit of %s is reached", bytesString(g.HostLimit))
	}
	if a == nil {
		return &HostMemoryError{Msg: what}
	}
	return &HostMemoryError{Msg: fmt.Sprintf("%s for another page of %s (%s of its %s written so far)",
		what, a.Name, bytesString(a.HostBytes()), bytesString(a.Size))}
}

// HostMemoryError is device memory the host could not provide.
type HostMemoryError struct{ Msg string }

func (e *HostMemoryError) Error() string { return e.Msg }

// Malloc allocates n bytes (zeroed) and returns the device address.
func (g *GlobalMemory) Malloc(n uint64, name string) (*Allocation, error) {
	if n == 0 {
		n = 1
	}
	if n > MaxAllocation {
		return nil, fmt.Errorf("malloc of %d bytes for %s: too large (at most %d bytes in one allocation)", n, name, uint64(MaxAllocation))
	}
	if g.Limit != 0 && g.total+n > g.Limit {
		return nil, fmt.Errorf("malloc of %d bytes for %s: out of device memory (%d of the device's %d bytes are allocated)", n, name, g.total, g.Limit)
	}
	a := &Allocation{Base: g.next, Size: n, Name: name, g: g}
	if n <= DenseLimit {
		if err := g.reserveHost(n, nil); err != nil {
			return nil, fmt.Errorf("malloc of %d bytes for %s: %w", n, name, err)
		}
		a.Data = make([]byte, n)
		a.held.Store(n)
	} else {
		a.pages = make([]atomic.Pointer[page], (n+pageMask)>>PageShift)
	}
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
	a := g.allocs[i]
	g.release(a)
	g.total -= a.Size
	g.allocs = append(g.allocs[:i], g.allocs[i+1:]...)
	return nil
}

func (g *GlobalMemory) release(a *Allocation) {
	a.mu.Lock()
	defer a.mu.Unlock()
	g.host.Add(^(a.held.Load() - 1))
	a.held.Store(0)
	a.Data, a.pages, a.init = nil, nil, nil
}

// FreeAll releases every allocation.
func (g *GlobalMemory) FreeAll() {
	for _, a := range g.allocs {
		g.release(a)
	}
	g.allocs = nil
	g.total = 0
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
	if addr-a.Base+n > a.Size || addr+n < addr {
		return nil
	}
	return a
}

// Slice returns the n bytes at addr for reading, which must lie inside one
// allocation (and, in a sparse one, inside one page: any naturally aligned
// access of up to 16 bytes does). The bytes must not be written. hint
// caches the last allocation found; pass a per-goroutine pointer.
func (g *GlobalMemory) Slice(addr, n uint64, hint **Allocation) ([]byte, bool) {
	a := g.lookup(addr, n, hint)
	if a == nil {
		return nil, false
	}
	return a.readable(addr-a.Base, n), true
}

// SliceW is Slice for writing: it allocates the page on first use, which
// fails with a *HostMemoryError when the host has no memory for it.
func (g *GlobalMemory) SliceW(addr, n uint64, hint **Allocation) ([]byte, *Allocation, error) {
	a := g.lookup(addr, n, hint)
	if a == nil {
		return nil, nil, nil
	}
	b, err := a.writable(addr-a.Base, n)
	return b, a, err
}

func (g *GlobalMemory) lookup(addr, n uint64, hint **Allocation) *Allocation {
	a := *hint
	if a == nil || addr-a.Base >= a.Size || n > a.Size-(addr-a.Base) {
		if a = g.Find(addr, n); a == nil {
			return nil
		}
		*hint = a
	}
	if a.Data == nil && (addr-a.Base)&pageMask+n > PageSize {
		return nil
	}
	return a
}

// CopyIn copies host bytes to device memory at addr.
func (g *GlobalMemory) CopyIn(addr uint64, src []byte) error {
	a := g.Find(addr, uint64(len(src)))
	if a == nil {
		return fmt.Errorf("copy of %d bytes to device address %#x: %s", len(src), addr, g.Describe(addr, uint64(len(src))))
	}
	return a.WriteAt(src, addr-a.Base)
}

// CopyOut copies device memory at addr to host bytes.
func (g *GlobalMemory) CopyOut(dst []byte, addr uint64) error {
	a := g.Find(addr, uint64(len(dst)))
	if a == nil {
		return fmt.Errorf("copy of %d bytes from device address %#x: %s", len(dst), addr, g.Describe(addr, uint64(len(dst))))
	}
	return a.ReadAt(dst, addr-a.Base)
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
	if addr+n <= a.End() {
		return fmt.Sprintf("crosses a %d-byte page of %s", PageSize, a.Name)
	}
	return fmt.Sprintf("runs past the end of %s [%#x, %#x) by %d bytes", a.Name, a.Base, a.End(), addr+n-a.End())
}

// Allocations lists the live allocations in address order.
func (g *GlobalMemory) Allocations() []*Allocation { return g.allocs }

func alignUp(x, a uint64) uint64 { return (x + a - 1) &^ (a - 1) }

func bytesString(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
