package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/scheduler/timing"
)

// sampleSpec is a 15.5-wave launch of the perf corpus (the shared-memory
// transpose at 4096²) that samples in about three seconds. Not the public
// corpus: its PTX is not in a clone.
const sampleSpec = "../../testdata/perf/cases/transpose_shared_4096/O3/spec.json"

// autoSpec is a launch of several waves far under the automatic
// sampling's threshold, which --sample auto runs in full: the case that
// shows it leaving a launch alone. The Adam step of the application corpus
// (-O3, 7.8 waves) runs in half the time of the shared transpose at 3072²
// (8.7 waves), which this was until 2026-11-29.
const autoSpec = "../../testdata/apps/cases/adam_big/O3/spec.json"

// --sample: a sampled timed run says so on stderr and in the summary, gives
// the estimate's error bound beside the cycles, puts no figure under an
// Nsight Compute name in --metrics and --json, and refuses (or warns) where
// its outputs would be incomplete.
func TestRunSample(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		code int
		// stdout, stderr: substrings expected.
		stdout, stderr []string
		// sampled: the --metrics file says the run was sampled.
		sampled bool
	}{
		{name: "skip", args: []string{"--sample", "skip"}, code: exitOK,
			stdout: []string{"a sampled estimate, not sm__cycles_elapsed.max", "± ", "outputs  ", "INCOMPLETE", "simulated in detail only"},
			stderr: []string{"sampled (--sample skip)", "warning:", "outputs are incomplete"}, sampled: true},
		{name: "exact writes outputs", args: []string{"--sample", "exact", "--out", filepath.Join(dir, "out")}, code: exitOK,
			stdout: []string{"a sampled estimate", "run functionally (outputs exact)", "output "},
			stderr: []string{"sampled (--sample exact)"}, sampled: true},
		{name: "skip refuses outputs", args: []string{"--sample", "skip", "--out", filepath.Join(dir, "no")}, code: exitUsage,
			stderr: []string{"--sample skip does not run every block", "--sample exact"}},
		{name: "needs timing mode", args: []string{"--sample", "exact", "--mode", "functional"}, code: exitUsage,
			stderr: []string{"--sample exact needs --mode timing"}},
		{name: "bad mode", args: []string{"--sample", "some"}, code: exitUsage,
			stderr: []string{"--sample: unknown sampling mode"}},
		{name: "auto leaves a small launch alone", args: nil, code: exitOK,
			stdout: []string{"(sm__cycles_elapsed.max)"},
			stderr: []string{"not sampled (automatic: about 3.2e+06 warp instructions estimated from 16 blocks run ahead, at most 2e+08): every block simulated in detail"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".json")
			sp := sampleSpec
			if !tc.sampled && tc.code == exitOK {
				sp = autoSpec
			}
			args := append([]string{"run", sp, "--mode", "timing", "--metrics", m}, tc.args...)
			if tc.name == "needs timing mode" {
				args = append([]string{"run", sp, "--metrics", m}, tc.args...)
			}
			r := ptxrun(t, args...)
			require.Equal(t, tc.code, r.code, r.stderr)
			for _, s := range tc.stdout {
				assert.Contains(t, r.stdout, s)
			}
			for _, s := range tc.stderr {
				assert.Contains(t, r.stderr, s)
			}
			if tc.code != exitOK {
				assert.NoFileExists(t, m)
				return
			}
			data, err := os.ReadFile(m)
			require.NoError(t, err)
			var mf struct {
				Metrics  map[string]float64 `json:"metrics"`
				Sampling *struct {
					Mode   string `json:"mode"`
					Cycles uint64 `json:"cycles"`
					Error  uint64 `json:"error_cycles"`
				} `json:"sampling"`
				Auto *struct {
					Sampled  bool    `json:"sampled"`
					Estimate float64 `json:"estimated_warp_instructions"`
				} `json:"auto_sample"`
			}
			require.NoError(t, json.Unmarshal(data, &mf))
			if !tc.sampled {
				assert.Nil(t, mf.Sampling)
				assert.Contains(t, mf.Metrics, "sm__cycles_elapsed.max")
				assert.NotContains(t, r.stderr, "ptxrun run: sampled")
				// The estimate (3,211,264 warp instructions: the probe's
				// blocks do what every block does) and the decision.
				assert.Equal(t, 3211264.0, mf.Metrics[timing.MetricAutoEstimate])
				assert.Equal(t, 0.0, mf.Metrics[timing.MetricAutoSampled])
				assert.Equal(t, float64(timing.AutoSampleInst), mf.Metrics[timing.MetricAutoThreshold])
				require.NotNil(t, mf.Auto)
				assert.False(t, mf.Auto.Sampled)
				assert.Equal(t, 3211264.0, mf.Auto.Estimate)
				return
			}
			require.NotNil(t, mf.Sampling)
			assert.Positive(t, mf.Sampling.Error)
			assert.Equal(t, float64(mf.Sampling.Cycles), mf.Metrics["ptxvm__sampled_cycles_estimate"])
			assert.Equal(t, float64(mf.Sampling.Error), mf.Metrics["ptxvm__sampled_cycles_error"])
			for k := range mf.Metrics {
				assert.True(t, strings.HasPrefix(k, "ptxvm__") || strings.HasPrefix(k, "launch__"), "%s: a sampled figure under an ncu name", k)
			}
		})
	}
}

// --sample as the timing model gets it: auto samples past
// timing.AutoSampleInst, running the blocks left out functionally when the
// outputs are used; skip with outputs, and sampling outside timing mode,
// are refused.
func TestSampleOption(t *testing.T) {
	for _, tc := range []struct {
		mode, run      string
		given, outputs bool
		want           timing.Sample
		err            string
	}{
		{"auto", scheduler.ModeTiming, false, false, timing.Sample{Mode: timing.SampleSkip, MinInst: timing.AutoSampleInst}, ""},
		{"auto", scheduler.ModeTiming, false, true, timing.Sample{Mode: timing.SampleExact, MinInst: timing.AutoSampleInst}, ""},
		{"auto", scheduler.ModeFunctional, false, true, timing.Sample{}, ""},
		{"off", scheduler.ModeTiming, true, false, timing.Sample{}, ""},
		{"off", scheduler.ModeFunctional, true, false, timing.Sample{}, ""},
		{"exact", scheduler.ModeTiming, true, true, timing.Sample{Mode: timing.SampleExact}, ""},
		{"skip", scheduler.ModeTiming, true, false, timing.Sample{Mode: timing.SampleSkip}, ""},
		{"skip", scheduler.ModeTiming, true, true, timing.Sample{}, "outputs would be incomplete"},
		{"exact", scheduler.ModeFunctional, true, false, timing.Sample{}, "needs --mode timing"},
		{"sometimes", scheduler.ModeTiming, true, false, timing.Sample{}, "unknown sampling mode"},
	} {
		t.Run(fmt.Sprintf("%s/%s/outputs=%v", tc.mode, tc.run, tc.outputs), func(t *testing.T) {
			got, err := sampleOption(tc.mode, tc.run, tc.given, tc.outputs)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}
