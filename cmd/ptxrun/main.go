// Command ptxrun runs the PTX that nvcc emits on an emulated GPU.
//
//	ptxrun FILE.ptx               list the kernels of a module and their resources
//	ptxrun run SPEC.json          run a launch spec, write its outputs
//	ptxrun test DIR...            run regression cases against recorded GPU outputs
//	ptxrun demo                   run the bundled kernels and check them
//	ptxrun gpus                   list the GPU profiles
//	ptxrun compare A.json B.json  run two specs, counters side by side
//	ptxrun metrics                list every metric with its meaning
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
	exitOK    = 0
	exitFail  = 1 // the command ran and found a failure (a fault, a mismatch)
	exitUsage = 2 // bad command line or bad input
)

const usage = `ptxrun runs the PTX that nvcc emits on an emulated GPU, bit-exact with the
hardware (approximate special-function instructions included), with no GPU and
no CUDA toolkit.

Usage:
  ptxrun FILE.ptx [flags]        list the kernels of a module: parameters and declared resources
  ptxrun run SPEC.json [flags]   run a launch spec (see DESIGN.md, launch spec v1)
  ptxrun test DIR... [flags]     run every case folder (spec.json + expected/) and compare
  ptxrun demo [flags]            run the bundled kernels and check them against Go references
  ptxrun gpus [NAME|FILE...]     list the GPU profiles (--gpu NAME or FILE selects one)
  ptxrun compare A.json B.json   run two specs and print their counters side by side
  ptxrun metrics                 list every metric --metrics writes, with its meaning
  ptxrun version                 print the version

Run "ptxrun COMMAND -h" for the flags of a command.
`

func doMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch cmd := args[0]; cmd {
	case "-h", "-help", "--help", "help":
		if len(args) > 1 {
			if args[1] == "metrics" {
				return cmdMetrics(ctx, args[2:], stdout, stderr)
			}
			return doMain(ctx, []string{args[1], "-h"}, stdout, stderr)
		}
		fmt.Fprint(stdout, usage)
		return exitOK
	case "run":
		return cmdRun(ctx, args[1:], stdout, stderr)
	case "test":
		return cmdTest(ctx, args[1:], stdout, stderr)
	case "demo":
		return cmdDemo(ctx, args[1:], stdout, stderr)
	case "gpus":
		return cmdGPUs(ctx, args[1:], stdout, stderr)
	case "compare":
		return cmdCompare(ctx, args[1:], stdout, stderr)
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
