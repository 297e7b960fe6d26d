package timing

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/kernels"
	"github.com/ptxvm/ptxvm/scheduler/gpu"
	"github.com/ptxvm/ptxvm/vm"
)

// runKernel runs a bundled kernel at size n through the cycle loop.
func runKernel(t testing.TB, name string, n int, opt Options) *Result {
	return runKernelWith(t, name, n, gpu.MustLookup("h100"), opt)
}

func runKernelOn(t testing.TB, name string, n int, prof *gpu.Profile) *Result {
	return runKernelWith(t, name, n, prof, Options{})
}

func runKernelWith(t testing.TB, name string, n int, prof *gpu.Profile, opt Options) *Result {
	t.Helper()
	e, err := kernels.Lookup(name)
	require.NoError(t, err)
	s, err := e.WithSize(n).Prepare(vm.NewDevice(), 1)
	require.NoError(t, err)
	if opt.BlocksPerSM == 0 {
		opt.BlocksPerSM = 8
	}
	res, err := Run(context.Background(), s.Launch, prof, opt)
	require.NoError(t, err)
	require.NoError(t, s.Check(), "the timed run computes what the functional run does")
	return res
}

type traceEvent struct {
	Name string          `json:"name"`
	Ph   string          `json:"ph"`
	Pid  *int            `json:"pid"`
	Tid  *int            `json:"tid"`
	Ts   *float64        `json:"ts"`
	Dur  *float64        `json:"dur"`
	Cat  string          `json:"cat"`
	Args json.RawMessage `json:"args"`
}

// checkTrace checks a Chrome Trace Event file's structure: the fields
// every event needs, complete events nested or disjoint on each track
// (a stall inside its warp's span), times in order per track.
func checkTrace(t *testing.T, data []byte) (spans map[string]int) {
	var f struct {
		TraceEvents []traceEvent   `json:"traceEvents"`
		OtherData   map[string]any `json:"otherData"`
	}
	require.NoError(t, json.Unmarshal(data, &f), "valid JSON")
	require.NotEmpty(t, f.TraceEvents)
	type track struct{ pid, tid int }
	last := map[track]float64{}
	open := map[track][]traceEvent{}
	spans = map[string]int{}
	for i, e := range f.TraceEvents {
		require.NotEmpty(t, e.Name, "event %d: name", i)
		require.NotNil(t, e.Pid, "event %d: pid", i)
		require.NotNil(t, e.Tid, "event %d: tid", i)
		switch e.Ph {
		case "M":
			continue
		case "X":
		default:
			t.Fatalf("event %d: phase %q", i, e.Ph)
		}
		require.NotNil(t, e.Ts, "event %d: ts", i)
		require.NotNil(t, e.Dur, "event %d: dur", i)
		require.GreaterOrEqual(t, *e.Dur, 0.0)
		k := track{*e.Pid, *e.Tid}
		require.GreaterOrEqual(t, *e.Ts, last[k], "event %d: time goes back on its track", i)
		last[k] = *e.Ts
		// Pop the spans that ended before this one starts; what is left
		// open must contain it.
		st := open[k]
		for len(st) > 0 && *st[len(st)-1].Ts+*st[len(st)-1].Dur <= *e.Ts+1e-9 {
			st = st[:len(st)-1]
		}
		if len(st) > 0 {
			p := st[len(st)-1]
			require.LessOrEqual(t, *e.Ts+*e.Dur, *p.Ts+*p.Dur+1e-9, "event %d (%s) overlaps %s without nesting", i, e.Name, p.Name)
		}
		open[k] = append(st, e)
		spans[e.Cat]++
	}
	return spans
}

func TestTraceStructure(t *testing.T) {
	tr := &Trace{SampleSMs: 2, MinStall: 8}
	res := runKernel(t, "matmul_tiled", 64, Options{Trace: tr})
	var buf bytes.Buffer
	require.NoError(t, tr.WriteJSON(&buf))
	spans := checkTrace(t, buf.Bytes())
	assert.Equal(t, 16, spans["block"], "every block of the 4x4 grid")
	assert.Equal(t, 2*8, spans["warp"], "the 8 warps of the block on each of the 2 sampled SMs (one block per SM)")
	assert.Greater(t, spans["stall"], 50, "stall spans")
	assert.Contains(t, buf.String(), `"name":"barrier"`, "barrier waits")
	assert.Contains(t, buf.String(), `"name":"long_scoreboard"`)
	assert.Equal(t, 0, tr.TruncatedStalls)
	assert.NotZero(t, res.Cycles)
}

// A launch far larger than the budget keeps its file bounded: the stall
// spans stop at MaxEvents.
func TestTraceBounded(t *testing.T) {
	tr := &Trace{SampleSMs: 132, MinStall: 1, MaxEvents: 2000}
	runKernel(t, "matmul_naive", 128, Options{Trace: tr})
	var buf bytes.Buffer
	require.NoError(t, tr.WriteJSON(&buf))
	checkTrace(t, buf.Bytes())
	assert.Greater(t, tr.TruncatedStalls, 0)
	var f struct{ TraceEvents []traceEvent }
	require.NoError(t, json.Unmarshal(buf.Bytes(), &f))
	n := 0
	for _, e := range f.TraceEvents {
		if e.Cat == "stall" {
			n++
		}
	}
	assert.LessOrEqual(t, n, 2000)
}

// TestTraceTruncationWorkers: the stall spans a trace leaves out are
// counted per SM, so that two workers dropping spans at once count them
// all (a shared counter lost some: jacobi2d_big/G's truncated_stalls
// varied from run to run with --workers 2).
func TestTraceTruncationWorkers(t *testing.T) {
	count := func(workers int) int {
		tr := &Trace{MaxEvents: 500}
		runKernel(t, "matmul_tiled", 256, Options{Workers: workers, Trace: tr})
		return tr.TruncatedStalls
	}
	one := count(1)
	require.Positive(t, one, "the trace is cut")
	for range 3 {
		assert.Equal(t, one, count(2))
	}
}
