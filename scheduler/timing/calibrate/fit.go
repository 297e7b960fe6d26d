package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ptxvm/ptxvm/memspace/hier"
	"github.com/ptxvm/ptxvm/scheduler/gpu"
)

// param is one profile setting the fit may move.
type param struct {
	path    string
	integer bool
	lo, hi  float64
}

// fitParams are the H100 timing parameters the fit moves. The DRAM
// bandwidth, the cache geometry and the pipes' throughputs are the
// hardware's published figures and stay fixed.
var fitParams = []param{
	{"timing.launch_cycles", true, 1000, 10000},
	{"timing.cta_launch_cycles", true, 0, 2000},
	{"timing.issue_cycles", false, 1, 4},
	{"timing.debug_issue_cycles", false, 1, 30},
	{"timing.branch_cycles", true, 1, 40},
	{"timing.barrier_cycles", true, 1, 200},
	{"timing.barrier_warp_cycles", false, 0, 10},
	{"timing.membar_cycles", true, 1, 2000},
	{"timing.mio_queue", true, 1, 64},
	{"timing.lsu_queue", true, 1, 64},
	{"timing.data_cycles_per_wavefront", false, 0.25, 8},
	{"timing.cta_dispatch_cycles", false, 0, 20},
	{"timing.pipes.alu.latency", true, 2, 20},
	{"timing.pipes.fma.latency", true, 2, 20},
	{"timing.pipes.imad.latency", true, 2, 20},
	{"timing.pipes.fp64.latency", true, 2, 40},
	{"timing.pipes.sfu.latency", true, 4, 60},
	{"timing.pipes.conv.latency", true, 4, 60},
	{"timing.pipes.mio.latency", true, 4, 60},
	{"timing.pipes.branch.latency", true, 1, 20},
	{"memory.latency.shared", true, 10, 80},
	{"memory.latency.l1_hit", true, 10, 80},
	{"memory.latency.l2_hit_near", true, 100, 600},
	{"memory.latency.l2_hit_far", true, 100, 800},
	{"memory.latency.dram", true, 50, 1000},
	{"memory.latency.l2_atomic_cycles_per_lane", false, 0, 16},
	{"memory.latency.l2_atomic_cycles_per_address", false, 0, 16},
	{"memory.latency.l2_partial_write_cycles", false, 0, 16},
	{"memory.latency.l2_partial_write_cycles_per_transaction", false, 0, 16},
	{"memory.latency.dram_load_cycles", false, 0, 2000},
	{"memory.latency.dram_write_load_cycles", false, 0, 2000},
}

// value reads a setting of profile p.
func value(p *gpu.Profile, path string) float64 {
	b, _ := marshalMap(p)
	var cur any = b
	for _, k := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return math.NaN()
		}
		cur = m[k]
	}
	f, _ := cur.(float64)
	return f
}

func cmdFit(args []string) error {
	fs := newFlags("fit")
	testdata := fs.String("testdata", "testdata", "corpus root")
	minCycles := fs.Float64("min", 30000, "calibration launches: at least this many real cycles")
	only := fs.String("only", "", "comma-separated launch-name substrings")
	profile := fs.String("gpu", "scheduler/gpu/profiles/h100.json", "GPU profile file to start from (and to write with -write)")
	params := fs.String("params", "", "comma-separated parameter paths to fit (default: all)")
	passes := fs.Int("passes", 2, "coordinate-descent passes")
	jobs := fs.Int("j", runtime.GOMAXPROCS(0), "launches run at once")
	write := fs.Bool("write", false, "write the fitted values into the profile file")
	maxInst := fs.Float64("max-inst", 20e6, "fit on the launches of at most this many machine instructions (ncu's count; 0: all)")
	fs.BoolVar(&progress, "progress", false, "print each launch as it finishes (stderr)")
	_ = fs.Parse(args)
	fams, err := loadFamilies(*testdata)
	if err != nil {
		return err
	}
	// Only the training families: the held-out ones and the public
	// corpus never steer a parameter.
	ls, err := launchSet(*testdata, *minCycles, *only, *maxInst, fams, map[split]bool{splitTrain: true})
	if err != nil {
		return err
	}
	base, err := gpu.Load(*profile)
	if err != nil {
		return err
	}
	ps := fitParams
	if *params != "" {
		ps = nil
		for _, name := range strings.Split(*params, ",") {
			found := false
			for _, q := range fitParams {
				if q.path == name {
					ps, found = append(ps, q), true
				}
			}
			if !found {
				return fmt.Errorf("unknown parameter %s", name)
			}
		}
	}
	cur := map[string]float64{}
	for _, q := range ps {
		cur[q.path] = value(base, q.path)
	}
	// The objective: cycle MAPE over the training launches.
	eval := func(set map[string]float64) (float64, []*outcome, error) {
		p, err := withParams(base, set)
		if err != nil {
			return 0, nil, err
		}
		outs := runSet(ls, p, *jobs, fams)
		s, _ := score(outs, nil)
		return s, outs, nil
	}
	t0 := time.Now()
	best, outs, err := eval(cur)
	if err != nil {
		return err
	}
	fmt.Printf("start: training MAPE %.2f%% (%.0f s per evaluation)\n", 100*best, time.Since(t0).Seconds())
	printOutcomes(os.Stdout, outs, false, nil)
	steps := []float64{0.6, 0.8, 1.25, 1.6}
	for pass := 0; pass < *passes; pass++ {
		if pass > 0 {
			steps = []float64{0.85, 0.93, 1.08, 1.18}
		}
		for _, q := range ps {
			v0 := cur[q.path]
			for _, f := range steps {
				v := v0 * f
				if v0 == 0 {
					v = (f - 0.5) * 2 // from zero: try small positive values
				}
				if q.integer {
					v = math.Round(v)
					if v == v0 {
						v = v0 + math.Copysign(1, f-1)
					}
				}
				v = math.Max(q.lo, math.Min(q.hi, v))
				if v == cur[q.path] {
					continue
				}
				try := copyMap(cur)
				try[q.path] = v
				s, _, err := eval(try)
				if err != nil {
					return err
				}
				if s < best-1e-5 {
					best = s
					cur = try
					fmt.Printf("  %-44s %8.2f → %8.2f  training MAPE %.2f%%\n", q.path, v0, v, 100*s)
				}
			}
		}
	}
	_, outs, _ = eval(cur)
	fmt.Printf("fitted in %.0f s:\n", time.Since(t0).Seconds())
	printOutcomes(os.Stdout, outs, false, nil)
	var kv []string
	for _, k := range sortedKeys(cur) {
		kv = append(kv, fmt.Sprintf("%s=%g", k, cur[k]))
	}
	fmt.Println("-set " + strings.Join(kv, ","))
	if *write {
		if err := patchFile(*profile, cur, gpu.Parse); err != nil {
			return err
		}
		// The memory section is also the hierarchy package's profile.
		mem := map[string]float64{}
		for k, v := range cur {
			if rest, ok := strings.CutPrefix(k, "memory."); ok {
				mem[rest] = v
			}
		}
		if len(mem) > 0 {
			hf := filepath.Join("memspace/hier/profiles", strings.ToLower(base.Name)+".json")
			return patchFile(hf, mem, func(b []byte) (any, error) { return hier.ParseConfig(b) })
		}
	}
	return nil
}

func copyMap(m map[string]float64) map[string]float64 {
	out := make(map[string]float64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// patchFile rewrites the numbers at the given paths in a profile's JSON
// text, keeping everything else as it is: each path's keys are found in
// order, each after the previous.
func patchFile[T any](file string, set map[string]float64, parse func([]byte) (T, error)) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	s := string(b)
	keys := sortedKeys(set)
	sort.Strings(keys)
	for _, path := range keys {
		pos := 0
		parts := strings.Split(path, ".")
		for i, k := range parts {
			j := strings.Index(s[pos:], `"`+k+`"`)
			if j < 0 {
				return fmt.Errorf("%s: no %s", file, path)
			}
			pos += j + len(k) + 2
			if i == len(parts)-1 {
				num := regexp.MustCompile(`^\s*:\s*(-?[0-9.eE+-]+)`)
				m := num.FindStringSubmatchIndex(s[pos:])
				if m == nil {
					return fmt.Errorf("%s: %s is not a number", file, path)
				}
				v := strconv.FormatFloat(set[path], 'f', -1, 64)
				s = s[:pos+m[2]] + v + s[pos+m[3]:]
			}
		}
	}
	if _, err := parse([]byte(s)); err != nil {
		return fmt.Errorf("%s after patching: %w", file, err)
	}
	return os.WriteFile(file, []byte(s), 0o644)
}
