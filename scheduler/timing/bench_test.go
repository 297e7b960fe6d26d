package timing

import (
	"context"
	"testing"

	"github.com/ptxvm/ptxvm/kernels"
	"github.com/ptxvm/ptxvm/scheduler/gpu"
	"github.com/ptxvm/ptxvm/vm"
)

// BenchmarkTimingTiledMatmul runs the bundled tiled matrix multiply (nvcc
// -O3 PTX, 256×256) through the cycle loop on one host core and reports
// thread-instructions per second.
func BenchmarkTimingTiledMatmul(b *testing.B) { benchTiming(b, "matmul_tiled", 256) }

// BenchmarkTimingNaiveMatmul is the same for the naive multiply.
func BenchmarkTimingNaiveMatmul(b *testing.B) { benchTiming(b, "matmul_naive", 256) }

func benchTiming(b *testing.B, name string, n int) {
	e, err := kernels.Lookup(name)
	if err != nil {
		b.Fatal(err)
	}
	e = e.WithSize(n)
	prof := gpu.MustLookup("h100")
	var thr uint64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s, err := e.Prepare(vm.NewDevice(), 1)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		res, err := Run(context.Background(), s.Launch, prof, Options{BlocksPerSM: 8, Workers: 1})
		if err != nil {
			b.Fatal(err)
		}
		thr += res.Stats.ThreadInst
		b.StopTimer()
		if err := s.Check(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(thr)/b.Elapsed().Seconds(), "thread-inst/s")
}
