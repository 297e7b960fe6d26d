package scheduler

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ptxvm/ptxvm/scheduler/gpu"
	"github.com/ptxvm/ptxvm/vm"
)

// Profile describes a GPU model (package gpu: JSON profiles embedded in the
// binary, or a file of the user's).
type Profile = gpu.Profile

// H100 is the NVIDIA H100 SXM5 (compute capability 9.0), the GPU the ground
// truth was recorded on.
var H100 = gpu.MustLookup("h100")

// GF100 is the Fermi GF100 (GTX 480, compute capability 2.0) the source
// texts describe.
var GF100 = gpu.MustLookup("gf100")

// LookupProfile returns the embedded profile called nameOrFile
// (case-insensitive: H100 and GF100 are shared values) or else reads the
// profile file of that name.
func LookupProfile(nameOrFile string) (*Profile, error) {
	switch strings.ToLower(nameOrFile) {
	case "h100":
		return H100, nil
	case "gf100":
		return GF100, nil
	}
	return gpu.Load(nameOrFile)
}

// CheckLaunch reports whether l can run on GPU p: a block must fit on one
// of its SMs (threads, shared memory) and the grid within its limits. A
// zero field of the profile sets no limit.
func CheckLaunch(p *Profile, l *vm.Launch) error {
	k, g, b := l.Kernel, l.Grid, l.Block
	maxThreads := p.Launch.MaxThreadsPerBlock
	if w := p.SM.MaxWarps; w > 0 && (maxThreads == 0 || 32*w < maxThreads) {
		maxThreads = 32 * w
	}
	if t := l.ThreadsPerCTA(); maxThreads > 0 && t > maxThreads {
		return fmt.Errorf("kernel %s: block (%d,%d,%d) has %d threads; the %s allows %d per block", k.Name, b[0], b[1], b[2], t, p.Name, maxThreads)
	}
	for i, axis := range []string{"x", "y", "z"} {
		if m := p.Launch.MaxBlockDim[i]; m > 0 && int64(b[i]) > int64(m) {
			return fmt.Errorf("kernel %s: block (%d,%d,%d) exceeds the %s's %d threads in %s", k.Name, b[0], b[1], b[2], p.Name, m, axis)
		}
		if m := p.Launch.MaxGridDim[i]; m > 0 && int64(g[i]) > int64(m) {
			return fmt.Errorf("kernel %s: grid (%d,%d,%d) exceeds the %s's %d blocks in %s", k.Name, g[0], g[1], g[2], p.Name, m, axis)
		}
	}
	if s := k.DynamicBase - vm.SharedReserved + l.DynSmem; p.Launch.MaxSharedPerBlock > 0 && s > uint64(p.Launch.MaxSharedPerBlock) {
		return fmt.Errorf("kernel %s: %d bytes of shared memory per block (%d static + %d dynamic) exceed the %s's %d bytes per block", k.Name, s, k.SharedStatic, l.DynSmem, p.Name, p.Launch.MaxSharedPerBlock)
	}
	return nil
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
// GPU p, as the driver decides when it compiles PTX: sm_XY needs compute
// capability X.Y or later, sm_XYa exactly X.Y, sm_XYf the same major version
// at X.Y or later. Other entries (texmode_*, debug, map_f64_to_f32) are not
// architectures.
func CheckTarget(p *Profile, targets []string) error {
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
