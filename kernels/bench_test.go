package kernels

import (
	"context"
	"testing"
	"time"

	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/scheduler/cputime"
	"github.com/ptxvm/ptxvm/vm"
)

// BenchmarkTiledMatmul256 runs the bundled tiled matrix multiply (nvcc
// -O3 PTX) at 256×256 on one host core, with the memory hierarchy's
// counters (the default) and, in the same run, the plain Go multiply of
// kernels.MatmulGo, reporting the emulator's thread-instructions per second
// and how many times slower than native Go it is.
func BenchmarkTiledMatmul256(b *testing.B) {
	benchMatmul(b, "matmul_tiled", 256, false)
}

// BenchmarkNaiveMatmul256 is the same for the naive multiply.
func BenchmarkNaiveMatmul256(b *testing.B) {
	benchMatmul(b, "matmul_naive", 256, false)
}

// BenchmarkTiledMatmul256Bare is BenchmarkTiledMatmul256 without the memory
// hierarchy (scheduler.Options.NoCounters): the bare interpreter, what the
// counters' cost is measured against.
func BenchmarkTiledMatmul256Bare(b *testing.B) {
	benchMatmul(b, "matmul_tiled", 256, true)
}

// BenchmarkNaiveMatmul256Bare is the same for the naive multiply.
func BenchmarkNaiveMatmul256Bare(b *testing.B) {
	benchMatmul(b, "matmul_naive", 256, true)
}

// BenchmarkTiledMatmul1024Bare is BenchmarkTiledMatmul256Bare at
// 1024×1024, the size issue 27's target names, against MatmulGo's i-k-j
// loop (until 2026-11-28 an i-j-k loop, which reads b down a column and at
// this size missed the caches at nearly every step: 7–10× slower than
// i-k-j, which made the ratio look 2.1× where it is 15–22×;
// docs/performance.md). About 10 s per run.
func BenchmarkTiledMatmul1024Bare(b *testing.B) {
	benchMatmul(b, "matmul_tiled", 1024, true)
}

func benchMatmul(b *testing.B, name string, size int, bare bool) {
	e, err := Lookup(name)
	if err != nil {
		b.Fatal(err)
	}
	e = e.WithSize(size)
	n := e.Size
	// Native Go, same problem.
	x, y := randMatrix(newRand(1), n*n), randMatrix(newRand(2), n*n)
	z := make([]float32, n*n)
	goStart, goCPU := time.Now(), cputime.Process()
	reps := 0
	for time.Since(goStart) < 200*time.Millisecond {
		MatmulGo(z, x, y, n)
		reps++
	}
	goPer := time.Since(goStart) / time.Duration(reps)
	goCPUPer := (cputime.Process() - goCPU) / time.Duration(reps)

	b.ResetTimer()
	threadInst, emu, emuCPU := runLaunches(b, e, bare)
	per := emu / time.Duration(b.N)
	b.ReportMetric(float64(threadInst)/emu.Seconds(), "thread-inst/s")
	b.ReportMetric(float64(per)/float64(goPer), "x-native-go")
	b.ReportMetric(float64(goPer.Nanoseconds()), "go-ns/op")
	// The same in CPU time (cputime.Process), where the host's cores are shared.
	if goCPUPer > 0 {
		cpuPer := emuCPU / time.Duration(b.N)
		b.ReportMetric(float64(cpuPer.Nanoseconds()), "cpu-ns/op")
		b.ReportMetric(float64(cpuPer)/float64(goCPUPer), "x-native-go-cpu")
	}
}

// BenchmarkWmmaMatmul256Bare is BenchmarkTiledMatmul256Bare for the
// tensor-core multiply (the f16 wmma kernel; the native baseline is still
// the f32 multiply): each 16×16×16 wmma.mma computes its 4,096 products
// and sums bit for bit as the tensor cores do.
func BenchmarkWmmaMatmul256Bare(b *testing.B) {
	benchMatmul(b, "matmul_wmma", 256, true)
}

// BenchmarkTranspose4096Bare runs the bundled naive and shared-memory
// transposes at 4096×4096 bare on one core: kernels of many small blocks
// (16,384 of 256 threads) with one load and one store per thread, where a
// block's setup and the memory instructions weigh more than arithmetic.
func BenchmarkTranspose4096Bare(b *testing.B) {
	for _, name := range []string{"transpose_naive", "transpose_shared"} {
		b.Run(name, func(b *testing.B) {
			e, err := Lookup(name)
			if err != nil {
				b.Fatal(err)
			}
			threadInst, emu, _ := runLaunches(b, e.WithSize(4096), true)
			b.ReportMetric(float64(threadInst)/emu.Seconds(), "thread-inst/s")
		})
	}
}

// runLaunches prepares and runs example e b.N times on one worker (bare:
// without the memory hierarchy's counters), the preparation outside the
// timer, and returns the thread-instructions and the time of the launches,
// wall and CPU (cputime.Process).
func runLaunches(b *testing.B, e *Example, bare bool) (threadInst uint64, emu, emuCPU time.Duration) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s, err := e.Prepare(vm.NewDevice(), 1)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start, startCPU := time.Now(), cputime.Process()
		res, err := scheduler.RunFunctional(context.Background(), s.Launch, scheduler.H100, scheduler.Options{Workers: 1, NoCounters: bare})
		emu += time.Since(start)
		emuCPU += cputime.Process() - startCPU
		if err != nil {
			b.Fatal(err)
		}
		threadInst += res.Stats.ThreadInst
	}
	b.StopTimer()
	return threadInst, emu, emuCPU
}
