package sasscost

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/vm"
)

// Pipe is the execution unit the machine instructions of a PTX form issue
// to (the one that bounds its throughput when they differ).
type Pipe uint8

// Pipes, with the names Nsight Compute gives their units where it has one.
const (
	PipeNone    Pipe = iota // folded away by ptxas: issues nothing
	PipeALU                 // integer and logic, compares, selects, shifts (alu)
	PipeFMA                 // f32 add/mul/fma (fma)
	PipeIMAD                // integer multiply-add (fmaheavy)
	PipeFP64                // f64 arithmetic (fp64)
	PipeHalf                // f16/bf16 and their pairs (fp16)
	PipeSFU                 // transcendentals and reciprocals (xu: MUFU)
	PipeConv                // conversions between int and float widths (xu/fp64 conversions)
	PipeMIO                 // shared memory, shuffles, votes, special registers, constant loads (MIO, short scoreboard)
	PipeLSU                 // global and local memory, global atomics (LSU through L1TEX, long scoreboard)
	PipeTex                 // texture fetches (TEX through L1TEX, long scoreboard)
	PipeBranch              // branches, calls, exits (cbu/adu)
	PipeBarrier             // barriers
	PipeTensor              // tensor cores: mma.sync, wmma.mma (HMMA, IMMA, DMMA)
	NumPipes
)

var pipeNames = [NumPipes]string{"none", "alu", "fma", "imad", "fp64", "half", "sfu", "conv", "mio", "lsu", "tex", "branch", "barrier", "tensor"}

func (p Pipe) String() string {
	if p < NumPipes {
		return pipeNames[p]
	}
	return "pipe(" + itoa(int(p)) + ")"
}

// ParsePipe returns the pipe called name.
func ParsePipe(name string) (Pipe, bool) {
	for i, n := range pipeNames {
		if n == name {
			return Pipe(i), true
		}
	}
	return 0, false
}

// MarshalText writes the pipe's name.
func (p Pipe) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText reads a pipe's name.
func (p *Pipe) UnmarshalText(b []byte) error {
	q, ok := ParsePipe(string(b))
	if !ok {
		return fmt.Errorf("unknown pipe %q (have %s)", b, strings.Join(pipeNames[:], ", "))
	}
	*p = q
	return nil
}

// Scoreboard says how a consumer waits for a result of the pipe: fixed
// latency (the compiler's stall counts: Nsight Compute's "wait"), the short
// scoreboard (MIO: shared memory, transcendentals, conversions) or the long
// scoreboard (L1TEX: global, local and texture memory).
type Scoreboard uint8

// Scoreboards.
const (
	Fixed Scoreboard = iota
	Short
	Long
)

// Scoreboard returns the scoreboard results of the pipe come back on.
func (p Pipe) Scoreboard() Scoreboard {
	switch p {
	case PipeSFU, PipeConv, PipeMIO:
		return Short
	case PipeLSU, PipeTex:
		return Long
	}
	return Fixed
}

// Cost is what one warp execution of a PTX form costs on the SM.
type Cost struct {
	// Slots is the number of machine instructions the form issues per warp
	// execution, on average over the corpus (fractional where ptxas folds
	// the form into a neighbour some of the time, e.g. address arithmetic
	// into a load's immediate offset; 0 where it always does).
	Slots float64 `json:"slots"`
	// Pipe is the unit its machine instructions issue to.
	Pipe Pipe `json:"pipe"`
	// Latency is the cycles from its first issue until its result can be
	// used, when the form expands into a chain of dependent machine
	// instructions (div.rn.f32, rem.u32, sqrt.rn.f64); 0: the pipe's
	// latency (timing profile).
	Latency int `json:"latency,omitempty"`
	// PerRound is the machine instructions each further round costs when
	// the lanes of an atomic serialise on one address (ptxas's CAS loops
	// for the atomics the hardware lacks, e.g. shared f32 add: a round per
	// lane that shares an address with an earlier one).
	PerRound float64 `json:"per_round,omitempty"`
	// Fixed, in the priors, says the form's slots are known exactly (one
	// machine instruction whatever surrounds it, read off the SASS): the
	// fit keeps them.
	Fixed bool `json:"fixed,omitempty"`
}

// Table maps PTX forms (Form) to their cost. Forms it does not list cost
// what their instruction class costs (Classes, by vm.Class name).
type Table struct {
	Name string `json:"name"`
	// Note says where the figures come from.
	Note    string          `json:"note,omitempty"`
	Forms   map[string]Cost `json:"forms"`
	Classes map[string]Cost `json:"classes"`
}

// The tables shipped with the package.
//
//go:embed tables/*.json
var tableFS embed.FS

// embedded caches the parsed embedded tables (shared, read-only).
var embedded sync.Map

// Load returns the embedded table name ("h100"), or else reads the JSON
// file of that name. An embedded table is parsed once and shared: callers
// must not change it.
func Load(nameOrFile string) (*Table, error) {
	key := strings.ToLower(nameOrFile)
	if t, ok := embedded.Load(key); ok {
		return t.(*Table), nil
	}
	data, err := tableFS.ReadFile(path.Join("tables", key+".json"))
	if err == nil {
		t, err := Parse(data)
		if err != nil {
			return nil, err
		}
		embedded.Store(key, t)
		return t, nil
	}
	if err != nil {
		data, err = os.ReadFile(nameOrFile)
		if err != nil {
			return nil, fmt.Errorf("SASS cost table %q: not embedded and not a readable file: %w", nameOrFile, err)
		}
	}
	return Parse(data)
}

// Parse reads a table from JSON (unknown fields are errors) and checks that
// every class has a cost.
func Parse(data []byte) (*Table, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	var t Table
	if err := d.Decode(&t); err != nil {
		return nil, fmt.Errorf("SASS cost table: %w", err)
	}
	for c := vm.Class(0); c.String() != "class("+itoa(int(c))+")"; c++ {
		if _, ok := t.Classes[c.String()]; !ok {
			return nil, fmt.Errorf("SASS cost table %q: no cost for class %s", t.Name, c)
		}
	}
	for f, c := range t.Forms {
		if c.Slots < 0 || c.Latency < 0 || c.PerRound < 0 {
			return nil, fmt.Errorf("SASS cost table %q: form %s: negative slots or latency", t.Name, f)
		}
	}
	return &t, nil
}

// Marshal returns the table as indented JSON with sorted keys.
func (t *Table) Marshal() ([]byte, error) {
	b, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// DebugPrefix marks the forms of PTX compiled for debugging (nvcc -G:
// `.target sm_90, debug`), which ptxas compiles without optimisation, so
// that the same PTX form costs more machine instructions.
const DebugPrefix = "g:"

// Debug reports whether kernel k's module was compiled for debugging
// (k.Debug).
func Debug(k *vm.Kernel) bool { return k.Debug() }

// Lookup returns the cost of the instruction info (fx as for Form; debug
// as Debug says of its kernel) and its form (with DebugPrefix for debug
// code). A debug form the table lacks costs what the optimised form
// costs.
func (t *Table) Lookup(info *vm.InstInfo, fx *Facts, debug bool) (Cost, string) {
	f := Form(info, fx)
	if debug {
		if c, ok := t.Forms[DebugPrefix+f]; ok {
			return c, DebugPrefix + f
		}
	}
	if c, ok := t.Forms[f]; ok {
		if debug {
			return c, DebugPrefix + f
		}
		return c, f
	}
	if debug {
		f = DebugPrefix + f
	}
	c := t.Classes[info.Class.String()]
	switch info.Inst().Op {
	case vm.OpMma:
		// The tensor pipe, by form (mma.go: read off SASS and measured).
		c = mmaCost(info.Inst())
	case vm.OpWmmaMma:
		c = wmmaCost(info.Inst())
	case vm.OpWgmma:
		c = wgmmaCost(info.Inst())
	case vm.OpWmmaLoad, vm.OpWmmaStore:
		// The LDSM/LDG/STG/LDS/STS ptxas emits for the fragment, each
		// with its address (an IMAD or LEA: the rows are a stride
		// apart), and the MOVM of a transposed one (testdata/tensor's
		// matmul_wmma: 16 LDG, 8 MOVM, 16 STG in its SASS).
		mem, movm := info.Inst().WmmaMachineOps(len(info.Inst().RegList(info.Func)))
		c.Slots = float64(2*mem - 1 + movm)
	case vm.OpBulk:
		// One UBLKCP/UTMALDG/UTMASTG/UBLKRED a lane that issues (the
		// issue-24 bulk forms' SASS), handed to the TMA unit: the issuing
		// warp goes on at once; the copy's time shows at the mbarrier wait.
		c = Cost{Slots: 1, Pipe: PipeLSU}
	}
	// Memory classes whose space decides the pipe.
	if info.Class == vm.ClassAtomic && info.Space == memspace.Shared {
		c.Pipe = PipeMIO
	}
	return c, f
}

// FormNames lists the table's forms, sorted.
func (t *Table) FormNames() []string {
	var out []string
	for f := range t.Forms {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// Frame returns the cost of one register a stack frame saves (FrameSave:
// a store in the prologue and a load in the epilogue), for debug code or
// not: the table's, or else two machine instructions to the LSU.
func (t *Table) Frame(debug bool) Cost {
	if debug {
		if c, ok := t.Forms[DebugPrefix+FrameSave]; ok {
			return c
		}
	}
	if c, ok := t.Forms[FrameSave]; ok {
		return c
	}
	return Cost{Slots: 2, Pipe: PipeLSU}
}

// wgmmaCost is the cost of one warp's share of a wgmma.mma_async: one
// HGMMA/IGMMA/QGMMA/BGMMA machine instruction to the tensor pipe, with the
// latency of the whole warpgroup operation, which grows with N: measured on
// the H200 (testdata/tma/log/rec3/bench_wg.txt: m64nNk16 .f32.f16.f16 from
// shared memory, issue + commit + wait_group 0, 64 in a row, on 1 and on
// 132 SMs alike): 67 cycles for N = 16, 91 for 64, 123 for 128, 202 for
// 256; a chain of 64 without waiting takes 66, 90, 122 and 199 cycles
// each, so the tensor cores do not overlap one warpgroup's consecutive
// wgmmas. The fit 58 + 9N/16 is within 7 cycles of each. The fp8 forms
// (QGMMA, k32: twice f16's products in the same time) and .b1 (BGMMA,
// k256) take the same fit (log/rec4/bench_fp8.txt, bench_b1.txt):
// m64nNk32 .f32.e4m3.e4m3 67, 92, 124, 203 cycles (within 6 of it);
// .s32.b1.b1.and.popc 65, 103, 135, 202 (within 10); only
// m64n64k32 .f16.e5m2.e5m2 was slower, 104 cycles (fit 94; chained 89).
func wgmmaCost(in *vm.Inst) Cost {
	n := in.Wgmma().N
	return Cost{Slots: 1, Pipe: PipeTensor, Latency: wgmmaLatency(n)}
}

// wgmmaLatency is the fitted latency of a m64nNk16 wgmma.
func wgmmaLatency(n int) int {
	return 58 + 9*n/16
}
