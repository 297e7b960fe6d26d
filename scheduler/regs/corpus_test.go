package regs

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/vm"
)

// ptxasReport reads `ptxas -v` output: registers per entry.
func ptxasReport(t testing.TB, path string) map[string]int {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	out := map[string]int{}
	entry := regexp.MustCompile(`Compiling entry function '([^']+)'`)
	used := regexp.MustCompile(`Used (\d+) registers`)
	cur := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m := entry.FindStringSubmatch(sc.Text()); m != nil {
			cur = m[1]
		} else if m := used.FindStringSubmatch(sc.Text()); m != nil && cur != "" {
			n, _ := strconv.Atoi(m[1])
			out[cur] = n
			cur = ""
		}
	}
	return out
}

// kernelCase is one corpus kernel with ptxas's register count.
type kernelCase struct {
	name   string
	k      *vm.Kernel
	ptxas  int
	press  Pressure
	module string
}

// corpusKernels lowers every entry of every corpus module that has a ptxas
// report.
func corpusKernels(t testing.TB) []kernelCase {
	var out []kernelCase
	reports, _ := filepath.Glob("../../testdata/*/ptxas/*.txt")
	sort.Strings(reports)
	for _, rp := range reports {
		corp := filepath.Base(filepath.Dir(filepath.Dir(rp)))
		mod := strings.TrimSuffix(filepath.Base(rp), ".txt")
		src, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(rp)), "ptx", mod+".ptx"))
		if err != nil {
			continue
		}
		regs := ptxasReport(t, rp)
		m, err := vm.NewDevice().LoadModule(mod+".ptx", src)
		require.NoError(t, err, rp)
		for _, name := range m.EntryNames() {
			n, ok := regs[name]
			if !ok {
				continue
			}
			k, err := m.Kernel(name)
			require.NoError(t, err)
			out = append(out, kernelCase{name: corp + "/" + mod + ":" + name, k: k, ptxas: n, press: Analyze(k), module: mod})
		}
	}
	return out
}

// The estimate's error over every corpus kernel with a ptxas report stays
// what the README says (mean absolute percentage error, optimised and -G
// code), and the register-limited occupancy it implies agrees with
// ptxas's count for most kernels.
func TestEstimateAgainstPtxas(t *testing.T) {
	cases := corpusKernels(t)
	require.Greater(t, len(cases), 400, "every corpus kernel with a ptxas report")
	type acc struct {
		n         int
		ape, ae   float64
		sameAlloc int
	}
	var o3, g acc
	for _, c := range cases {
		a := &o3
		if c.press.Debug {
			a = &g
		}
		est := c.press.Registers()
		d := float64(est - c.ptxas)
		if d < 0 {
			d = -d
		}
		a.n++
		a.ae += d
		a.ape += d / float64(c.ptxas)
		// Registers are allocated 8 per thread at a time (H100).
		if (est+7)/8 == (c.ptxas+7)/8 {
			a.sameAlloc++
		}
		if *verbose {
			fmt.Printf("%-70s live %3d estimate %3d ptxas %3d\n", c.name, c.press.MaxLive, est, c.ptxas)
		}
	}
	for _, x := range []struct {
		name    string
		a       *acc
		maxMAPE float64
	}{{"optimised", &o3, 0.21}, {"-G", &g, 0.26}} {
		mape := x.a.ape / float64(x.a.n)
		t.Logf("%s: %d kernels, MAPE %.1f%%, mean absolute error %.1f registers, same allocation (8-register unit) %d",
			x.name, x.a.n, 100*mape, x.a.ae/float64(x.a.n), x.a.sameAlloc)
		assert.LessOrEqual(t, mape, x.maxMAPE, x.name)
	}
}

var verbose = flag.Bool("regs-verbose", false, "print every kernel's estimate")
