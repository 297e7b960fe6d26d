package program_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/scheduler/program"
	"github.com/ptxvm/ptxvm/scheduler/timing"
	"github.com/ptxvm/ptxvm/vm/spec"
)

var (
	hostFull   = flag.Bool("hostfull", false, "run every case of testdata/host (minutes), the 16 MiB programs' kernels unsampled, and rewrite docs/host-memory-validation.md; TestMixedL2AgainstGPU: all 33 launches, each from 1/8 and 1/4 of the GPU's iterations")
	hostCases  = flag.String("hostcases", "", "run only the cases of testdata/host whose names match this regular expression (unsampled), and log each figure")
	hostGPU    = flag.String("hostgpu", "h100", "the GPU profile the host-memory corpus runs on (-hostfull writes docs/host-memory-validation.md only with the default)")
	hostJobs   = flag.Int("hostj", 2, "cases of testdata/host run at once")
	hostRepeat = flag.String("hostrepeat", "", "hold the model to a repeat recording instead: the *.jsonl files in this folder (lines as testdata/host's recordings), only the figures they hold")
)

const hostDir = "../../testdata/host"

// hostCase is one program of testdata/host/cases.json and the recordings
// its steps are held to.
type hostCase struct {
	Name  string `json:"name"`
	Spec  string `json:"spec"`
	Steps []struct {
		Step any `json:"step"` // an index, or "total"
		// From is the first step a "total" counts (the steps before it
		// set up the state the recording started from).
		From   int    `json:"from"`
		Group  string `json:"group"`
		Name   string `json:"name"`
		Bytes  uint64 `json:"bytes"`
		NcuRow *int   `json:"ncu_row"`
	} `json:"steps"`
}

// hostRecording is a line of hostmem.jsonl.
type hostRecording struct {
	Group string  `json:"group"`
	Name  string  `json:"name"`
	Bytes uint64  `json:"bytes"`
	US    float64 `json:"us"`
}

func readHostCorpus(t *testing.T) ([]hostCase, map[string]hostRecording, [][]string) {
	var cj struct {
		Cases []hostCase `json:"cases"`
	}
	data, err := os.ReadFile(filepath.Join(hostDir, "cases.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &cj))
	// The recordings: hostmem.jsonl, then hostmem2.jsonl and
	// hostmem3.jsonl (their groups and names do not repeat the first's).
	rec := readRecordings(t, filepath.Join(hostDir, "hostmem*.jsonl"))
	// The mapped kernels under ncu, in launch order.
	cf, err := os.Open(filepath.Join(hostDir, "ncu_mapped.csv"))
	require.NoError(t, err)
	defer cf.Close()
	r := csv.NewReader(cf)
	r.FieldsPerRecord = -1
	all, err := r.ReadAll()
	require.NoError(t, err)
	var rows [][]string
	for i, row := range all {
		if len(row) > 0 && row[0] == "ID" {
			rows = append(rows, row)
			for _, x := range all[i+1:] {
				if len(x) == len(row) && x[0] != "" {
					rows = append(rows, x)
				}
			}
			break
		}
	}
	require.NotEmpty(t, rows, "ncu_mapped.csv has no header row")
	if *hostRepeat != "" {
		rec = readRepeat(t, *hostRepeat)
	}
	return cj.Cases, rec, rows
}

// readRepeat reads a repeat recording: every *.jsonl in dir, keyed as
// readHostCorpus keys the corpus's (a figure recorded twice in dir is an
// error: put each run in its own folder).
func readRepeat(t *testing.T, dir string) map[string]hostRecording {
	return readRecordings(t, filepath.Join(dir, "*.jsonl"))
}

// readRecordings reads the recordings of the files matching pattern, one
// JSON object a line, keyed "group/name/bytes"; a figure recorded twice is
// an error (but the device and latency lines every program writes).
func readRecordings(t *testing.T, pattern string) map[string]hostRecording {
	t.Helper()
	files, err := filepath.Glob(pattern)
	require.NoError(t, err)
	require.NotEmpty(t, files, "no recordings match %s", pattern)
	rec := map[string]hostRecording{}
	for _, name := range files {
		data, err := os.ReadFile(name)
		require.NoError(t, err)
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var r hostRecording
			require.NoError(t, json.Unmarshal([]byte(line), &r), name)
			key := fmt.Sprintf("%s/%s/%d", r.Group, r.Name, r.Bytes)
			_, dup := rec[key]
			require.False(t, dup && r.Group != "device" && r.Group != "latency", "%s: %s recorded twice", filepath.Base(name), key)
			rec[key] = r
		}
	}
	return rec
}

// hostRow is one compared figure: a step's (or a program's) modelled time
// against the GPU's.
type hostRow struct {
	Case, What     string
	Kind           string // transfer, kernel, program
	Bytes          uint64
	Model, GPU     float64 // µs
	Sysmem, NcuSys float64 // sysmem sectors (mapped kernels)
}

func (r hostRow) err() float64 { return (r.Model - r.GPU) / r.GPU }

// hostSmall says whether a case runs in go test's default run: those of
// 1 MiB, the copies (no kernel) and the 16 MiB programs.
func hostSmall(name string) bool {
	return strings.HasSuffix(name, "_1M") || strings.HasPrefix(name, "copies_") || strings.HasPrefix(name, "pageable2_") ||
		strings.HasPrefix(name, "copy_scale_copy_") || name == "scale_axpy"
}

// hostSampled are the cases whose kernels the default run samples
// (timing.SampleExact: some waves in detail, the others extrapolated and
// run functionally): the 16 MiB programs, each two kernels of 16,384
// blocks over device memory (scale_axpy) or one between two copies. Their
// figures came out the same as in full to 0.1 point (2026-11-29:
// copy_scale_copy_pageable -15.4%, copy_scale_copy_pinned +1.4%,
// scale_axpy +1.4% against +1.5%) in a seventh of the CPU time (1.4
// against 9.3 s); -hostfull and -hostcases run them in full.
var hostSampled = map[string]bool{"copy_scale_copy_pageable": true, "copy_scale_copy_pinned": true, "scale_axpy": true}

func runHostCases(t *testing.T, cases []hostCase, rec map[string]hostRecording, ncuRows [][]string) []hostRow {
	head := ncuRows[0]
	col := func(name string) int {
		for i, h := range head {
			if h == name {
				return i
			}
		}
		return -1
	}
	num := func(s string) float64 {
		v, _ := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64)
		return v
	}
	gpu, err := scheduler.LookupProfile(*hostGPU)
	require.NoError(t, err)
	var mu sync.Mutex
	var rows []hostRow
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(1, *hostJobs))
	for _, c := range cases {
		if *hostCases != "" {
			if !regexp.MustCompile(*hostCases).MatchString(c.Name) {
				continue
			}
		} else if !*hostFull && !hostSmall(c.Name) {
			continue
		}
		wg.Add(1)
		go func(c hostCase) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			start := time.Now()
			sp, err := spec.Load(filepath.Join(hostDir, c.Spec))
			if !assert.NoError(t, err, c.Name) {
				return
			}
			opt := scheduler.Options{Mode: scheduler.ModeTiming, Workers: 1, StreamOutputs: true}
			if !*hostFull && *hostCases == "" && hostSampled[c.Name] {
				opt.Sample = timing.Sample{Mode: timing.SampleExact}
			}
			run, err := program.Execute(context.Background(), sp, gpu, opt, nil)
			if !assert.NoError(t, err, c.Name) {
				return
			}
			defer run.Release()
			for _, m := range c.Steps {
				g, ok := rec[fmt.Sprintf("%s/%s/%d", m.Group, m.Name, m.Bytes)]
				if !ok && *hostRepeat != "" {
					continue // not in the repeat
				}
				if !assert.True(t, ok, "%s: no recording %s/%s/%d", c.Name, m.Group, m.Name, m.Bytes) {
					continue
				}
				row := hostRow{Case: c.Name, What: m.Group + " " + m.Name, Bytes: m.Bytes, GPU: g.US}
				if m.Step == "total" {
					row.Kind = "program"
					for _, s := range run.Steps[m.From:] {
						row.Model += s.TimeUS
					}
				} else {
					s := run.Steps[int(m.Step.(float64))]
					row.Model = s.TimeUS
					row.Kind = "transfer"
					if s.Kind == spec.StepLaunch {
						row.Kind = "kernel"
						row.Sysmem = s.Metrics["lts__t_sectors_aperture_sysmem_op_read.sum"] + s.Metrics["lts__t_sectors_aperture_sysmem_op_write.sum"]
					}
					if m.NcuRow != nil {
						r := ncuRows[1+*m.NcuRow]
						row.NcuSys = num(r[col("lts__t_sectors_aperture_sysmem_op_read.sum")]) + num(r[col("lts__t_sectors_aperture_sysmem_op_write.sum")])
					}
				}
				mu.Lock()
				rows = append(rows, row)
				mu.Unlock()
				if *hostCases != "" || *hostGPU != "h100" || *hostRepeat != "" {
					// Each figure as its case ends, so that a run cut
					// short still says what it measured.
					sys := ""
					if row.NcuSys > 0 {
						sys = fmt.Sprintf("  sysmem sectors %+.1f%%", 100*(row.Sysmem/row.NcuSys-1))
					}
					t.Logf("%-60s %4.0f MiB  GPU %9.1f  model %9.1f  %+6.1f%%%s  (%s, %.0f s)  %s", row.What, float64(row.Bytes)/(1<<20), row.GPU, row.Model, 100*row.err(), sys, c.Name, time.Since(start).Seconds(), knownMiss(row.What, row.Bytes))
				}
			}
		}(c)
	}
	wg.Wait()
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].Kind != rows[j].Kind {
			return rows[i].Kind > rows[j].Kind
		}
		if rows[i].What != rows[j].What {
			return rows[i].What < rows[j].What
		}
		return rows[i].Bytes < rows[j].Bytes
	})
	return rows
}

// hostMisses are the recorded figures the model is known to miss by more
// than 15%, with why; every other transfer of at least 1 MiB and kernel of
// at least 10 µs must be within 15% of the GPU.
// Reasons shared by several known misses (2026-11-29, when the L2 began
// to be carried between a program's launches).
const (
	missFirstLaunch = "the first launch after data came to the device pays 5-25 µs outside the kernel (hostmem7 firstlaunch: ncu's duration of that launch is no longer than the next ones'; CUDA events' 5-15 µs longer at 32 MiB), more after a prefetch of new managed memory and after a pageable copy into a new buffer, growing with size; the model's growth (after_prefetch_growth, after_pageable_new) is a fit across recordings whose same figure differs by 20-40% between days (docs/host-memory.md, \"The first launch grows with what arrived\")"
	missH100DRAM    = "a kernel at DRAM speed over data on the device: the h100 profile's DRAM (3.0 TB/s) against the recording's H200 (4.4); with the L2 carried, the launch also writes back the dirty lines the launch before left, as the H200 does (hostmem7 firstlaunch: 0.97-0.98 bytes written a byte, the model 0.98)"
	missBeyondL2    = "the model's L2 keeps more of a working set beyond its size than the GPU's (hostmem7 l2after at 48 MiB: 26% hits against 8%), so with the L2 carried between launches a read of 64 MiB in and out finds some of it"
)

var hostMisses = map[string]string{
	"firstlaunch prefetch.copy_perm.launch1/8388608":      missFirstLaunch,
	"managed5 fresh_copy.read_coalesced.launch1/25165824": missFirstLaunch,
	"managed5 fresh_copy.read_coalesced.launch1/50331648": missFirstLaunch,
	"managed5 fresh_copy.scale.launch1/50331648":          missFirstLaunch,
	// The first launch at 8 MiB after a pageable copy into a new buffer or a
	// prefetch of new managed memory: the third recording paid 2-3 µs over
	// the third launch, the sixteenth session's repeat of the same program
	// (testdata/host/repeat16) 5-11 µs; the model's growth sits between.
	"managed3 device_after_copy.read_coalesced.launch1/8388608":  "the first launch after a copy at 8 MiB: 14.5 µs in the third recording, 18.3 in its repeat (testdata/host/repeat16); the model 16.9 (+16.9% here, -7.8% there)",
	"managed3 device_after_copy.read_stride32.launch1/8388608":   "the first launch after a copy at 8 MiB: 23.6 µs in the third recording, 26.5 in its repeat (testdata/host/repeat16); the model 27.2 (+15.5% here, +2.5% there)",
	"managed3 device_after_copy.write_coalesced.launch1/8388608": "the first launch after a copy at 8 MiB: 14.5 µs in the third recording, 19.1 in its repeat (testdata/host/repeat16); the model 16.9 (+16.3% here, -11.6% there)",
	"managed3 prefetched.read_coalesced.launch1/8388608":         "the first launch after a prefetch at 8 MiB: 18.1 µs in the third recording, 27.2 in its repeat (testdata/host/repeat16); the model 21.0 (+16.4% here, -22.7% there)",
	"managed read_after_prefetch/67108864":                       missFirstLaunch,
	"l2managed faulted.readall.launch1/16777216":                 missH100DRAM,
	"l2managed faulted.readall.launch1/33554432":                 missH100DRAM,
	"l2managed faulted.readall.launch2/33554432":                 missH100DRAM,
	"l2managed faulted.readall.launch2/67108864":                 missH100DRAM,
	"l2managed prefetched.readall.launch1/16777216":              missH100DRAM,
	"l2managed prefetched.readall.launch1/33554432":              missH100DRAM,
	"l2managed prefetched.readall.launch2/67108864":              missH100DRAM,
	"resident managed_faulted.write_coalesced/33554432":          missH100DRAM,
	"resident managed_faulted.write_coalesced/134217728":         missH100DRAM,
	"l2managed faulted.readall.launch1/67108864":                 "host noise: the seven repeats took 24.7-47.6 µs (median 42.7; the second launch 24.8)",
	"managed read_resident/67108864":                             missBeyondL2,
	"program2 copy_scale_copy_pageable/12582912":                 "the second recording's host: pageable copies at 4-48 MiB move at 7-13 GB/s with no rule of what touched the buffer (one cold rate, 8.5 GB/s)",
	"managed read_after_prefetch/1048576":                        "after a prefetch the GPU's first read finds none of the buffer in the L2 (hostmem7: 0-2% hits) and pays 3.6 µs beyond the model's cold read at 1 MiB, 5.4-8.3 at 8 MiB (third recording); after_prefetch_us is 5.2 at every size",
	"mapped read_mapped_stride32/4194304":                        "scattered reads of mapped memory: 1.39 ns a sector on the GPU at 4 MiB, 1.59 at 16 MiB (fitted there)",
	"managed prefetch_to_device/4194304":                         "the GPU's prefetch is faster at 4 MiB than its line through 1, 16 and 256 MiB (fit.py: -18% there)",
	"managed first_read_host_resident/4194304":                   "first touches of 4 MiB are faster on the GPU than the line through 1, 16 and 256 MiB (fit.py: +21%)",
	"managed first_write_host_resident/4194304":                  "first touches of 4 MiB ran faster than the line through 1, 16 and 256 MiB on the first recording's host (reads +21.7%, the read-write scale +11.3%); its five repeats of this write spread 497-702 µs",
	// The second recording's pageable copies (hostmem2.jsonl): its host
	// moves a repeated copy of 24 MiB at 8.8 GB/s and of 48 MiB at 8.4,
	// where the first's cached at 12.7 up to 16 MiB and 6.1–6.6 past 32
	// MiB; a cold copy of 4 MiB ran at 11.4 GB/s after the CPU wrote it
	// and 8.1 after a copy back, 13.9 after another buffer came back.
	"pageable h2d_warm/25165824":                                 "the second recording's host: a repeated 24 MiB copy at 8.8 GB/s (the first host's cache held 16 MiB at 12.7)",
	"pageable h2d_warm/50331648":                                 "the second recording's host: a repeated 48 MiB copy at 8.4 GB/s (the first host's beyond-cache rate: 6.6)",
	"pageable d2h/50331648":                                      "the second recording's host: 48 MiB back at 13.1 GB/s (the first host: 10.9)",
	"pageable h2d_after_cpu_write/4194304":                       "a cold copy of 4 MiB: 11.4 GB/s after the CPU wrote it, 8.1 after a copy back (one cold rate, 8.5)",
	"pageable h2d_after_cpu_write/12582912":                      "cold copies vary by 15-30% with what touched the host buffer (one cold rate, 8.5 GB/s)",
	"pageable h2d_after_d2h_other/4194304":                       "a copy after another buffer came back: warm at 4 MiB (13.9 GB/s), cold from 8 MiB on; the model keeps one buffer warm",
	"pageable h2d_after_d2h_other/8388608":                       "cold copies vary by 15-30% with what touched the host buffer (one cold rate, 8.5 GB/s)",
	"pageable h2d_after_d2h_other/12582912":                      "cold copies vary by 15-30% with what touched the host buffer (one cold rate, 8.5 GB/s)",
	"pageable h2d_after_d2h_same/25165824":                       "cold copies past 16 MiB: 7.0 GB/s on the second recording's host (one cold rate, 8.5)",
	"pageable h2d_after_d2h_same/50331648":                       "cold copies past 16 MiB: 7.2 GB/s on the second recording's host (one cold rate, 8.5)",
	"program copy_scale_copy_pageable/16777216":                  "the same program took 3,333 µs in the second recording (model +7%) and 4,225 in the first: its copy in ran at 6.6 GB/s there, 8.1 in the second",
	"managed3 pageable.d2h/2097152":                              "the third recording's host: 2 MiB back took 666 µs (3.1 GB/s; the other hosts: 10-11 GB/s)",
	"managed3 pageable.d2h/6291456":                              "the third recording's host: 6 MiB back at 6.8 GB/s (the other hosts: 10-11)",
	"managed3 pageable.d2h/41943040":                             "the third recording's host: 40 MiB back at 12.9 GB/s (the first: 10.9)",
	"managed3 pageable.h2d_after_cpu_write/2097152":              "the third recording's host: 2 MiB of CPU-written data at 12.3 GB/s, not cold",
	"managed3 pageable.h2d_after_cpu_write/41943040":             "the third recording's host: pageable copies at 2-40 MiB move at 7-13 GB/s with no rule of what touched the buffer that holds on all three hosts",
	"managed3 pageable.h2d_after_d2h_same/20971520":              "the third recording's host: pageable copies at 2-40 MiB move at 7-13 GB/s with no rule of what touched the buffer that holds on all three hosts",
	"managed3 pageable.h2d_after_d2h_same/41943040":              "the third recording's host: pageable copies at 2-40 MiB move at 7-13 GB/s with no rule of what touched the buffer that holds on all three hosts",
	"managed3 pageable.h2d_repeat/6291456":                       "the third recording's host: a repeated copy is no faster than a cold one (6 MiB at 9.3 GB/s)",
	"managed3 pageable.h2d_repeat/20971520":                      "the third recording's host: a repeated copy is no faster than a cold one (20 MiB at 7.9 GB/s)",
	"managed3 pageable.copy_scale_copy_after_d2h/20971520":       "the third recording's host: pageable copies at 2-40 MiB move at 7-13 GB/s with no rule of what touched the buffer that holds on all three hosts",
	"managed3 pageable.copy_scale_copy_after_d2h/41943040":       "the third recording's host: pageable copies at 2-40 MiB move at 7-13 GB/s with no rule of what touched the buffer that holds on all three hosts",
	"managed3 device_after_copy.read_coalesced.launch1/33554432": "the first launch after data came to the device: the GPU pays 11-25 µs more at 32 MiB where the model adds a fixed 2.5 or 5.2 µs (the cost grows with size; not modelled)",
	"managed3 faulted.scale.launch1/33554432":                    "the first launch after data came to the device: the GPU pays 11-25 µs more at 32 MiB where the model adds a fixed 2.5 or 5.2 µs (the cost grows with size; not modelled)",
	"managed3 faulted.write_coalesced.launch1/33554432":          "the first launch after data came to the device: the GPU pays 11-25 µs more at 32 MiB where the model adds a fixed 2.5 or 5.2 µs (the cost grows with size; not modelled)",
	"managed3 prefetched.scale.launch1/33554432":                 "the first launch after data came to the device: the GPU pays 11-25 µs more at 32 MiB where the model adds a fixed 2.5 or 5.2 µs (the cost grows with size; not modelled)",
	"managed3 faulted.scale.launch1/8388608":                     "the first launch after faults: 4.8 µs more on the GPU for scale at 8 MiB (1-2 for reads); the model adds 2.5",
	"managed3 device_after_copy.read_coalesced.launch2/8388608":  "the second launch after a copy took 14.9 µs, the first 14.5 and the third 12.4 (the model: 12.3)",
	"managed3 faulted.first_read_read_coalesced/2097152":         "the third recording's host: the same read timed in four groups, medians 451-548 µs at 2 MiB and 1330-1463 at 8, 1-23% above the first recording's line the fault model is fitted on",
	"managed3 faulted.first_read_read_coalesced/8388608":         "the third recording's host: the same read timed in four groups, medians 451-548 µs at 2 MiB and 1330-1463 at 8, 1-23% above the first recording's line the fault model is fitted on",
	"managed3 faulted.first_read_read_coalesced/33554432":        "host noise: the same read timed in four groups of five (the suffix names the kernel after it), medians 5716, 4302, 4067 and 4115 µs; this group's repeats 4303-6114",
	"managed3 faulted.first_read_scale/8388608":                  "the third recording's host: the same read timed in four groups, medians 451-548 µs at 2 MiB and 1330-1463 at 8, 1-23% above the first recording's line the fault model is fitted on",
	"resident managed_faulted.read_stride32/134217728":           "the same kernel over device memory misses alike (+33.6%): the timing model's strided reads of 128 MiB, not managed memory",
	"memset memset/67108864":                                     "the profile's DRAM is an H100's (3.0 TB/s); the recording's card, an H200, has 4.8 TB/s",
	// The fifth recording (hostmem5.jsonl), compared with the model as it
	// stood before anything looked at it (docs/host-memory.md).
	"managed5 prefetch_to_device/2097152":              "prefetches of managed memory the CPU has just written, 2-12 MiB (hostmem5): seven repeats spread 134-654 µs at 2 MiB, 170-614 at 3, 244-679 at 6, 286-551 at 8, 354-462 at 12, the medians not growing with size (6 MiB 568, 12 MiB 414); the fastest repeats are within 3-5% of the model from 6 MiB on",
	"managed5 prefetch_to_device/3145728":              "prefetches of managed memory the CPU has just written, 2-12 MiB (hostmem5): seven repeats spread 134-654 µs at 2 MiB, 170-614 at 3, 244-679 at 6, 286-551 at 8, 354-462 at 12, the medians not growing with size (6 MiB 568, 12 MiB 414); the fastest repeats are within 3-5% of the model from 6 MiB on",
	"managed5 prefetch_to_device/6291456":              "prefetches of managed memory the CPU has just written, 2-12 MiB (hostmem5): seven repeats spread 134-654 µs at 2 MiB, 170-614 at 3, 244-679 at 6, 286-551 at 8, 354-462 at 12, the medians not growing with size (6 MiB 568, 12 MiB 414); the fastest repeats are within 3-5% of the model from 6 MiB on",
	"managed5 prefetch_to_device/8388608":              "prefetches of managed memory the CPU has just written, 2-12 MiB (hostmem5): seven repeats spread 134-654 µs at 2 MiB, 170-614 at 3, 244-679 at 6, 286-551 at 8, 354-462 at 12, the medians not growing with size (6 MiB 568, 12 MiB 414); the fastest repeats are within 3-5% of the model from 6 MiB on",
	"managed5 first_write_untouched/12582912":          "making untouched pages: this recording's cost per MiB rises smoothly with size (74, 79, 86, 96, 104 µs at 3-48 MiB, fault latency aside) where the first recording's stays at 66-78 up to 16 MiB and is 107-114 from 64 MiB, the step at the host cache size (32 MiB) the model follows; seven repeats at 12 MiB 900-1400 µs",
	"managed5 first_write_untouched/25165824":          "making untouched pages: this recording's cost per MiB rises smoothly with size (74, 79, 86, 96, 104 µs at 3-48 MiB, fault latency aside) where the first recording's stays at 66-78 up to 16 MiB and is 107-114 from 64 MiB, the step at the host cache size (32 MiB) the model follows; seven repeats at 24 MiB 2314-2651 µs",
	"managed5 scale_first_touch_host_resident/3145728": "first touches of 3 MiB on this host: 161-170 µs a MiB past the fault latency for reads and read-writes (repeats 592-719 µs here, 598-805 for the read, -14%) where its 6-24 MiB cost 123-149",
	"managed5 fresh_copy.scale.launch1/25165824":       "the first launch after a copy into a buffer new from cudaMalloc: 7.7 µs over the third on the GPU (repeats 28.9-31.7), 3.3 after a copy into the same buffer once kernels had read it (reused_copy); the model adds the same after both",
}

// deviceKernel reports whether figure what is a kernel over device memory
// (reported beside the mapped and managed ones, not held to the issue's
// claim): the mapped group's *_device_* kernels, the second recording's
// resident device.*, and the seventh's l2after, partial and firstlaunch
// kernels but those after a prefetch (managed memory).
func deviceKernel(what string) bool {
	switch {
	case strings.Contains(what, "_device_"), strings.Contains(what, " device."),
		strings.HasPrefix(what, "l2after "), strings.HasPrefix(what, "partial "),
		strings.HasPrefix(what, "firstlaunch ") && !strings.HasPrefix(what, "firstlaunch prefetch."):
		return true
	}
	return false
}

// knownMiss is the reason a figure is a known miss ("" if it is not).
func knownMiss(what string, bytes uint64) string {
	if m, ok := hostMisses[fmt.Sprintf("%s/%d", what, bytes)]; ok {
		return m
	}
	return hostMisses[what+"/*"]
}

// TestHostMemoryAgainstGPU holds the model of host memory (copies,
// mapped kernels, managed memory, programs) to what testdata/host
// recorded on the GPU: transfers of at least 1 MiB and kernels of at least
// 10 µs within 15% (but for hostMisses), mapped kernels' sysmem sectors
// within 10% of ncu's. go test runs the cases of 1 MiB, the copies and
// the programs (the 16 MiB programs' kernels sampled: hostSampled);
// -hostfull runs all, in full, and rewrites docs/host-memory-validation.md.
func TestHostMemoryAgainstGPU(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the host-memory corpus in timing mode")
	}
	cases, rec, ncuRows := readHostCorpus(t)
	rows := runHostCases(t, cases, rec, ncuRows)
	require.NotEmpty(t, rows)
	for _, r := range rows {
		key := fmt.Sprintf("%s/%d", r.What, r.Bytes)
		if knownMiss(r.What, r.Bytes) != "" {
			continue
		}
		// The claim is the issue's: transfers of at least 1 MiB, kernels
		// over mapped or managed memory of at least 10 µs (the device
		// kernels beside them are reported, not held here).
		device := deviceKernel(r.What)
		claim := r.Bytes >= 1<<20 && (r.Kind != "kernel" || (r.GPU >= 10 && !device))
		if claim {
			assert.LessOrEqual(t, math.Abs(r.err()), 0.15, "%s (%s): model %.1f µs, GPU %.1f µs (%+.1f%%)", key, r.Case, r.Model, r.GPU, 100*r.err())
		}
		if r.NcuSys > 0 {
			assert.InDelta(t, 1, r.Sysmem/r.NcuSys, 0.10, "%s: sysmem sectors %.0f, ncu %.0f", key, r.Sysmem, r.NcuSys)
		}
	}
	if *hostCases != "" || *hostGPU != "h100" || *hostRepeat != "" {
		// Another profile, or some of the cases: every figure was logged
		// as its case ended; the summary (the document is of the full
		// run on h100).
		t.Logf("on %s:\n%s", *hostGPU, hostSummary(rows))
	} else if *hostFull {
		writeHostTable(t, rows)
	}
}

func writeHostTable(t *testing.T, rows []hostRow) {
	var b strings.Builder
	b.WriteString("# Host memory: the model against the GPU\n\n")
	b.WriteString("*Written by `go test ./scheduler/program -run TestHostMemoryAgainstGPU -hostfull`; the recordings are testdata/host (see its README). Times in µs; `err` is the model against the GPU. Sysmem sectors are lts__t_sectors_aperture_sysmem_op_read + _op_write, ours against ncu's.*\n")
	for _, k := range []struct{ kind, title string }{{"transfer", "Copies, memsets, prefetches and host touches"}, {"kernel", "Kernels over mapped and managed memory"}, {"program", "Programs"}} {
		fmt.Fprintf(&b, "\n## %s\n\n| figure | MiB | GPU | model | err | sysmem sectors, ours / ncu | known miss |\n| --- | ---: | ---: | ---: | ---: | ---: | --- |\n", k.title)
		for _, r := range rows {
			if r.Kind != k.kind {
				continue
			}
			sys := ""
			if r.NcuSys > 0 {
				sys = fmt.Sprintf("%.0f / %.0f (%+.1f%%)", r.Sysmem, r.NcuSys, 100*(r.Sysmem/r.NcuSys-1))
			}
			fmt.Fprintf(&b, "| %s | %g | %.1f | %.1f | %+.1f%% | %s | %s |\n", r.What, float64(r.Bytes)/(1<<20), r.GPU, r.Model, 100*r.err(), sys, knownMiss(r.What, r.Bytes))
		}
	}
	b.WriteString("\n## Summary\n\n" + hostSummary(rows) + "\n")
	require.NoError(t, os.WriteFile("../../docs/host-memory-validation.md", []byte(b.String()), 0o644))
}

// hostSummary counts the figures the claim covers within 15% of
// the GPU, and the mapped kernels' sysmem sectors' largest error.
func hostSummary(rows []hostRow) string {
	var tn, tok, kn, kok, sn int
	var worst float64
	for _, r := range rows {
		e := math.Abs(r.err())
		switch {
		case r.Kind == "transfer" && r.Bytes >= 1<<20:
			tn++
			if e <= 0.15 {
				tok++
			}
		case r.Kind == "kernel" && r.GPU >= 10 && !deviceKernel(r.What):
			kn++
			if e <= 0.15 {
				kok++
			}
		}
		if r.NcuSys > 0 {
			sn++
			worst = math.Max(worst, math.Abs(r.Sysmem/r.NcuSys-1))
		}
	}
	return fmt.Sprintf("- transfers (copies, memsets, prefetches, host touches) of at least 1 MiB within 15%% of the GPU: %d of %d\n"+
		"- kernels over mapped or managed memory of at least 10 µs within 15%%: %d of %d\n"+
		"- mapped kernels' sysmem sectors against ncu's: %d kernels, the largest difference %.1f%%", tok, tn, kok, kn, sn, 100*worst)
}
