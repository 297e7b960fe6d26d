package program

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/ptxvm/ptxvm/memspace/hier"
	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/vm"
	"github.com/ptxvm/ptxvm/vm/compare"
	"github.com/ptxvm/ptxvm/vm/spec"
)

// Engine says which part of the GPU a step keeps busy: the copy engines
// (copies, prefetches), the SMs (kernels, memsets) or the host (its
// touches of managed memory).
type Engine string

const (
	EngineCopy Engine = "copy"
	EngineSMs  Engine = "sms"
	EngineHost Engine = "host"
)

// Step is what one step of a program did and cost.
type Step struct {
	Index int
	Kind  string // spec.StepCopy, StepMemset, StepPrefetch, StepLaunch
	What  string // "copy A to device (pinned)", "launch scale"
	// Buffer is the buffer a copy, memset or prefetch names; Bytes the
	// bytes it moved or set (a prefetch: those not already where it
	// sends them).
	Buffer string
	Bytes  uint64
	// HostMemory is a copy's host memory (pageable, pinned,
	// write_combined); To its direction.
	HostMemory, To string
	Engine         Engine
	// Timed says whether TimeUS is a model's figure: copies, memsets and
	// prefetches always are (on a profile with a host section), launches
	// in timing mode, their duration plus the profile's launch overhead
	// (gpu.Host.LaunchOverheadUS). StartUS is when the step began (steps
	// run one after another, as on one stream).
	Timed           bool
	TimeUS, StartUS float64
	// Launch is a launch step's run; Kernel its kernel (mangled).
	Launch *scheduler.Result
	Kernel string
	// Faults and Migrated are what a launch's first touches of managed
	// memory cost (pages and bytes moved to the device).
	Faults, Migrated uint64
	// Metrics are a launch's metrics (scheduler.LaunchMetrics).
	Metrics map[string]float64
}

// Run is a program's run.
type Run struct {
	Spec     *spec.Spec
	Prepared *spec.Prepared
	GPU      *scheduler.Profile
	Mode     string
	Steps    []Step
	// TimeUS is the program's modelled time: the sum of its steps' (as
	// on one stream); Timed says whether every step was timed.
	TimeUS float64
	Timed  bool
	// Outputs holds the output buffers after the last step.
	Outputs map[string][]byte
	Setup   time.Duration
	Elapsed time.Duration
	// apertures are the buffers that are not device memory, with the
	// managed pages' states after the last step.
	apertures map[string]*hier.Aperture
	// arrivedUS is what the next launch pays because data came to the
	// device since the last launch: gpu.Host.AfterTransferUS after a copy
	// to the device or a launch that migrated managed pages,
	// AfterPrefetchUS after a prefetch to the device (the larger if both).
	arrivedUS float64
	// prefetched and pageableNew are the bytes since the last launch
	// that prefetches brought to the device for the first time (pages
	// never on the device before), and that pageable copies put into
	// buffers no launch had used (gpu.Host's AfterPrefetchGrowth and
	// AfterPageableNew); launched holds the buffers launches have used,
	// wasOnDevice per managed buffer the pages that have been on the
	// device.
	prefetched, pageableNew uint64
	launched                map[string]bool
	wasOnDevice             map[string][]bool
	// residentBefore is, per managed buffer, its resident bytes before
	// the launch being run (migratedRange compares).
	residentBefore map[string]uint64
	// hostWarm is the buffer whose pageable copy to the device was the
	// last copy (its host bytes are in the host's cache, so the same copy
	// again runs at the warm rate); "" if none.
	hostWarm string
}

// Release frees the program's device memory (the outputs read back stay).
func (r *Run) Release() { r.Prepared.Device.Mem.FreeAll() }

// Resident is the bytes of managed buffer name on the device after the
// last step.
func (r *Run) Resident(name string) uint64 {
	if a := r.apertures[name]; a != nil {
		return a.Resident()
	}
	return 0
}

// Execute runs the steps of program sp in order on a fresh device whose
// memory is the GPU's, functionally or with the timing model (opt.Mode),
// and reads back its outputs. opt.Apertures and opt.DirtyL2 are the
// program's to set; cache may be nil.
func Execute(ctx context.Context, sp *spec.Spec, gpu *scheduler.Profile, opt scheduler.Options, cache *spec.ModuleCache) (*Run, error) {
	if !sp.IsProgram() {
		return nil, fmt.Errorf("the spec has no steps: run it as a launch")
	}
	if err := scheduler.CheckMode(opt.Mode); err != nil {
		return nil, err
	}
	dev := vm.NewDevice()
	if gpu.DeviceMemory > 0 {
		dev.Mem.Limit = uint64(gpu.DeviceMemory)
	}
	setup := time.Now()
	p, err := sp.PrepareMemory(dev, cache)
	if err != nil {
		dev.Mem.FreeAll()
		return nil, err
	}
	run := &Run{Spec: sp, Prepared: p, GPU: gpu, Mode: opt.Mode, Timed: true, apertures: map[string]*hier.Aperture{},
		residentBefore: map[string]uint64{}, launched: map[string]bool{}, wasOnDevice: map[string][]bool{}}
	if run.Mode == "" {
		run.Mode = scheduler.ModeFunctional
	}
	aps := scheduler.Apertures(p, &gpu.Memory)
	for _, a := range aps {
		for name, addr := range p.Buffers {
			if addr == a.Base {
				run.apertures[name] = a
			}
		}
	}
	run.Setup = time.Since(setup)
	start := time.Now()
	// l2: what the L2 holds between launches, from the last launch's end
	// (nil before the first: a clean L2), with what copies and prefetches
	// since did to it; dirty: what the last memset left in it for the
	// next launch (bytes at base), placed on top.
	var l2 *hier.Memory
	var dirtyBase, dirty uint64
	for i := range sp.Steps {
		st := &sp.Steps[i]
		s := Step{Index: i, Kind: st.Kind(), What: st.String(), Buffer: st.Buffer(), To: st.To, StartUS: run.TimeUS}
		var err error
		switch s.Kind {
		case spec.StepLaunch:
			var res *scheduler.Result
			res, err = run.launch(ctx, i, &s, opt, aps, l2, dirtyBase, dirty)
			dirty = 0
			if l2 = nil; err == nil && res.Hier != nil {
				l2 = res.Hier.Memory().Snapshot()
			}
		case spec.StepCopy:
			err = run.copy(st, &s)
			// Data from the host, and a managed buffer leaving for the
			// host, leave none of the buffer in the L2 (hostmem7).
			if l2 != nil && (st.To == "device" || s.Engine == EngineHost) {
				l2.Invalidate(p.Buffers[st.Copy], run.bufferBytes(st.Copy))
			}
			if st.To == "device" && dirtyBase == p.Buffers[st.Copy] {
				dirty = 0
			}
		case spec.StepMemset:
			err = run.memset(st, &s)
			if b, _ := sp.BufferSpec(st.Memset); !spec.OnHost(spec.MemoryOf(b)) {
				dirtyBase, dirty = p.Buffers[st.Memset], s.Bytes
			}
		case spec.StepPrefetch:
			err = run.prefetch(st, &s)
			if l2 != nil && s.Bytes > 0 {
				l2.Invalidate(p.Buffers[st.Prefetch], run.bufferBytes(st.Prefetch))
			}
			if st.To == "device" && s.Bytes > 0 && dirtyBase == p.Buffers[st.Prefetch] {
				dirty = 0
			}
		}
		if err != nil {
			dev.Mem.FreeAll()
			return nil, fmt.Errorf("steps[%d] (%s): %w", i, s.What, err)
		}
		run.Timed = run.Timed && s.Timed
		run.TimeUS += s.TimeUS
		run.Steps = append(run.Steps, s)
	}
	run.Elapsed = time.Since(start)
	if !opt.StreamOutputs {
		if run.Outputs, err = p.Outputs(); err != nil {
			dev.Mem.FreeAll()
			return nil, err
		}
	}
	return run, nil
}

// markOnDevice records which pages of managed buffer name are on the
// device now, and returns every page that has been (nil if name is not
// managed).
func (r *Run) markOnDevice(name string) []bool {
	a := r.apertures[name]
	if a == nil || a.Kind != hier.Managed {
		return nil
	}
	seen := r.wasOnDevice[name]
	if seen == nil {
		seen = make([]bool, len(a.Pages))
		r.wasOnDevice[name] = seen
	}
	for j, pg := range a.Pages {
		seen[j] = seen[j] || pg == hier.PageDevice
	}
	return seen
}

// bufferBytes is the size of buffer name.
func (r *Run) bufferBytes(name string) uint64 {
	b, _ := r.Spec.BufferSpec(name)
	return b.Count * uint64(compare.ElemSize(b.Type))
}

func (r *Run) launch(ctx context.Context, i int, s *Step, opt scheduler.Options, aps []*hier.Aperture, l2 *hier.Memory, dirtyBase, dirty uint64) (*scheduler.Result, error) {
	l, kernel, err := r.Prepared.LaunchStep(i)
	if err != nil {
		return nil, err
	}
	defer l.Release()
	s.Kernel, s.Engine = kernel, EngineSMs
	opt.Apertures = aps
	opt.DirtyL2, opt.DirtyBase, opt.L2Before = dirty, dirtyBase, l2
	if regs := r.Spec.Steps[i].Launch.Registers; regs > 0 && opt.Registers == 0 {
		opt.Registers = regs
	}
	h := &r.GPU.Host
	extraUS := r.arrivedUS
	if r.prefetched > 0 {
		extraUS = max(extraUS, h.AfterPrefetchUS+h.AfterPrefetchGrowth.US(r.prefetched))
	}
	if r.pageableNew > 0 {
		extraUS = max(extraUS, h.AfterTransferUS+h.AfterPageableNew.US(r.pageableNew))
	}
	r.arrivedUS, r.prefetched, r.pageableNew = 0, 0, 0
	for _, a := range r.Spec.Steps[i].Launch.Args {
		if a.Kind == "buffer" {
			r.launched[a.Name] = true
		}
	}
	for name, a := range r.apertures {
		if a.Kind == hier.Managed {
			r.residentBefore[name] = a.Resident()
		}
	}
	res, err := scheduler.Run(ctx, l, r.GPU, opt)
	if err != nil {
		return nil, err
	}
	for name, a := range r.apertures {
		if a.Kind == hier.Managed && a.Resident() > r.residentBefore[name] {
			r.arrivedUS = max(r.arrivedUS, r.GPU.Host.AfterTransferUS)
		}
		r.markOnDevice(name)
	}
	s.Launch = res
	s.Metrics = scheduler.LaunchMetrics(l, res)
	if res.Hier != nil {
		c := res.Hier.Counts()
		s.Faults, s.Migrated = c[hier.ManagedFaults], c[hier.ManagedMigratedBytes]
	}
	if t := res.Timing; t != nil {
		// The launch as CUDA events see it: the kernel's duration and
		// the launch's overhead.
		s.Timed = true
		s.TimeUS = t.Nanoseconds()/1e3 + r.GPU.Host.LaunchOverheadUS + extraUS
	}
	return res, nil
}

func (r *Run) copy(st *spec.Step, s *Step) error {
	b, _ := r.Spec.BufferSpec(st.Copy)
	s.Engine = EngineCopy
	s.Bytes = r.bufferBytes(st.Copy)
	if spec.MemoryOf(b) == spec.MemManaged {
		// The host reads a managed buffer: what is on the device
		// migrates back, a fault at a time.
		a := r.apertures[st.Copy]
		s.Engine, s.Bytes = EngineHost, a.Resident()
		s.What = "host reads " + st.Copy + " (managed)"
		us, err := HostTouchUS(r.GPU, s.Bytes)
		if err != nil {
			return err
		}
		for j, pg := range a.Pages {
			if pg == hier.PageDevice {
				a.Pages[j] = hier.PageHost
			}
		}
		s.Timed, s.TimeUS = true, us
		return nil
	}
	s.HostMemory = st.HostMemory
	if s.HostMemory == "" {
		s.HostMemory = spec.HostPageable
	}
	warm := r.hostWarm == st.Copy && st.To == "device" && s.HostMemory == spec.HostPageable
	us, err := copyUS(r.GPU, s.Bytes, st.To, s.HostMemory, warm)
	if err != nil {
		return err
	}
	r.hostWarm = ""
	if st.To == "device" {
		r.arrivedUS = max(r.arrivedUS, r.GPU.Host.AfterTransferUS)
		if s.HostMemory == spec.HostPageable {
			r.hostWarm = st.Copy
			if !r.launched[st.Copy] {
				r.pageableNew += s.Bytes
			}
		}
	}
	s.Timed, s.TimeUS = true, us
	return nil
}

func (r *Run) memset(st *spec.Step, s *Step) error {
	addr := r.Prepared.Buffers[st.Memset]
	n := r.bufferBytes(st.Memset)
	a := r.Prepared.Device.Mem.Find(addr, 1)
	if a == nil {
		return fmt.Errorf("buffer %s is not allocated", st.Memset)
	}
	chunk := bytes.Repeat([]byte{byte(*st.Value)}, int(min(n, 1<<20)))
	for off := uint64(0); off < n; off += uint64(len(chunk)) {
		if err := a.WriteAt(chunk[:min(uint64(len(chunk)), n-off)], off); err != nil {
			return err
		}
	}
	s.Bytes, s.Engine = n, EngineSMs
	b, _ := r.Spec.BufferSpec(st.Memset)
	var us float64
	var err error
	switch mem := spec.MemoryOf(b); {
	case spec.OnHost(mem):
		// Set over the host link.
		us, err = CopyUS(r.GPU, n, "device", spec.HostPinned)
	default:
		us, err = MemsetUS(r.GPU, n)
		if ap := r.apertures[st.Memset]; ap != nil {
			for j := range ap.Pages {
				ap.Pages[j] = hier.PageDevice
			}
			r.markOnDevice(st.Memset)
		}
	}
	if err != nil {
		return err
	}
	s.Timed, s.TimeUS = true, us
	return nil
}

func (r *Run) prefetch(st *spec.Step, s *Step) error {
	a := r.apertures[st.Prefetch]
	s.Engine = EngineCopy
	want, moved := hier.PageDevice, uint64(0)
	if st.To == "host" {
		want = hier.PageHost
	}
	seen := r.markOnDevice(st.Prefetch)
	for j, pg := range a.Pages {
		switch {
		case pg == want:
		case pg == hier.PageUntouched && want == hier.PageHost:
			// Nothing to move: it is made where it is first touched.
		case pg == hier.PageUntouched:
			a.Pages[j] = hier.PageDevice // made on the device, nothing moves
		default:
			a.Pages[j] = want
			moved += a.PageLen(j)
			if want == hier.PageDevice && !seen[j] {
				r.prefetched += a.PageLen(j)
			}
		}
	}
	r.markOnDevice(st.Prefetch)
	s.Bytes = moved
	if want == hier.PageDevice && moved > 0 {
		r.arrivedUS = max(r.arrivedUS, r.GPU.Host.AfterPrefetchUS)
	}
	us, err := PrefetchUS(r.GPU, moved, st.To)
	if err != nil {
		return err
	}
	s.Timed, s.TimeUS = true, us
	return nil
}
