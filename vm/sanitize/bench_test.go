package sanitize_test

import (
	"context"
	"testing"

	"github.com/ptxvm/ptxvm/kernels"
	"github.com/ptxvm/ptxvm/scheduler"
	"github.com/ptxvm/ptxvm/vm"
	"github.com/ptxvm/ptxvm/vm/sanitize"
)

// BenchmarkSanitizeMatmul256 runs the bundled tiled matmul at 256 in
// functional mode (none: scheduler.RunFunctional on one worker, as ptxrun
// run) and under each tool, for the slowdowns docs/sanitize.md gives:
//
//	go test ./vm/sanitize -run '^$' -bench SanitizeMatmul256 -count 5
func BenchmarkSanitizeMatmul256(b *testing.B) {
	e, err := kernels.Lookup("matmul_tiled")
	if err != nil {
		b.Fatal(err)
	}
	e = e.WithSize(256)
	for _, tc := range []struct {
		name  string
		tools sanitize.Tool
	}{
		{"none", 0},
		{"memcheck", sanitize.Memcheck},
		{"racecheck", sanitize.Racecheck},
		{"synccheck", sanitize.Synccheck},
		{"initcheck", sanitize.Initcheck},
		{"all", sanitize.All},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				dev := vm.NewDevice()
				s, err := e.Prepare(dev, 1)
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if tc.tools == 0 {
					_, err = scheduler.RunFunctional(context.Background(), s.Launch, scheduler.H100, scheduler.Options{Workers: 1})
				} else {
					var rep *sanitize.Report
					rep, err = sanitize.Run(context.Background(), s.Launch, sanitize.Options{Tools: tc.tools, Mem: dev.Mem})
					if err == nil && rep.Errors != 0 {
						b.Fatalf("%s: %d errors", tc.name, rep.Errors)
					}
				}
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				dev.Mem.FreeAll()
				b.StartTimer()
			}
		})
	}
}
