package timing_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/scheduler/gpu"
	"github.com/ptxvm/ptxvm/scheduler/timing"
	"github.com/ptxvm/ptxvm/vm"
	"github.com/ptxvm/ptxvm/vm/spec"
)

// BenchmarkTimingSampled times the application corpus's big Jacobi step
// (16,384 blocks of 256 threads: 15.5 waves of the H100) through the cycle
// loop sampled (SampleSkip, on a slice of 10 of the 132 SMs: the blocks
// past the detailed part do not run), on one host core. Beside the host time it reports the
// estimate (cycles), its error bound (error-%) and the share of the blocks
// simulated in detail (detailed-%), so that a change to the sampler's
// speed or to what it estimates shows when two commits are compared
// (.ci/benchcmp.sh).
func BenchmarkTimingSampled(b *testing.B) {
	sp, err := spec.Load(filepath.Join("..", "..", "testdata", "apps", "cases", "jacobi2d_big", "O3", "spec.json"))
	if err != nil {
		b.Fatal(err)
	}
	prof := gpu.MustLookup("h100")
	cache := spec.NewModuleCache()
	var res *scheduler.Result
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		p, err := sp.Prepare(vm.NewDevice(), cache)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		res, err = scheduler.RunTimed(context.Background(), p.Launch, prof, scheduler.Options{
			Workers: 1, Registers: sp.Registers, Sample: timing.Sample{Mode: timing.SampleSkip}})
		b.StopTimer()
		p.Launch.Release()
		p.Device.Mem.FreeAll()
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.StopTimer()
	t := res.Timing
	if t.Sampling == nil {
		b.Fatalf("a 15.5-wave launch was not sampled: %s", t.NotSampled)
	}
	b.ReportMetric(float64(t.Cycles), "cycles")
	b.ReportMetric(t.Sampling.ErrorPct(), "error-%")
	b.ReportMetric(100*float64(t.Sampling.Detailed)/float64(t.Sampling.Blocks), "detailed-%")
}
