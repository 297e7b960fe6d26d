package program_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/scheduler/program"
	"github.com/ptxvm/ptxvm/vm/spec"
)

// l2After is a readall launch of the seventh recording under ncu: the L2
// read hits of a buffer read after a way of filling it.
type l2After struct {
	mib          int
	state        string // e.g. copy_pinned.launch1
	reads, hits  float64
	dramReadByte float64
	dramWriteMB  float64
}

// ncuRow is a launch of one of the seventh recording's ncu tables
// (testdata/host/ncu_hostmem7_*.csv): the buffer's size, the state and
// launch it names, and its metrics.
type ncuRow struct {
	mib   int
	state string
	m     map[string]float64
}

func readNcuTable(t *testing.T, file string) []ncuRow {
	f, err := os.Open(filepath.Join(hostDir, file))
	require.NoError(t, err)
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	var out []ncuRow
	for _, r := range rows[2:] { // the header and the units
		mib, err := strconv.Atoi(r[0])
		require.NoError(t, err)
		row := ncuRow{mib: mib, state: r[1], m: map[string]float64{}}
		for i, h := range rows[0] {
			if v, err := strconv.ParseFloat(r[i], 64); err == nil && i >= 2 {
				row.m[h] = v
			}
		}
		out = append(out, row)
	}
	return out
}

func readL2After(t *testing.T, file string) []l2After {
	var out []l2After
	for _, r := range readNcuTable(t, file) {
		for _, name := range []string{"lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum", "dram__bytes_read.sum"} {
			_, ok := r.m[name]
			require.True(t, ok, "%s has no %s", file, name)
		}
		out = append(out, l2After{mib: r.mib, state: r.state,
			reads: r.m["lts__t_sectors_srcunit_tex_op_read.sum"], hits: r.m["lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum"],
			dramReadByte: r.m["dram__bytes_read.sum"] / float64(r.mib<<20),
			dramWriteMB:  r.m["dram__bytes_write.sum"] / 1e6})
	}
	return out
}

// TestL2BetweenStepsAgainstGPU holds what the L2 keeps between a
// program's steps to the H200 (testdata/host/ncu_hostmem7_l2after.csv,
// ncu without cache control): the L2 read hit rate of readall reading a
// buffer after a pinned copy from the host, a memset, a kernel's writes,
// a kernel's read, or a clean start, on the h200 profile, functionally
// (the hierarchy counts the same accesses in both modes). Without -hostfull
// only 4 and 32 MiB run (about 10 s).
func TestL2BetweenStepsAgainstGPU(t *testing.T) {
	if testing.Short() {
		t.Skip("runs programs of up to 96 MiB")
	}
	gpu, err := scheduler.LookupProfile("h200")
	require.NoError(t, err)
	type key struct {
		mib   int
		state string
	}
	want := map[key]l2After{}
	for _, file := range []string{"ncu_hostmem7_l2after.csv", "ncu_hostmem7_l2managed.csv"} {
		for _, r := range readL2After(t, file) {
			want[key{r.mib, r.state}] = r
		}
	}
	type l2Case struct {
		mib          int
		group, state string
	}
	var cases []l2Case
	for _, mib := range []int{4, 8, 16, 24, 32, 40, 48, 64, 96} {
		for _, state := range []string{"copy_pinned", "memset", "kernel_write", "kernel_read", "cold"} {
			cases = append(cases, l2Case{mib, "l2after", state})
		}
		if mib == 4 || mib == 16 || mib == 32 || mib == 64 {
			for _, state := range []string{"prefetched", "faulted"} {
				cases = append(cases, l2Case{mib, "l2managed", state})
			}
		}
	}
	for _, c := range cases {
		mib, state := c.mib, c.state
		if !*hostFull && mib != 4 && mib != 32 {
			continue
		}
		{
			name := fmt.Sprintf("%s_%s_%dM", c.group, state, mib)
			t.Run(name, func(t *testing.T) {
				sp, err := spec.Load(filepath.Join(hostDir, "cases", name, "spec.json"))
				require.NoError(t, err)
				run, err := program.Execute(context.Background(), sp, gpu, scheduler.Options{Workers: 1, StreamOutputs: true}, nil)
				require.NoError(t, err)
				defer run.Release()
				n := len(run.Steps)
				for j := 1; j <= 2; j++ {
					s := run.Steps[n-3+j]
					got := s.Metrics["lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum"] / s.Metrics["lts__t_sectors_srcunit_tex_op_read.sum"]
					w, ok := want[key{mib, fmt.Sprintf("%s.launch%d", state, j)}]
					require.True(t, ok)
					gpuRate := w.hits / w.reads
					t.Logf("%-13s launch%d %3d MiB: L2 read hit rate %5.1f%%, the H200 %5.1f%%; DRAM written %6.1f MB, the H200 %6.1f", state, j, mib, 100*got, 100*gpuRate, s.Metrics["dram__bytes_write.sum"]/1e6, w.dramWriteMB)
					// Within 12 points, but where the GPU's L2 is nearly full
					// (40 and 48 MiB: the model's LRU over its hashed sets
					// loses the buffer more gradually than the GPU's
					// replacement does), and after a memset of more than
					// the L2 (64 and 96 MiB: the H200's memset leaves 20%
					// and 7% of the buffer, where a kernel's writes leave
					// 2% and 0%, and the model 2% and 0%).
					tol := 0.12
					switch {
					case state == "memset" && j == 1 && mib >= 64:
						tol = 0.20
					case mib == 40 || mib == 48:
						tol = 0.26
					}
					assert.InDelta(t, gpuRate, got, tol, "%s launch%d at %d MiB", state, j, mib)
				}
			})
		}
	}
}

// TestDirtyLinesCarriedAgainstGPU holds the dirty lines a launch leaves
// the next to the H200 (testdata/host/ncu_hostmem7_firstlaunch.csv):
// copy_perm three times after a pinned copy (or a pageable one, or a
// prefetch) at 32 MiB (8, 32 and 64 with -hostfull). The first launch
// finds a clean L2 and writes back little of its 32 MiB of output (the
// H200: 0.36 bytes to DRAM per byte at 32 MiB); the second and third write
// back the launch before's output as they go (0.97-0.98), and read their
// input from DRAM as the first did (the output evicted it). DRAM bytes read
// and written per byte of the buffer, the model's within 0.05 of the
// GPU's (2026-11-29: within 0.03 on all 27 launches); the model runs on the
// h200 profile, functionally.
func TestDirtyLinesCarriedAgainstGPU(t *testing.T) {
	if testing.Short() {
		t.Skip("runs programs of 32 MiB")
	}
	gpu, err := scheduler.LookupProfile("h200")
	require.NoError(t, err)
	type rw struct{ read, write float64 }
	want := map[string]rw{}
	for _, r := range readNcuTable(t, "ncu_hostmem7_firstlaunch.csv") {
		b := float64(r.mib << 20)
		want[fmt.Sprintf("%s/%d", r.state, r.mib)] = rw{r.m["dram__bytes_read.sum"] / b, r.m["dram__bytes_write.sum"] / b}
	}
	for _, mib := range []int{8, 32, 64} {
		if !*hostFull && mib != 32 {
			continue
		}
		for _, state := range []string{"pinned_copy", "pageable_copy", "prefetch"} {
			if !*hostFull && state != "pinned_copy" {
				continue
			}
			name := fmt.Sprintf("firstlaunch_%s_%dM", state, mib)
			t.Run(name, func(t *testing.T) {
				sp, err := spec.Load(filepath.Join(hostDir, "cases", name, "spec.json"))
				require.NoError(t, err)
				run, err := program.Execute(context.Background(), sp, gpu, scheduler.Options{Workers: 1, StreamOutputs: true}, nil)
				require.NoError(t, err)
				defer run.Release()
				for j := 1; j <= 3; j++ {
					m := run.Steps[j].Metrics
					got := rw{m["dram__bytes_read.sum"] / float64(mib<<20), m["dram__bytes_write.sum"] / float64(mib<<20)}
					w, ok := want[fmt.Sprintf("%s.launch%d/%d", state, j, mib)]
					require.True(t, ok)
					t.Logf("%s launch%d %d MiB: DRAM read %.2f, written %.2f bytes a byte; the H200 %.2f, %.2f", state, j, mib, got.read, got.write, w.read, w.write)
					assert.InDelta(t, w.read, got.read, 0.05, "launch%d: DRAM bytes read a byte", j)
					assert.InDelta(t, w.write, got.write, 0.05, "launch%d: DRAM bytes written a byte", j)
				}
			})
		}
	}
}
