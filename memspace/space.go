package memspace

import "fmt"

// Space is a PTX state space as seen by a memory instruction.
type Space uint8

// The state spaces. Generic is an address that still has to be resolved to
// one of the others (cvta windows).
const (
	Global Space = iota
	Shared
	Local
	Const
	Param   // kernel parameters (uniform for the launch)
	FParam  // function call parameters (per thread, per frame)
	Texture // texture fetches (issue 3)
	Generic
	numSpaces
)

var spaceNames = [...]string{"global", "shared", "local", "const", "param", "param", "texture", "generic"}

func (s Space) String() string {
	if int(s) < len(spaceNames) {
		return spaceNames[s]
	}
	return fmt.Sprintf("space(%d)", s)
}

// Kind says what a memory instruction does.
type Kind uint8

// Access kinds.
const (
	Load Kind = iota
	Store
	Atomic
	Reduction
)

func (k Kind) String() string {
	switch k {
	case Load:
		return "load"
	case Store:
		return "store"
	case Atomic:
		return "atomic"
	case Reduction:
		return "reduction"
	}
	return fmt.Sprintf("kind(%d)", k)
}

// Generic address windows. A generic address inside one of these windows
// resolves to the shared memory of the executing CTA or to the local memory of
// the executing thread; every other generic address is a global address.
// Global allocations are placed well away from both.
const (
	SharedWindow     uint64 = 0x0000_7f00_0000_0000
	LocalWindow      uint64 = 0x0000_7f80_0000_0000
	WindowSize       uint64 = 1 << 32
	GlobalBase       uint64 = 0x0000_0007_0000_0000 // first device allocation
	AllocAlign       uint64 = 256                   // cudaMalloc alignment
	ConstBankSize           = 64 << 10              // one module's constant bank
	MaxSharedPerCTA         = 227 << 10             // H100: 227 KiB usable per block
	DefaultLocalSize        = 64 << 10              // per-thread local memory ceiling
)

// ResolveGeneric splits a generic address into a space and an address in it.
func ResolveGeneric(a uint64) (Space, uint64) {
	switch {
	case a-SharedWindow < WindowSize:
		return Shared, a - SharedWindow
	case a-LocalWindow < WindowSize:
		return Local, a - LocalWindow
	}
	return Global, a
}

// Fault describes a memory access that cannot be performed.
type Fault struct {
	Lane   int
	Space  Space
	Addr   uint64
	Size   int
	Reason string
}

func (f *Fault) Error() string {
	return fmt.Sprintf("%s %s of %d bytes at %#x: %s", f.Space, "access", f.Size, f.Addr, f.Reason)
}
