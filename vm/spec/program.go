package spec

import "fmt"

// Where a buffer lives (Buffer.Memory).
const (
	MemDevice  = "device"  // cudaMalloc: device memory (the default)
	MemPinned  = "pinned"  // cudaHostAlloc / cudaMallocHost: page-locked host memory
	MemMapped  = "mapped"  // cudaHostAlloc(cudaHostAllocMapped): zero-copy host memory
	MemManaged = "managed" // cudaMallocManaged: migrated between host and device on demand
)

// Host memory of a copy step (Step.HostMemory): the host side of a
// cudaMemcpy.
const (
	HostPageable      = "pageable"       // malloc: the driver stages it through a pinned buffer
	HostPinned        = "pinned"         // cudaMallocHost
	HostWriteCombined = "write_combined" // cudaHostAlloc(cudaHostAllocWriteCombined)
)

// MemoryOf is where buffer b lives: b.Memory, or "device".
func MemoryOf(b Buffer) string {
	if b.Memory == "" {
		return MemDevice
	}
	return b.Memory
}

// OnHost says whether memory kind mem is host memory a kernel reaches over
// the host link (pinned and mapped: with unified addressing every pinned
// allocation is mapped).
func OnHost(mem string) bool { return mem == MemPinned || mem == MemMapped }

func checkMemory(what string, b Buffer) error {
	switch MemoryOf(b) {
	case MemDevice, MemManaged:
		if b.WriteCombined {
			return fmt.Errorf("%s (%s): write_combined is for pinned or mapped memory, not %s", what, b.Name, MemoryOf(b))
		}
	case MemPinned, MemMapped:
	default:
		return fmt.Errorf("%s (%s): memory %q is not one of device, pinned, mapped, managed", what, b.Name, b.Memory)
	}
	return nil
}

// Step is one step of a program: exactly one of Copy, Memset, Prefetch and
// Launch is set.
//
//	{"copy": "A", "to": "device", "host_memory": "pinned"}  cudaMemcpy of the whole buffer
//	{"memset": "A", "value": 0}                             cudaMemset of the whole buffer
//	{"prefetch": "M", "to": "device"}                       cudaMemPrefetchAsync (managed)
//	{"launch": {"kernel": ..., "grid": ..., "block": ..., "args": [...]}}
//
// A copy moves a device buffer between the device and a host array of kind
// HostMemory (default pageable); a copy "to": "host" of a managed buffer is
// the host reading it (its pages migrate back). The bytes are one: a copy
// takes time but changes no byte, a memset sets every byte.
type Step struct {
	Copy       string      `json:"copy,omitempty"`
	Memset     string      `json:"memset,omitempty"`
	Prefetch   string      `json:"prefetch,omitempty"`
	Launch     *LaunchStep `json:"launch,omitempty"`
	To         string      `json:"to,omitempty"`          // copy, prefetch: "device" or "host"
	HostMemory string      `json:"host_memory,omitempty"` // copy: pageable (default), pinned or write_combined
	Value      *int        `json:"value,omitempty"`       // memset: the byte value, 0 to 255
}

// LaunchStep is a launch of a program: a kernel (in Module, default the
// spec's module), its geometry and arguments, as a single-launch spec
// gives them at its top level.
type LaunchStep struct {
	Module             string   `json:"module,omitempty"`
	Kernel             string   `json:"kernel"`
	Grid               []uint32 `json:"grid"`
	Block              []uint32 `json:"block"`
	DynamicSharedBytes uint64   `json:"dynamic_shared_bytes,omitempty"`
	Args               []Arg    `json:"args"`
	StackBytes         uint64   `json:"stack_bytes,omitempty"`
	Registers          int      `json:"registers,omitempty"`
	Cluster            []uint32 `json:"cluster,omitempty"`
}

// Step kinds (Step.Kind).
const (
	StepCopy     = "copy"
	StepMemset   = "memset"
	StepPrefetch = "prefetch"
	StepLaunch   = "launch"
)

// Kind names the step: copy, memset, prefetch or launch ("" when none or
// several are set).
func (st *Step) Kind() string {
	var kinds []string
	if st.Copy != "" {
		kinds = append(kinds, StepCopy)
	}
	if st.Memset != "" {
		kinds = append(kinds, StepMemset)
	}
	if st.Prefetch != "" {
		kinds = append(kinds, StepPrefetch)
	}
	if st.Launch != nil {
		kinds = append(kinds, StepLaunch)
	}
	if len(kinds) != 1 {
		return ""
	}
	return kinds[0]
}

// Buffer is the buffer a copy, memset or prefetch names.
func (st *Step) Buffer() string { return st.Copy + st.Memset + st.Prefetch }

// String describes the step in a few words: "copy A to device (pinned)".
func (st *Step) String() string {
	switch st.Kind() {
	case StepCopy:
		hm := st.HostMemory
		if hm == "" {
			hm = HostPageable
		}
		return fmt.Sprintf("copy %s to %s (%s)", st.Copy, st.To, hm)
	case StepMemset:
		return fmt.Sprintf("memset %s to %d", st.Memset, *st.Value)
	case StepPrefetch:
		return fmt.Sprintf("prefetch %s to %s", st.Prefetch, st.To)
	case StepLaunch:
		return "launch " + st.Launch.Kernel
	}
	return "step"
}

// IsProgram says whether the spec is a program of several steps.
func (s *Spec) IsProgram() bool { return len(s.Steps) > 0 }

// BufferSpec returns the spec's buffer called name.
func (s *Spec) BufferSpec(name string) (Buffer, bool) {
	for _, b := range s.Buffers {
		if b.Name == name {
			return b, true
		}
	}
	return Buffer{}, false
}

// checkSteps checks a program's steps (names: the spec's buffers and
// textures).
func (s *Spec) checkSteps(names map[string]string) error {
	for i := range s.Steps {
		st := &s.Steps[i]
		what := fmt.Sprintf("steps[%d]", i)
		kind := st.Kind()
		if kind == "" {
			return fmt.Errorf(`%s must have exactly one of "copy", "memset", "prefetch" and "launch"`, what)
		}
		if kind != StepLaunch {
			if names[st.Buffer()] != "buffer" {
				return fmt.Errorf("%s (%s): %q is not a buffer of this spec", what, kind, st.Buffer())
			}
		}
		b, _ := s.BufferSpec(st.Buffer())
		mem := MemoryOf(b)
		if kind != StepCopy && st.HostMemory != "" {
			return fmt.Errorf(`%s (%s): "host_memory" is for a copy`, what, kind)
		}
		if kind != StepMemset && st.Value != nil {
			return fmt.Errorf(`%s (%s): "value" is for a memset`, what, kind)
		}
		if (kind == StepMemset || kind == StepLaunch) && st.To != "" {
			return fmt.Errorf(`%s (%s): "to" is for a copy or a prefetch`, what, kind)
		}
		switch kind {
		case StepCopy, StepPrefetch:
			if st.To != "device" && st.To != "host" {
				return fmt.Errorf(`%s (%s %s): "to" must be "device" or "host", not %q`, what, kind, st.Buffer(), st.To)
			}
		}
		switch kind {
		case StepCopy:
			switch st.HostMemory {
			case "", HostPageable, HostPinned, HostWriteCombined:
			default:
				return fmt.Errorf(`%s (copy %s): "host_memory" %q is not one of pageable, pinned, write_combined`, what, st.Copy, st.HostMemory)
			}
			if OnHost(mem) {
				return fmt.Errorf("%s (copy %s): the buffer lives in %s host memory, which kernels read over the host link; there is no device copy to make (give it \"memory\": \"device\" to copy it)", what, st.Copy, mem)
			}
			if mem == MemManaged && (st.To == "device" || st.HostMemory != "") {
				return fmt.Errorf(`%s (copy %s): a managed buffer moves with "prefetch" (or on first touch); a copy "to": "host" is the host reading it, with no "host_memory"`, what, st.Copy)
			}
		case StepMemset:
			if st.Value == nil || *st.Value < 0 || *st.Value > 255 {
				return fmt.Errorf(`%s (memset %s): "value" must be a byte value, 0 to 255`, what, st.Memset)
			}
		case StepPrefetch:
			if mem != MemManaged {
				return fmt.Errorf("%s (prefetch %s): prefetch is for managed memory; the buffer is %s memory", what, st.Prefetch, mem)
			}
		case StepLaunch:
			l := st.Launch
			w := what + " (launch)"
			if l.Kernel == "" {
				return fmt.Errorf(`%s: "kernel" is missing`, w)
			}
			if _, err := dims3("grid", l.Grid); err != nil {
				return fmt.Errorf("%s: %w", w, err)
			}
			if _, err := dims3("block", l.Block); err != nil {
				return fmt.Errorf("%s: %w", w, err)
			}
			if l.Cluster != nil {
				if _, err := dims3("cluster", l.Cluster); err != nil {
					return fmt.Errorf("%s: %w", w, err)
				}
			}
			if l.Registers < 0 || l.Registers > 255 {
				return fmt.Errorf(`%s: "registers" is %d; a thread has 1 to 255 registers`, w, l.Registers)
			}
			if err := checkArgList(w+": args", l.Args, names); err != nil {
				return err
			}
		}
	}
	return nil
}
