package sweep

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/scheduler/gpu"
	"github.com/ptxvm/ptxvm/scheduler/timing"
)

// Entry is one line of a sweep file: one launch to run.
type Entry struct {
	// Line is the line's number in the file (from 1); Index its position
	// among the file's entries (from 0; blank lines are not entries),
	// which is what a shard splits.
	Line, Index int
	// Input is the line as given, compacted: the result echoes it.
	Input json.RawMessage
	// Spec is the launch spec's path, resolved against the sweep file's
	// folder (a case folder holding spec.json is taken too).
	Spec string
	// GPU is the profile to run on; Mode scheduler.ModeFunctional or
	// scheduler.ModeTiming; Sample the timing mode's sampling (auto, off,
	// exact or skip: as ptxrun run --sample).
	GPU    *scheduler.Profile
	Mode   string
	Sample string
	// MaxInst is the warp-instruction budget (0: none); Registers the
	// registers per thread for the occupancy (0: the spec's, else an
	// estimate).
	MaxInst   int64
	Registers int
	// Strict, AnyTarget and Counters are as scheduler.Options has them
	// (Counters: !NoCounters).
	Strict, AnyTarget, Counters bool
}

// DefaultMaxInst is a line's budget when it gives none: as ptxrun run's.
const DefaultMaxInst = 1 << 32

// fields are the fields of a line the sweep reads; any others are the
// user's, echoed and otherwise left alone.
type fields struct {
	Spec      *string `json:"spec"`
	GPU       *string `json:"gpu"`
	Mode      *string `json:"mode"`
	Sample    *string `json:"sample"`
	MaxInst   *int64  `json:"max_inst"`
	Registers *int    `json:"registers"`
	Strict    *bool   `json:"strict"`
	AnyTarget *bool   `json:"any_target"`
	Counters  *bool   `json:"counters"`
}

// Fields is what a line may say, for help texts.
const Fields = `  "spec"        the launch spec (a path relative to the sweep file, or a case folder holding spec.json); required
  "gpu"         a GPU profile: a name (ptxrun gpus) or a profile file; default h100
  "mode"        functional (default) or timing
  "sample"      timing mode's sampling: auto (default), off, exact, skip (as ptxrun run --sample)
  "max_inst"    warp-instruction budget (default 2^32; 0: none)
  "registers"   registers per thread for the occupancy figures (default: the spec's, else estimated)
  "strict"      true: behaviour the PTX ISA leaves undefined is a fault
  "any_target"  true: run PTX whose .target the GPU cannot run, with the GPU's limits
  "counters"    false: functional mode without the memory hierarchy (instruction counts only; faster)
Any other field is yours: echoed in the result, untouched.`

// Error is a malformed line of a sweep file.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// ErrorList is every malformed line of a sweep file, in order.
type ErrorList []*Error

func (l ErrorList) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i == maxErrors {
			fmt.Fprintf(&b, "\nand %d more malformed lines", len(l)-maxErrors)
			break
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// maxErrors is how many malformed lines an ErrorList's message lists.
const maxErrors = 10

// ReadFile reads a sweep file; relative paths in it are relative to its
// folder.
func ReadFile(path string) ([]Entry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(f, path, filepath.Dir(path))
}

// Parse reads a sweep from r (named name in errors), resolving relative
// paths against the folder base. It checks every line before anything
// runs: each must be a JSON object with a spec and, if given, a known GPU,
// mode and sampling; the errors of all malformed lines come back together
// (an ErrorList).
func Parse(r io.Reader, name, base string) ([]Entry, error) {
	var out []Entry
	var errs ErrorList
	profiles := map[string]*scheduler.Profile{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		e, err := parseLine(line, base, profiles)
		if err != nil {
			errs = append(errs, &Error{File: name, Line: n, Msg: err.Error()})
			continue
		}
		e.Line, e.Index = n, len(out)
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			err = fmt.Errorf("a line is longer than 16 MiB")
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return out, nil
}

func parseLine(line []byte, base string, profiles map[string]*scheduler.Profile) (Entry, error) {
	var e Entry
	if line[0] != '{' {
		return e, fmt.Errorf(`not a JSON object: each line is one launch, {"spec": "path/spec.json", "gpu": "h100", "mode": "timing"}`)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, line); err != nil {
		return e, fmt.Errorf("not valid JSON: %v", err)
	}
	e.Input = buf.Bytes()
	var f fields
	if err := json.Unmarshal(line, &f); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return e, fmt.Errorf("field %q: a %s where a %s belongs", te.Field, te.Value, te.Type)
		}
		return e, err
	}
	if f.Spec == nil || *f.Spec == "" {
		return e, fmt.Errorf(`no "spec": each line names the launch spec to run`)
	}
	e.Spec = resolve(base, *f.Spec)
	if st, err := os.Stat(e.Spec); err == nil && st.IsDir() {
		e.Spec = filepath.Join(e.Spec, "spec.json")
	}
	gpuName := "h100"
	if f.GPU != nil {
		gpuName = *f.GPU
	}
	p, ok := profiles[gpuName]
	if !ok {
		var err error
		if p, err = lookupProfile(base, gpuName); err != nil {
			return e, fmt.Errorf(`"gpu": %v`, err)
		}
		profiles[gpuName] = p
	}
	e.GPU = p
	e.Mode = scheduler.ModeFunctional
	if f.Mode != nil {
		e.Mode = *f.Mode
	}
	if err := scheduler.CheckMode(e.Mode); err != nil || e.Mode == "" {
		return e, fmt.Errorf(`"mode": unknown mode %q (functional or timing)`, e.Mode)
	}
	e.Sample = "auto"
	if f.Sample != nil {
		e.Sample = *f.Sample
		if _, err := sampleOption(e.Sample, e.Mode); err != nil {
			return e, fmt.Errorf(`"sample": %v`, err)
		}
	}
	e.MaxInst = DefaultMaxInst
	if f.MaxInst != nil {
		if *f.MaxInst < 0 {
			return e, fmt.Errorf(`"max_inst" must not be negative (0: no limit)`)
		}
		e.MaxInst = *f.MaxInst
	}
	if f.Registers != nil {
		if *f.Registers < 0 || *f.Registers > math.MaxInt32 {
			return e, fmt.Errorf(`"registers" must be a count of registers per thread (0: the spec's, else estimated)`)
		}
		e.Registers = *f.Registers
	}
	e.Strict = f.Strict != nil && *f.Strict
	e.AnyTarget = f.AnyTarget != nil && *f.AnyTarget
	e.Counters = f.Counters == nil || *f.Counters
	return e, nil
}

// resolve makes a relative path relative to base.
func resolve(base, p string) string {
	if filepath.IsAbs(p) || base == "" {
		return p
	}
	return filepath.Join(base, p)
}

// lookupProfile returns the embedded profile called name, or reads the
// profile file name (relative to base).
func lookupProfile(base, name string) (*scheduler.Profile, error) {
	if slices.Contains(gpu.Names(), strings.ToLower(name)) {
		return scheduler.LookupProfile(name)
	}
	if !strings.ContainsAny(name, `/\.`) {
		return nil, fmt.Errorf("unknown GPU %q (known: %s; or give a profile file)", name, strings.Join(gpu.Names(), ", "))
	}
	return scheduler.LookupProfile(resolve(base, name))
}

// sampleOption is a line's sampling as the timing model takes it. A
// sweep's outputs are not used, so auto leaves the blocks past the
// detailed part out (timing.AutoSample).
func sampleOption(s, mode string) (timing.Sample, error) {
	if s == "auto" {
		if mode != scheduler.ModeTiming {
			return timing.Sample{}, nil
		}
		return timing.AutoSample(false), nil
	}
	m, err := timing.ParseSampleMode(s)
	if err != nil {
		return timing.Sample{}, fmt.Errorf("%v (or auto)", err)
	}
	if m != timing.SampleOff && mode != scheduler.ModeTiming {
		return timing.Sample{}, fmt.Errorf("sampling %s needs \"mode\": \"timing\"", s)
	}
	return timing.Sample{Mode: m}, nil
}
