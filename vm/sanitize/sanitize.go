package sanitize

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"strings"

	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/vm"
)

// Tool is a set of checkers.
type Tool uint8

// The tools.
const (
	Memcheck Tool = 1 << iota
	Racecheck
	Synccheck
	Initcheck
	All = Memcheck | Racecheck | Synccheck | Initcheck
)

var toolNames = []struct {
	t    Tool
	name string
}{{Memcheck, "memcheck"}, {Racecheck, "racecheck"}, {Synccheck, "synccheck"}, {Initcheck, "initcheck"}}

// ParseTool reads a tool name: memcheck, racecheck, synccheck, initcheck,
// all, or several joined by commas.
func ParseTool(s string) (Tool, error) {
	var t Tool
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(strings.ToLower(p))
		if p == "all" {
			t |= All
			continue
		}
		found := false
		for _, n := range toolNames {
			if n.name == p {
				t |= n.t
				found = true
			}
		}
		if !found {
			return 0, fmt.Errorf("unknown tool %q (memcheck, racecheck, synccheck, initcheck or all)", p)
		}
	}
	if t == 0 {
		return 0, errors.New("no tool given (memcheck, racecheck, synccheck, initcheck or all)")
	}
	return t, nil
}

func (t Tool) String() string {
	if t == All {
		return "all"
	}
	var parts []string
	for _, n := range toolNames {
		if t&n.t != 0 {
			parts = append(parts, n.name)
		}
	}
	if len(parts) == 0 {
		return "launch"
	}
	return strings.Join(parts, ",")
}

// Options choose the tools and bound the run.
type Options struct {
	Tools Tool
	// SMs is %nsmid and how blocks are numbered onto SMs (%smid); 0: 132.
	SMs int
	// MaxInst stops the launch after this many warp instructions (0: no
	// limit).
	MaxInst int64
	// Shared makes initcheck report shared-memory reads before any write
	// too (compute-sanitizer tracks global memory only).
	Shared bool
	// Global adds racecheck's hazards between blocks in global memory
	// (beyond compute-sanitizer, which checks shared memory).
	Global bool
	// Uninit lists the global allocations the host never wrote (initcheck):
	// a spec buffer with neither file nor fill.
	Uninit []*memspace.Allocation
	// Mem is the device's global memory (memcheck: the nearest allocation).
	Mem *memspace.GlobalMemory
}

// Quantum is how many instructions a warp runs before the next warp of the
// block takes its turn: small, so that warps progress together as on the
// GPU, which decides which side of a race comes first.
const Quantum = 2

// Severity of a finding.
const (
	SevError   = "error"
	SevWarning = "warning"
)

// Site is one side of a finding: an instruction and the first thread seen
// there.
type Site struct {
	Access  string    `json:"access,omitempty"` // Read, Write, Atomic
	Thread  [3]uint32 `json:"thread"`
	Block   [3]uint32 `json:"block"`
	Func    string    `json:"func,omitempty"`
	PTXLine int       `json:"ptx_line"`
	Source  string    `json:"source,omitempty"` // CUDA file:line from .loc
	// Inlined is the line that called the inlined function Source is in
	// (the .loc's inlined_at), "" when not inlined.
	Inlined string `json:"inlined_from,omitempty"`
	Op      string `json:"op,omitempty"`

	inst int32
}

// Line is the site's CUDA file:line, or the PTX file:line without .loc.
func (s *Site) line(ptxFile string) string {
	if s.Inlined != "" {
		return s.Inlined
	}
	if s.Source != "" {
		return s.Source
	}
	return fmt.Sprintf("%s:%d", ptxFile, s.PTXLine)
}

// Finding is one record: hazards of one kind at one instruction (or pair
// of instructions), grouped, with the first one's details.
type Finding struct {
	Tool     string `json:"tool"`
	Kind     string `json:"kind"`
	Severity string `json:"severity"`
	// Title is compute-sanitizer's headline for the record.
	Title string `json:"title"`
	// Lines are the CUDA source locations the record names (both sides of
	// a race), file:line.
	Lines []string `json:"lines"`
	Count int      `json:"count"`
	Space string   `json:"space,omitempty"`
	Size  int      `json:"size,omitempty"`
	Addr  uint64   `json:"address"`
	Sites []Site   `json:"sites"`
	// Detail adds what compute-sanitizer adds (the nearest allocation, the
	// masks of a warp sync).
	Detail string `json:"detail,omitempty"`
	// Warnings, for racecheck, is how many of Count are warp-level
	// warnings (the rest are errors).
	Warnings int `json:"warnings,omitempty"`

	errors int
}

// Report is what a sanitized launch found.
type Report struct {
	Tool     string    `json:"tool"`
	Kernel   string    `json:"kernel"`
	Errors   int       `json:"errors"`
	Warnings int       `json:"warnings"`
	Findings []Finding `json:"findings"`
	// Failure is the launch's failure (a fault, a deadlock) as the VM
	// reported it, "" if it completed.
	Failure string `json:"failure,omitempty"`
	// ThreadInst is how many thread instructions ran.
	ThreadInst uint64 `json:"thread_instructions"`
}

// checker is the state of one sanitized launch: it is the SM's Observer
// and SyncObserver and hands each event to the tools that are on.
type checker struct {
	opt  Options
	l    *vm.Launch
	sm   *vm.SM
	cta  *vm.CTA
	race *raceState
	glob *globalRace
	ini  *initState
	syn  *syncState
	mem  *memState

	// wentOn is the first memory fault memcheck let the block go on
	// after (onFault), already reported.
	wentOn *vm.Fault

	src ptxSource

	groups map[string]*Finding
	order  []string
}

// Run runs launch l with the tools of opt and reports what they found. An
// error is returned for a launch that cannot run at all; a fault or a
// deadlock of the kernel is part of the report (Report.Failure, and a
// finding where a tool explains it).
func Run(ctx context.Context, l *vm.Launch, opt Options) (*Report, error) {
	if opt.Tools == 0 {
		opt.Tools = All
	}
	if k := l.ClusterSize(); k > 1 {
		// The checkers follow one block at a time; a cluster's blocks
		// must run together.
		return nil, fmt.Errorf("kernel %s: the sanitizer does not run launches with clusters of more than one block (this one has %d)", l.Kernel.Name, k)
	}
	if opt.SMs <= 0 {
		opt.SMs = 132
	}
	c := &checker{opt: opt, l: l, groups: map[string]*Finding{}}
	if opt.Tools&Racecheck != 0 {
		c.race = newRaceState()
	}
	if opt.Tools&Racecheck != 0 && opt.Global {
		c.glob = &globalRace{shadows: map[*memspace.Allocation]*globalShadow{}}
	}
	if opt.Tools&Initcheck != 0 {
		c.ini = newInitState(opt.Uninit, opt.Shared)
	}
	if opt.Tools&Synccheck != 0 {
		c.syn = &syncState{}
	}
	if opt.Tools&Memcheck != 0 {
		c.mem = &memState{}
	}
	l.NumSMs = opt.SMs
	l.MaxInst = 0
	if opt.MaxInst > 0 {
		l.MaxInst = l.InstExecuted() + opt.MaxInst
	}
	defer context.AfterFunc(ctx, l.Stop)()
	sm := l.NewSM(0)
	c.sm = sm
	sm.Observer = c
	sm.Sync = c
	if c.mem != nil {
		sm.OnFault = c.onFault
	}
	rep := &Report{Tool: opt.Tools.String(), Kernel: l.Kernel.Name}
	var runErr error
	for i := 0; i < l.NumCTAs(); i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		sm.ID = i % opt.SMs
		c.beginCTA()
		err := sm.RunCTAs([]int{i}, Quantum)
		if err == nil {
			continue
		}
		if vm.IsStopped(err) {
			if cerr := ctx.Err(); cerr != nil {
				return nil, cerr
			}
		}
		runErr = err
		break
	}
	rep.ThreadInst = sm.Stats.ThreadInst
	if runErr != nil {
		if !vm.IsRuntime(runErr) {
			return nil, runErr
		}
		rep.Failure = runErr.Error()
		c.failure(runErr)
	}
	for _, k := range c.order {
		f := c.groups[k]
		if f.Tool == Racecheck.String() {
			f.Warnings = f.Count - f.errors
		}
		rep.Findings = append(rep.Findings, *f)
		if f.Severity == SevError {
			rep.Errors++
		} else {
			rep.Warnings++
		}
	}
	return rep, nil
}

// beginCTA is called before each block runs.
func (c *checker) beginCTA() {
	c.cta = nil
	if c.race != nil {
		c.race.beginCTA()
	}
	if c.ini != nil {
		c.ini.beginCTA()
	}
	if c.syn != nil {
		c.syn.beginCTA()
	}
}

// ctaOf is the block an access of the running SM belongs to.
func (c *checker) ctaOf(index uint64) *vm.CTA {
	if c.cta == nil || uint64(c.cta.Index()) != index {
		c.cta = c.sm.CTA(int(index))
	}
	return c.cta
}

// Observe is the memspace.Observer: every warp-wide access, after the VM
// validated it.
func (c *checker) Observe(a *memspace.Access) memspace.Outcome {
	cta := c.ctaOf(a.Origin.CTA)
	if cta == nil {
		return memspace.Outcome{}
	}
	if c.mem != nil && a.Space == memspace.Shared {
		c.mem.shared(c, cta, a)
	}
	if c.race != nil && a.Space == memspace.Shared {
		c.race.access(c, cta, a)
	}
	if c.glob != nil && a.Space == memspace.Global {
		c.glob.access(c, cta, a)
	}
	if c.ini != nil {
		c.ini.access(c, cta, a)
	}
	return memspace.Outcome{}
}

// Sync is the vm.SyncObserver.
func (c *checker) Sync(e *vm.SyncEvent) {
	c.cta = e.CTA
	if c.race != nil {
		c.race.sync(c, e)
	}
	if c.syn != nil {
		c.syn.sync(c, e)
	}
}

// thread is the %tid of lane l of warp w of the launch's blocks.
func (c *checker) thread(warp int32, l int) [3]uint32 {
	t := uint32(int(warp)*vm.WarpSize + l)
	bx, by := c.l.Block[0], c.l.Block[1]
	return [3]uint32{t % bx, t / bx % by, t / (bx * by)}
}

// site describes instruction id run by lane l of warp of block cta.
func (c *checker) site(id int32, cta *vm.CTA, warp int32, l int, access string) Site {
	s := Site{Access: access, Thread: c.thread(warp, l), inst: id}
	if cta != nil {
		s.Block = cta.ID()
	}
	if id < 0 || int(id) >= len(c.l.Kernel.Insts) {
		return s
	}
	info := c.l.Kernel.Insts[id]
	s.PTXLine = int(info.Line)
	s.Func = info.Func.Name
	s.Op = info.Inst().Op.String()
	if loc, ok := info.Source(); ok {
		s.Source = fmt.Sprintf("%s:%d", loc.File, loc.Line)
		s.Inlined = c.src.inlinedAt(c.l.Module.Filename, s.PTXLine)
	}
	return s
}

// add records one hazard: a new finding for its group, or one more in the
// group's count.
func (c *checker) add(tool Tool, kind, severity, title string, sites []Site, space memspace.Space, size int, addr uint64, detail string) *Finding {
	var key strings.Builder
	fmt.Fprintf(&key, "%d|%s|%s|%s", tool, kind, severity, title)
	for _, s := range sites {
		fmt.Fprintf(&key, "|%d", s.inst)
	}
	k := key.String()
	if f := c.groups[k]; f != nil {
		f.Count++
		return f
	}
	f := &Finding{Tool: tool.String(), Kind: kind, Severity: severity, Title: title, Count: 1, Size: size, Addr: addr, Sites: sites, Detail: detail, Lines: []string{}}
	if f.Sites == nil {
		f.Sites = []Site{}
	}
	if space != memspace.Generic || size > 0 {
		f.Space = spaceName(space)
	}
	for i := range sites {
		f.Lines = append(f.Lines, sites[i].line(c.l.Module.Filename))
	}
	c.groups[k] = f
	c.order = append(c.order, k)
	return f
}

func spaceName(s memspace.Space) string {
	switch s {
	case memspace.Global:
		return "__global__"
	case memspace.Shared:
		return "__shared__"
	case memspace.Local:
		return "__local__"
	case memspace.Const:
		return "__constant__"
	}
	return s.String()
}

// addRace records one racecheck hazard: the record of an instruction pair
// and kind counts every hazard between them and is an error if any of
// them is (compute-sanitizer's analysis record: "Race reported between
// ... [N hazards]"), a warning otherwise.
func (c *checker) addRace(kind, sev, title string, sites []Site, size int, addr uint64) {
	k := fmt.Sprintf("race|%s|%d|%d", kind, sites[0].inst, sites[1].inst)
	if f := c.groups[k]; f != nil {
		f.Count++
		if sev == SevError {
			f.errors++
			if f.Severity != SevError {
				f.Severity, f.Title, f.Sites, f.Addr = sev, title, sites, addr
			}
		}
		return
	}
	f := &Finding{Tool: Racecheck.String(), Kind: kind, Severity: sev, Title: title, Count: 1, Space: spaceName(memspace.Shared), Size: size, Addr: addr, Sites: sites}
	if sev == SevError {
		f.errors = 1
	}
	for i := range sites {
		f.Lines = append(f.Lines, sites[i].line(c.l.Module.Filename))
	}
	c.groups[k] = f
	c.order = append(c.order, k)
}

// failure turns the launch's fault or deadlock into findings where a tool
// explains it, and into a launch failure otherwise.
func (c *checker) failure(err error) {
	var ft *vm.Fault
	if errors.As(err, &ft) {
		info, site := c.faultSite(ft)
		switch {
		case ft == c.wentOn: // reported as it happened
		case c.mem != nil && c.mem.fault(c, ft, info, site):
		case c.syn != nil && c.syn.fault(c, ft, info, site):
		case c.mem != nil && errors.Is(ft, vm.ErrIllegalInstruction):
			c.add(Memcheck, "illegal instruction", SevError, "Illegal instruction", []Site{site}, memspace.Generic, 0, 0, ft.Msg)
		}
		c.launchFailed()
		return
	}
	if errors.Is(err, vm.ErrDeadlock) && c.syn != nil {
		c.syn.deadlock(c, err)
	}
}

// faultSite is the instruction and site of a fault.
func (c *checker) faultSite(ft *vm.Fault) (*vm.InstInfo, Site) {
	info := c.instAt(ft.Func, ft.PC)
	var id int32 = -1
	if info != nil {
		id = info.ID
	}
	site := c.site(id, nil, int32(ft.Warp), ft.Lane, "")
	site.Block = ft.Block
	return info, site
}

// onFault is the SM's OnFault under memcheck: a memory fault is reported
// at once, with every bad lane of the warp's instruction, and the block's
// other warps go on, so that those that reach a bad access report theirs
// too, as compute-sanitizer's do before the launch fails. The launch
// stops at the end of the block (blocks run one after another here; on the
// GPU other resident blocks may report theirs too).
func (c *checker) onFault(ft *vm.Fault) bool {
	if ft.MemFault == nil {
		return false
	}
	info, site := c.faultSite(ft)
	if !c.mem.fault(c, ft, info, site) {
		return false
	}
	if c.wentOn == nil {
		c.wentOn = ft
	}
	return true
}

// launchFailed adds, under memcheck, the error compute-sanitizer reports
// for the API call that sees the launch fail. The other tools report the
// failure (Report.Failure) but count no error for it, as compute-sanitizer's
// racecheck, synccheck and initcheck do.
func (c *checker) launchFailed() {
	if c.mem == nil {
		return
	}
	c.add(Memcheck, "launch failure", SevError, "Program hit CUDA_ERROR_LAUNCH_FAILED (the launch failed)", nil, memspace.Generic, 0, 0, "")
}

// isAsync reports whether instruction id is a cp.async (its shared store
// lands later: SyncAsyncDone).
func (c *checker) isAsync(id int32) bool {
	return id >= 0 && int(id) < len(c.l.Kernel.Insts) && c.l.Kernel.Insts[id].Inst().Op == vm.OpCpAsync
}

// instAt finds the instruction at pc of function name.
func (c *checker) instAt(name string, pc int) *vm.InstInfo {
	for _, f := range c.l.Kernel.Funcs {
		if f.Name == name && pc >= 0 && pc < len(f.Info) {
			return &f.Info[pc]
		}
	}
	return nil
}

// lanes lists the lanes of m in order.
func lanes(m uint32) []int {
	out := make([]int, 0, bits.OnesCount32(m))
	for x := m; x != 0; x &= x - 1 {
		out = append(out, bits.TrailingZeros32(x))
	}
	return out
}
