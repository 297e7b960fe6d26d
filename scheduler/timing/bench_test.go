package timing

import (
	"context"
	"testing"
	"time"

	"github.com/ptxvm/ptxvm/kernels"
	"github.com/ptxvm/ptxvm/scheduler/cputime"
	"github.com/ptxvm/ptxvm/scheduler/gpu"
	"github.com/ptxvm/ptxvm/vm"
)

// BenchmarkTimingTiledMatmul runs the bundled tiled matrix multiply (nvcc
// -O3 PTX, 256×256) through the cycle loop on one host core and reports
// thread-instructions per second.
func BenchmarkTimingTiledMatmul(b *testing.B) { benchTiming(b, "matmul_tiled", 256, 1) }

// BenchmarkTimingNaiveMatmul is the same for the naive multiply.
func BenchmarkTimingNaiveMatmul(b *testing.B) { benchTiming(b, "matmul_naive", 256, 1) }

// BenchmarkTimingTiledMatmul512 is BenchmarkTimingTiledMatmul at 512×512,
// the size issue 27's target names (1,024 blocks: eight per SM, 64 warps,
// where 256×256 leaves two blocks per SM and a smaller working set). About
// 6 s per run.
func BenchmarkTimingTiledMatmul512(b *testing.B) { benchTiming(b, "matmul_tiled", 512, 1) }

// BenchmarkTimingTiledMatmul512Workers2 is the same on two host goroutines
// (Options.Workers: SMs advance in parallel within each window; results do
// not depend on it, cmd/ptxrun's TestTimingWorkersIdentical). Run with
// -cpu 2 or more.
func BenchmarkTimingTiledMatmul512Workers2(b *testing.B) { benchTiming(b, "matmul_tiled", 512, 2) }

func benchTiming(b *testing.B, name string, n, workers int) {
	e, err := kernels.Lookup(name)
	if err != nil {
		b.Fatal(err)
	}
	e = e.WithSize(n)
	prof := gpu.MustLookup("h100")
	var thr uint64
	var cpu time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s, err := e.Prepare(vm.NewDevice(), 1)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		c0 := cputime.Process()
		res, err := Run(context.Background(), s.Launch, prof, Options{BlocksPerSM: 8, Workers: workers})
		cpu += cputime.Process() - c0
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
	// The launches' CPU time, all threads (cputime.Process): with several workers,
	// against one worker's, what running the SMs in parallel costs in
	// total (its excess over one worker's is host work the parallel run
	// adds, or cores running slower side by side).
	if cpu > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkTimingSharedFloatAtomics runs a shared-memory histogram of
// float bins (red.shared.add.f32, a compare-and-store loop in the model:
// casloop.go) over 1,024 bins per block, 8 blocks per SM, through the
// cycle loop on one host core: every word of every block is booked, so
// the bookings' lookup must not walk them all.
func BenchmarkTimingSharedFloatAtomics(b *testing.B) {
	src := outKernel(`	mov.u32 %r1, %tid.x;
	and.b32 %r2, %r1, 1023;
	shl.b32 %r3, %r2, 2;
	mov.u32 %r4, bins;
	add.u32 %r5, %r4, %r3;
	mov.f32 %f1, 0f3F800000;
	mov.u32 %r6, 0;
$L_loop:
	red.shared.add.f32 [%r5], %f1;
	add.u32 %r6, %r6, 1;
	setp.lt.u32 %p1, %r6, 16;
	@%p1 bra $L_loop;
	bar.sync 0;
	ld.shared.f32 %f2, [%r5];
	mul.wide.u32 %rd3, %r1, 4;
	add.s64 %rd4, %rd2, %rd3;
	st.global.f32 [%rd4], %f2;
	ret;
`, ".reg .f32 %f<4>;", ".shared .align 4 .b8 bins[4096];")
	prof := gpu.MustLookup("h100")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		l, _, _ := ptxLaunch(b, src, 132*8, 1024, 4*1024)
		b.StartTimer()
		if _, err := Run(context.Background(), l, prof, Options{BlocksPerSM: 2, Workers: 1}); err != nil {
			b.Fatal(err)
		}
	}
}
