package main

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/ptxvm/ptxvm/scheduler/regs"
	"github.com/ptxvm/ptxvm/vm"
)

// cmdRegs refits the register estimate (package regs): for every corpus
// kernel with a ptxas -v report, the liveness pass's MaxLive against
// ptxas's count, least squares on the relative error, separately for
// optimised and -G code.
func cmdRegs(args []string) error {
	fs := newFlags("regs")
	testdata := fs.String("testdata", "testdata", "corpus root")
	_ = fs.Parse(args)
	reports, err := filepath.Glob(filepath.Join(*testdata, "*", "ptxas", "*.txt"))
	if err != nil {
		return err
	}
	sort.Strings(reports)
	type pt struct{ live, real float64 }
	data := map[bool][]pt{}
	used := regexp.MustCompile(`Used (\d+) registers`)
	entry := regexp.MustCompile(`Compiling entry function '([^']+)'`)
	for _, rp := range reports {
		mod := strings.TrimSuffix(filepath.Base(rp), ".txt")
		src, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(rp)), "ptx", mod+".ptx"))
		if err != nil {
			continue
		}
		f, err := os.Open(rp)
		if err != nil {
			return err
		}
		counts := map[string]int{}
		cur := ""
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if m := entry.FindStringSubmatch(sc.Text()); m != nil {
				cur = m[1]
			} else if m := used.FindStringSubmatch(sc.Text()); m != nil && cur != "" {
				counts[cur], _ = strconv.Atoi(m[1])
				cur = ""
			}
		}
		f.Close()
		m, err := vm.NewDevice().LoadModule(mod+".ptx", src)
		if err != nil {
			return fmt.Errorf("%s: %w", mod, err)
		}
		for _, name := range m.EntryNames() {
			n, ok := counts[name]
			if !ok {
				continue
			}
			k, err := m.Kernel(name)
			if err != nil {
				return err
			}
			p := regs.Analyze(k)
			data[p.Debug] = append(data[p.Debug], pt{float64(p.MaxLive), float64(n)})
		}
	}
	for _, debug := range []bool{false, true} {
		d := data[debug]
		// Weighted least squares, weights 1/real²: minimises relative error.
		var sw, sx, sy, sxx, sxy float64
		for _, p := range d {
			w := 1 / (p.real * p.real)
			sw += w
			sx += w * p.live
			sy += w * p.real
			sxx += w * p.live * p.live
			sxy += w * p.live * p.real
		}
		b := (sw*sxy - sx*sy) / (sw*sxx - sx*sx)
		a := (sy - b*sx) / sw
		var ape float64
		for _, p := range d {
			est := math.Min(255, math.Max(8, math.Round(a+b*p.live)))
			ape += math.Abs(est-p.real) / p.real
		}
		name := "optimised"
		if debug {
			name = "-G"
		}
		fmt.Printf("%-9s %3d kernels: registers = %.2f + %.3f × MaxLive, MAPE %.1f%%\n", name, len(d), a, b, 100*ape/float64(len(d)))
	}
	return nil
}
