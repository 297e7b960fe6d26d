package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/ptxvm/ptxvm/ptx"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	go func() {
		// The first interrupt cancels ctx; stop catching interrupts then,
		// so that a second one ends the process even if whatever is running
		// does not notice.
		<-ctx.Done()
		stop()
	}()
	code := doMain(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// exit codes
const (
	exitOK          = 0
	exitFail        = 1   // the command ran and found a failure (a fault, a mismatch)
	exitUsage       = 2   // bad command line or bad input
	exitInterrupted = 130 // interrupted (Ctrl-C), as shells report SIGINT
)

const usage = `ptxrun runs the PTX that nvcc emits on an emulated GPU, bit-exact with the
hardware (approximate special-function instructions included), with no GPU and
no CUDA toolkit.

Usage:
  ptxrun FILE.ptx [flags]        list the kernels of a module: signatures, parameters, declared resources
  ptxrun run SPEC.json [flags]   run a launch spec
  ptxrun run FILE.ptx --kernel K --grid X,Y --block X,Y --arg ...
                                 run a launch given on the command line
  ptxrun run NAME [flags]        run a bundled kernel (matmul_tiled, ...; see ptxrun demo)
                                 --mode timing: cycles, occupancy, stall reasons; --report: why it is slow
  ptxrun test DIR... [flags]     run every case folder (spec.json + expected/) and compare
                                 (--shard I/N: one part of them, for a cluster)
  ptxrun sweep FILE.jsonl        run one launch per line (spec, GPU, mode) into JSONL results (-o):
                                 resumable, in shards merged by ptxrun sweep merge (docs/scale-out.md)
  ptxrun sanitize SPEC.json      find races, uninitialised reads, barrier misuse and bad accesses
                                 (--tool memcheck|racecheck|synccheck|initcheck|all), as compute-sanitizer
  ptxrun demo [flags]            run the bundled kernels and check them against Go references
  ptxrun gpus [NAME|FILE...]     list the GPU profiles (--gpu NAME or FILE selects one)
  ptxrun compare A B             run two specs or bundled kernels and print their counters side by
                                 side (--mode timing: cycles and stall reasons too)
  ptxrun report SPEC.json        run a launch (a spec, a quick launch or a bundled kernel) and write
                                 its report as one self-contained HTML file, charts and source view
                                 (--mode timing: stall charts and an SM/warp timeline too)
  ptxrun report --compare A B    the same for two runs side by side
  ptxrun metrics                 list every metric --metrics writes, with its meaning
  ptxrun help spec               the launch-spec format (in full: docs/launch-spec.md)
  ptxrun version                 print the version

Run "ptxrun COMMAND -h" for the flags of a command. The reference pages are
in the ptxvm repository's docs/: launch-spec.md (the spec), counters.md
(every counter and how close it is to ncu), reports.md (reading a report),
timing.md and timing-validation.md (the cycle model and its error),
sampling.md (--sample: sampled timing of huge launches),
scale-out.md (sweeps and test suites over many machines),
semantics.md (what runs, how exactly), sanitize.md, fuzzing.md,
limitations.md.
`

// doMain runs a command line. A command that ends because ctx was
// cancelled (Ctrl-C) says so and exits 130, whatever it was doing.
func doMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	code := dispatch(ctx, args, stdout, stderr)
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, "ptxrun: interrupted")
		return exitInterrupted
	}
	return code
}

func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch cmd := args[0]; cmd {
	case "-h", "-help", "--help", "help":
		if len(args) > 1 && args[1] == "spec" {
			fmt.Fprint(stdout, specHelp)
			return exitOK
		}
		if len(args) > 1 {
			if args[1] == "metrics" {
				return cmdMetrics(ctx, args[2:], stdout, stderr)
			}
			return dispatch(ctx, []string{args[1], "-h"}, stdout, stderr)
		}
		fmt.Fprint(stdout, usage)
		return exitOK
	case "run":
		return cmdRun(ctx, args[1:], stdout, stderr)
	case "test":
		return cmdTest(ctx, args[1:], stdout, stderr)
	case "sweep":
		return cmdSweep(ctx, args[1:], stdout, stderr)
	case "sanitize":
		return cmdSanitize(ctx, args[1:], stdout, stderr)
	case "demo":
		return cmdDemo(ctx, args[1:], stdout, stderr)
	case "gpus":
		return cmdGPUs(ctx, args[1:], stdout, stderr)
	case "compare":
		return cmdCompare(ctx, args[1:], stdout, stderr)
	case "report":
		return cmdReport(ctx, args[1:], stdout, stderr)
	case "metrics":
		return cmdMetrics(ctx, args[1:], stdout, stderr)
	case "list":
		return cmdList(ctx, args[1:], stdout, stderr)
	case "version", "-version", "--version":
		fmt.Fprintln(stdout, "ptxrun", version)
		return exitOK
	default:
		for _, a := range args {
			if strings.HasSuffix(a, ".ptx") || !strings.HasPrefix(a, "-") && fileExists(a) {
				return cmdList(ctx, args, stdout, stderr)
			}
		}
		fmt.Fprintf(stderr, "ptxrun: unknown command %q\n\n%s", cmd, usage)
		return exitUsage
	}
}

const version = "0.1.0"

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// newFlags returns a flag set that prints its errors and usage to stderr
// (parseFlags prints the usage that -h asks for to stdout).
func newFlags(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "%s\n\nFlags:\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args, allowing flags after positional arguments. The
// usage asked for with -h goes to stdout; after a bad flag it goes, with the
// error, to the flag set's output.
func parseFlags(fs *flag.FlagSet, args []string, stdout io.Writer) ([]string, error) {
	usage := fs.Usage
	fs.Usage = func() {}
	defer func() { fs.Usage = usage }()
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				w := fs.Output()
				fs.SetOutput(stdout)
				usage()
				fs.SetOutput(w)
			} else {
				usage()
			}
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// nonNegative reports a negative value given to the count flag name of
// command cmd as bad input.
func nonNegative(stderr io.Writer, cmd, name string, v int64) bool {
	if v < 0 {
		fmt.Fprintf(stderr, "ptxrun %s: -%s must not be negative (got %d)\n", cmd, name, v)
		return false
	}
	return true
}

// usageErr reports a bad command line; flag.ErrHelp is a request for help.
func usageErr(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	return exitUsage
}

// printErrors prints err; a list of positioned errors (a malformed module)
// one per line, the first ten and then how many more, as go/parser does.
func printErrors(w io.Writer, err error) {
	var list ptx.ErrorList
	if !errors.As(err, &list) || len(list) < 2 {
		fmt.Fprintln(w, err)
		return
	}
	list = append(ptx.ErrorList(nil), list...)
	list.RemoveMultiples()
	// What wraps the list ("module: ...") goes on a line of its own.
	if prefix, _, ok := strings.Cut(err.Error(), list[0].Error()); ok && prefix != "" {
		fmt.Fprintln(w, strings.TrimSuffix(prefix, ": ")+":")
	}
	for i, e := range list {
		if i == maxListedErrors {
			fmt.Fprintf(w, "and %d more errors\n", len(list)-maxListedErrors)
			break
		}
		fmt.Fprintln(w, e)
	}
}

// maxListedErrors is how many errors printErrors shows.
const maxListedErrors = 10

const specHelp = `A launch spec is a JSON file describing one kernel launch:

  {
    "module": "matmul.ptx",                         the PTX file (paths are relative to the spec)
    "kernel": "matmul_tiled",                       mangled name, C++ name or signature, or a unique part
    "grid": [16, 16, 1], "block": [16, 16, 1],
    "dynamic_shared_bytes": 0,                      optional
    "buffers": [                                    device memory, in any order
      {"name": "C", "type": "f32", "count": 65536},                       zeros
      {"name": "A", "type": "f32", "count": 65536, "file": "A.bin"},      raw little-endian, or .npy
      {"name": "B", "type": "f32", "count": 65536,
       "fill": {"kind": "rand", "seed": 7, "lo": -1, "hi": 1}}            or iota, const
    ],
    "symbols": [{"name": "coef", "type": "f32", "count": 16, "file": "coef.bin"}],   .global/.const variables
    "textures": [{"name": "t", "buffer": "img", "dims": [64, 48], "format": "f32"}],   also "layers",
                                                    "cube": true, "levels": N with "mip_filter", "lod_bias", ...
    "surfaces": [{"name": "s", "buffer": "px", "dims": [64, 48], "format": "u8", "channels": 4}],  {"surface": "s"}
    "args": [{"buffer": "C"}, {"buffer": "A"}, {"buffer": "B"}, {"u32": 256}],      one per parameter
    "outputs": ["C"],                               written by ptxrun run --out, compared by ptxrun test
    "tolerance": {"ulp": 2}                         optional, for ptxrun test
  }

Types: u8 s8 u16 s16 u32 s32 u64 s64 f16 bf16 f32 f64. Scalars are checked against
the parameter's type (signedness from the C++ signature). "ptxrun FILE.ptx" lists each
kernel's parameters in PTX and in C++.

A buffer may live elsewhere: "memory": "pinned", "mapped" (zero-copy; kernels read it
over the host link) or "managed" (migrated on first touch), with "write_combined": true
for pinned or mapped. A program of several steps replaces kernel/grid/block/args with
  "steps": [
    {"copy": "A", "to": "device", "host_memory": "pinned"},     or pageable, write_combined
    {"memset": "C", "value": 0},
    {"prefetch": "M", "to": "device"},                          managed buffers
    {"launch": {"kernel": "k", "grid": [64], "block": [256], "args": [...]}}
  ]
run in order over the same buffers; in timing mode each step is timed.

Every field, with examples, how inputs are laid out, and a worked example from a .cu
file through nvcc -ptx to a spec: docs/launch-spec.md in the ptxvm repository.
`
