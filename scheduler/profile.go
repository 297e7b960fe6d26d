package scheduler

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/ptxvm/ptxvm/vm"
)

// Profile describes a GPU model: what the block scheduler and (later) the
// timing model need to know about it.
type Profile struct {
	Name            string
	ComputeCap      string
	SMs             int
	WarpsPerSM      int
	BlocksPerSM     int
	RegistersPerSM  int
	SharedPerSM     int // bytes
	SharedPerBlock  int // bytes a block may use
	L2Bytes         int
	ClockMHz        int
	SubPartitions   int // warp schedulers per SM
	RegAllocUnit    int // registers are allocated per warp in units of this many
	SharedAllocUnit int // bytes
	// Launch limits of the compute capability (the VM itself checks those
	// of 9.0).
	MaxThreadsPerBlock int
	MaxGridX           int
	// MemoryBytes is the device's global memory: what a launch may
	// allocate.
	MemoryBytes uint64
}

// H100 is the NVIDIA H100 SXM5 (compute capability 9.0), the GPU the ground
// truth was recorded on.
var H100 = &Profile{
	Name: "H100", ComputeCap: "9.0", SMs: 132, WarpsPerSM: 64, BlocksPerSM: 32,
	RegistersPerSM: 65536, SharedPerSM: 228 << 10, SharedPerBlock: 227 << 10,
	L2Bytes: 50 << 20, ClockMHz: 1980, SubPartitions: 4, RegAllocUnit: 256, SharedAllocUnit: 128,
	MaxThreadsPerBlock: 1024, MaxGridX: 1<<31 - 1,
	// Nsight Compute's device__attribute_total_memory on the H100 80GB
	// HBM3 the corpora were recorded on.
	MemoryBytes: 85_017_493_504,
}

// GF100 is the Fermi GF100 (GTX 480, compute capability 2.0) the source
// texts describe.
var GF100 = &Profile{
	Name: "GF100", ComputeCap: "2.0", SMs: 15, WarpsPerSM: 48, BlocksPerSM: 8,
	RegistersPerSM: 32768, SharedPerSM: 48 << 10, SharedPerBlock: 48 << 10,
	L2Bytes: 768 << 10, ClockMHz: 1401, SubPartitions: 2, RegAllocUnit: 64, SharedAllocUnit: 128,
	MaxThreadsPerBlock: 1024, MaxGridX: 65535,
	MemoryBytes: 1536 << 20, // the GTX 480's 1536 MiB
}

var profiles = map[string]*Profile{"h100": H100, "gf100": GF100}

// LookupProfile finds a profile by name (case-insensitive).
func LookupProfile(name string) (*Profile, error) {
	if p, ok := profiles[strings.ToLower(name)]; ok {
		return p, nil
	}
	var names []string
	for n := range profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	return nil, fmt.Errorf("unknown GPU %q (known: %s)", name, strings.Join(names, ", "))
}

// TargetError is a module written for a GPU the profile is not.
type TargetError struct {
	Target string // the module's .target, e.g. sm_90
	GPU    *Profile
	Why    string
}

func (e *TargetError) Error() string {
	return fmt.Sprintf("the module targets %s; the %s (compute capability %s) %s", e.Target, e.GPU.Name, e.GPU.ComputeCap, e.Why)
}

// CheckTarget reports whether PTX whose .target lists targets can run on
// this GPU, as the driver decides when it compiles PTX: sm_XY needs compute
// capability X.Y or later, sm_XYa exactly X.Y, sm_XYf the same major
// version at X.Y or later. Other entries (texmode_*, debug, map_f64_to_f32)
// are not architectures.
func (p *Profile) CheckTarget(targets []string) error {
	cc, ok := ccNumber(p.ComputeCap)
	if !ok {
		return nil
	}
	for _, t := range targets {
		if !strings.HasPrefix(t, "sm_") {
			continue
		}
		num := strings.TrimRight(t[3:], "af")
		suffix := t[3+len(num):]
		v, err := strconv.Atoi(num)
		if err != nil {
			continue
		}
		switch {
		case suffix == "a" && cc != v:
			return &TargetError{Target: t, GPU: p, Why: fmt.Sprintf("cannot run it: %s code runs only on compute capability %d.%d", t, v/10, v%10)}
		case suffix == "f" && (cc/10 != v/10 || cc < v):
			return &TargetError{Target: t, GPU: p, Why: fmt.Sprintf("cannot run it: %s code runs only on compute capability %d.x from %d.%d", t, v/10, v/10, v%10)}
		case cc < v:
			return &TargetError{Target: t, GPU: p, Why: fmt.Sprintf("cannot run it: %s code needs compute capability %d.%d or later", t, v/10, v%10)}
		}
	}
	return nil
}

func ccNumber(s string) (int, bool) {
	maj, min, ok := strings.Cut(s, ".")
	a, err1 := strconv.Atoi(maj)
	b, err2 := strconv.Atoi(min)
	if !ok || err1 != nil || err2 != nil {
		return 0, false
	}
	return a*10 + b, true
}

// CheckLaunch reports whether l can run on this GPU: a block must fit on
// one of its SMs (threads, shared memory) and the grid within its limits.
// A zero field of the profile sets no limit.
func (p *Profile) CheckLaunch(l *vm.Launch) error {
	k, g, b := l.Kernel, l.Grid, l.Block
	maxThreads := p.MaxThreadsPerBlock
	if p.WarpsPerSM > 0 && (maxThreads == 0 || 32*p.WarpsPerSM < maxThreads) {
		maxThreads = 32 * p.WarpsPerSM
	}
	if t := l.ThreadsPerCTA(); maxThreads > 0 && t > maxThreads {
		return fmt.Errorf("kernel %s: block (%d,%d,%d) has %d threads; the %s allows %d per block", k.Name, b[0], b[1], b[2], t, p.Name, maxThreads)
	}
	if p.MaxGridX > 0 && int64(g[0]) > int64(p.MaxGridX) {
		return fmt.Errorf("kernel %s: grid (%d,%d,%d) exceeds the %s's %d blocks in x", k.Name, g[0], g[1], g[2], p.Name, p.MaxGridX)
	}
	if s := k.DynamicBase + l.DynSmem; p.SharedPerBlock > 0 && s > uint64(p.SharedPerBlock) {
		return fmt.Errorf("kernel %s: %d bytes of shared memory per block (%d static + %d dynamic) exceed the %s's %d bytes per block", k.Name, s, k.SharedStatic, l.DynSmem, p.Name, p.SharedPerBlock)
	}
	return nil
}
