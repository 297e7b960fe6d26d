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
	case "sample":
		err = cmdSample(args)
	case "estimate":
		err = cmdEstimate(args)
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
	fmt.Fprintln(os.Stderr, "usage: go run ./scheduler/timing/calibrate forms|sass|cycles|fit|pairs|regs|sample|estimate [flags]")
	os.Exit(2)
}

func newFlags(name string) *flag.FlagSet {
	return flag.NewFlagSet(name, flag.ExitOnError)
}
