// Command calibrate fits and checks the timing model against the GPU
// corpora under testdata/ (see the README's "Timing model" section):
//
//	go run ./scheduler/timing/calibrate forms    # PTX form counts of every corpus launch → scheduler/sasscost/data/launches.json
//	go run ./scheduler/timing/calibrate sass     # fit the SASS cost table on them → scheduler/sasscost/tables/h100.json
//	go run ./scheduler/timing/calibrate cycles   # cycle error over the calibration launches, with baselines and pairs
//	go run ./scheduler/timing/calibrate fit      # fit the H100 timing parameters → scheduler/gpu/profiles/h100.json
//	go run ./scheduler/timing/calibrate pairs    # the ratio pairs of the perf corpus, GPU against model
//	go run ./scheduler/timing/calibrate regs     # refit the register estimate on the corpus's ptxas -v reports
//
// Run it from the repository root. It is a tool for the people who keep
// the model calibrated; the tests check its results without running it.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	cmd, args := os.Args[1], os.Args[2:]
	if f := os.Getenv("CALIBRATE_CPUPROFILE"); f != "" {
		fh, err := os.Create(f)
		if err == nil {
			_ = pprof.StartCPUProfile(fh)
			defer pprof.StopCPUProfile()
		}
	}
	var err error
	switch cmd {
	case "forms":
		err = cmdForms(args)
	case "sass":
		err = cmdSASS(args)
	case "cycles":
		err = cmdCycles(args)
	case "fit":
		err = cmdFit(args)
	case "pairs":
		err = cmdPairs(args)
	case "regs":
		err = cmdRegs(args)
	default:
		usage()
	}
	if err != nil {
		pprof.StopCPUProfile()
		fmt.Fprintln(os.Stderr, "calibrate:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: go run ./scheduler/timing/calibrate forms|sass|cycles|fit|pairs|regs [flags]")
	os.Exit(2)
}

func newFlags(name string) *flag.FlagSet {
	return flag.NewFlagSet(name, flag.ExitOnError)
}
