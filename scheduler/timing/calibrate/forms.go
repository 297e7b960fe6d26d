package main

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ptxvm/ptxvm/scheduler/gpu"
	"github.com/ptxvm/ptxvm/scheduler/internal/ncu"
	"github.com/ptxvm/ptxvm/scheduler/occupancy"
	"github.com/ptxvm/ptxvm/scheduler/sasscost"
	"github.com/ptxvm/ptxvm/scheduler/timing"
	"github.com/ptxvm/ptxvm/vm"
	"github.com/ptxvm/ptxvm/vm/spec"
)

// formData is what the SASS fit reads: per corpus launch, the PTX forms it
// executed and the machine instructions ncu counted; per kernel, the forms
// of its code and the machine instructions of its SASS.
type formData struct {
	Note     string         `json:"note"`
	Launches []launchForms  `json:"launches"`
	Kernels  []kernelStatic `json:"kernels"`
	// Classes gives each form's instruction class (vm.Class names).
	Classes map[string]string `json:"classes"`
}

type launchForms struct {
	Name       string  `json:"name"`
	Kernel     string  `json:"kernel"` // module:entry
	Cycles     float64 `json:"cycles"`
	Inst       float64 `json:"ncu_inst"`
	ThreadInst float64 `json:"ncu_thread_inst"`
	// Forms: form → [warp executions, thread executions, further rounds
	// of atomics whose lanes share addresses].
	Forms map[string][3]uint64 `json:"forms"`
}

type kernelStatic struct {
	Kernel  string `json:"kernel"`
	classes map[string]string
	SASS    int            `json:"sass"` // machine instructions of its code (NOPs and the closing self-branch left out)
	Forms   map[string]int `json:"forms"`
}

func cmdForms(args []string) error {
	fs := newFlags("forms")
	testdata := fs.String("testdata", "testdata", "corpus root")
	out := fs.String("out", "scheduler/sasscost/data/launches.json", "output file")
	only := fs.String("only", "", "comma-separated launch-name substrings to run (default: all)")
	jobs := fs.Int("j", runtime.GOMAXPROCS(0), "launches run at once")
	maxInst := fs.Float64("max-inst", 50e6, "leave out launches of more than this many machine instructions (ncu's count; 0: none)")
	minInst := fs.Float64("min-inst", 0, "leave out launches of fewer machine instructions than this (with -add: to add the large ones only)")
	add := fs.Bool("add", false, "keep the launches and kernels already in -out, adding or replacing those run now")
	_ = fs.Parse(args)
	launches, err := ncu.ReadAll(*testdata)
	if err != nil {
		return err
	}
	prof := gpu.MustLookup("h100")
	data := &formData{Classes: map[string]string{}, Note: "PTX form counts of every corpus launch the emulator runs, with ncu's machine-instruction counts, and per kernel the static forms and SASS size; written by `go run ./scheduler/timing/calibrate forms`."}
	var mu sync.Mutex
	kernels := map[string]kernelStatic{}
	sem := make(chan struct{}, *jobs)
	var wg sync.WaitGroup
	for _, l := range launches {
		if !selected(l.Name(), *only) {
			continue
		}
		n, ok := l.Value("smsp__inst_executed.sum")
		if !ok || *maxInst > 0 && n > *maxInst || n < *minInst || l.Table == "repeat.O3" {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			t0 := time.Now()
			lf, ks, err := collect(l, prof)
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: skipped: %v\n", l.Name(), err)
				return
			}
			fmt.Fprintf(os.Stderr, "%s: %.1fs\n", l.Name(), time.Since(t0).Seconds())
			mu.Lock()
			data.Launches = append(data.Launches, *lf)
			for f, c := range ks.classes {
				data.Classes[f] = c
			}
			if ks.SASS > 0 {
				kernels[ks.Kernel] = *ks
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	if *add {
		old, err := readForms(*out)
		if err != nil {
			return err
		}
		have := map[string]bool{}
		for _, l := range data.Launches {
			have[l.Name] = true
		}
		for _, l := range old.Launches {
			if !have[l.Name] {
				data.Launches = append(data.Launches, l)
			}
		}
		for _, k := range old.Kernels {
			if _, ok := kernels[k.Kernel]; !ok {
				kernels[k.Kernel] = k
			}
		}
		for f, c := range old.Classes {
			if _, ok := data.Classes[f]; !ok {
				data.Classes[f] = c
			}
		}
	}
	sort.Slice(data.Launches, func(i, j int) bool { return data.Launches[i].Name < data.Launches[j].Name })
	for _, k := range kernels {
		data.Kernels = append(data.Kernels, k)
	}
	sort.Slice(data.Kernels, func(i, j int) bool { return data.Kernels[i].Kernel < data.Kernels[j].Kernel })
	b, err := marshalLines(data)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "%d launches, %d kernels → %s\n", len(data.Launches), len(data.Kernels), *out)
	return os.WriteFile(*out, b, 0o644)
}

func selected(name, only string) bool {
	if only == "" {
		return true
	}
	for _, s := range strings.Split(only, ",") {
		if strings.Contains(name, s) {
			return true
		}
	}
	return false
}

// prepared is a corpus launch ready to run.
type prepared struct {
	l    *ncu.Launch
	p    *spec.Prepared
	occ  occupancy.Result
	regs int
}

// prepare loads launch l's spec on a fresh device and computes its
// occupancy with ncu's register count.
func prepare(l *ncu.Launch, prof *gpu.Profile) (*prepared, error) {
	sp, err := spec.Load(l.SpecPath())
	if err != nil {
		return nil, err
	}
	p, err := sp.Prepare(vm.NewDevice(), nil)
	if err != nil {
		return nil, err
	}
	regs := l.Int("launch__registers_per_thread")
	lk := p.Launch
	o, err := occupancy.Compute(prof, occupancy.Input{
		Threads:   lk.ThreadsPerCTA(),
		Registers: regs,
		Shared:    int(lk.Kernel.SharedStatic + lk.DynSmem),
		Barriers:  occupancy.Barriers(lk.Kernel),
		Blocks:    lk.NumCTAs(),
	})
	if err != nil {
		return nil, err
	}
	return &prepared{l: l, p: p, occ: o, regs: regs}, nil
}

func collect(l *ncu.Launch, prof *gpu.Profile) (*launchForms, *kernelStatic, error) {
	pp, err := prepare(l, prof)
	if err != nil {
		return nil, nil, err
	}
	defer pp.p.Launch.Release()
	res, err := timing.Run(context.Background(), pp.p.Launch, prof, timing.Options{BlocksPerSM: pp.occ.BlocksPerSM, Registers: pp.regs, Workers: 1, MaxInst: 1 << 32})
	if err != nil {
		return nil, nil, err
	}
	k := pp.p.Launch.Kernel
	mod := strings.TrimSuffix(filepath.Base(k.Module.Filename), ".ptx")
	lf := &launchForms{Name: l.Name(), Kernel: l.Corpus + "/" + mod + ":" + k.Name, Forms: map[string][3]uint64{}}
	lf.Cycles, _ = l.Value("sm__cycles_elapsed.max")
	lf.Inst, _ = l.Value("smsp__inst_executed.sum")
	lf.ThreadInst, _ = l.Value("smsp__thread_inst_executed.sum")
	ks := &kernelStatic{Kernel: lf.Kernel, Forms: map[string]int{}, classes: map[string]string{}}
	debug := sasscost.Debug(k)
	frame := sasscost.FrameSave
	if debug {
		frame = sasscost.DebugPrefix + frame
	}
	for _, s := range res.Insts {
		if s.Folded {
			continue // not in the machine code: no cost to fit
		}
		ks.Forms[s.Form]++
		ks.classes[s.Form] = s.Info.Class.String()
		// A return of a function with a stack frame: its saved registers
		// (a store in the prologue, a load here), once per execution.
		saves := 0
		if s.Info.Inst().Op == vm.OpRet {
			saves = sasscost.FrameSaves(s.Info.Func, debug)
		}
		if saves > 0 {
			ks.Forms[frame] += saves
			ks.classes[frame] = vm.ClassLSULocal.String()
		}
		if s.Execs == 0 {
			continue
		}
		c := lf.Forms[s.Form]
		c[0] += s.Execs
		c[1] += s.Threads
		c[2] += s.Rounds
		lf.Forms[s.Form] = c
		if saves > 0 {
			c := lf.Forms[frame]
			c[0] += s.Execs * uint64(saves)
			c[1] += s.Threads * uint64(saves)
			lf.Forms[frame] = c
		}
	}
	sass := filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(l.SpecPath())))), "sass", mod+".sass")
	n, err := sassCount(sass, k.Name)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: no SASS: %v\n", l.Name(), err)
	}
	ks.SASS = n
	return lf, ks, nil
}

var sassInst = regexp.MustCompile(`^\s+/\*[0-9a-f]{4,}\*/\s+(@!?U?P[T0-9]\s+)?([A-Z][A-Z0-9_.]*)`)

// sassCount counts the machine instructions of function name in an
// nvdisasm listing (plain or .gz): NOPs and the self-branch after the
// last EXIT are padding, not code.
func sassCount(file, name string) (int, error) {
	var r io.Reader
	f, err := os.Open(file)
	if err != nil {
		f, err = os.Open(file + ".gz")
		if err != nil {
			return 0, err
		}
		defer f.Close()
		gz, err := gzip.NewReader(f)
		if err != nil {
			return 0, err
		}
		r = gz
	} else {
		defer f.Close()
		r = f
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	in := false
	n := 0
	label := ""
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, ".text.") {
			in = strings.TrimSuffix(strings.TrimPrefix(line, ".text."), ":") == name
			continue
		}
		if !in {
			continue
		}
		if strings.HasPrefix(line, ".L_x_") && strings.HasSuffix(line, ":") {
			label = strings.TrimSuffix(line, ":")
			continue
		}
		m := sassInst.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		switch op := m[2]; {
		case op == "NOP":
		case op == "BRA" && label != "" && strings.Contains(line, "`("+label+")"):
			// the self-branch that pads the end of the function
		default:
			n++
		}
		label = ""
	}
	if n == 0 {
		return 0, fmt.Errorf("%s: no function %s", file, name)
	}
	return n, sc.Err()
}

// marshalLines writes the data as JSON with one launch or kernel per line
// (diffs stay readable).
func marshalLines(d *formData) ([]byte, error) {
	var b strings.Builder
	note, _ := json.Marshal(d.Note)
	fmt.Fprintf(&b, "{\"note\": %s,\n\"launches\": [\n", note)
	for i, l := range d.Launches {
		x, err := json.Marshal(l)
		if err != nil {
			return nil, err
		}
		b.Write(x)
		if i < len(d.Launches)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("],\n\"kernels\": [\n")
	for i, k := range d.Kernels {
		x, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		b.Write(x)
		if i < len(d.Kernels)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("],\n\"classes\": ")
	x, err := json.Marshal(d.Classes)
	if err != nil {
		return nil, err
	}
	b.Write(x)
	b.WriteString("}\n")
	return []byte(b.String()), nil
}
