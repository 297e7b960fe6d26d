package sfu

import (
	"testing"
	"time"
)

// BenchmarkApprox32 measures one lookup per instruction (tables already
// decoded); BenchmarkFirstUse and TestLoadTime measure the first use of a
// table (its decoding).
func BenchmarkApprox32(b *testing.B) {
	if s := cur(); s.tables == nil {
		b.Skip(noData)
	}
	for _, instr := range []string{"rcp.approx.ftz.f32", "rcp.approx.f32", "rsqrt.approx.ftz.f32", "sqrt.approx.ftz.f32",
		"ex2.approx.ftz.f32", "lg2.approx.ftz.f32", "sin.approx.ftz.f32", "cos.approx.f32", "tanh.approx.f32"} {
		b.Run(instr, func(b *testing.B) {
			Approx32(instr, 0x3F9E0419)
			x := uint32(0x3F9E0419)
			var sink uint32
			for i := 0; i < b.N; i++ {
				y, _ := Approx32(instr, x)
				sink += y
				x = x*1664525 + 1013904223
				x = x&0x807FFFFF | 0x3F000000 // |x| in [0.5, 2)
			}
			_ = sink
		})
	}
}

func TestLoadTime(t *testing.T) {
	if !testing.Verbose() {
		t.Skip("diagnostics: run with -v")
	}
	s := needData(t, false)
	for _, name := range []string{"rcp_m", "rsqrt_m", "lg2_m", "sin_q0", "tanh_e120", "ex2_pos", "ex2_neg"} {
		s2 := newSource(s.tables, nil, true)
		t0 := time.Now()
		if _, err := s2.tableErr(name); err != nil {
			t.Logf("%s: %v", name, err)
			continue
		}
		t.Logf("first use of %s: %v", name, time.Since(t0))
	}
}

// BenchmarkFirstUse decodes a table as its first use in a process does,
// in a fresh source each time (-benchtime 1x under cachegrind gives a
// deterministic count; docs/performance.md, 2026-11-29).
func BenchmarkFirstUse(b *testing.B) {
	s := cur()
	if s.tables == nil {
		b.Skip(noData)
	}
	for _, name := range []string{"rcp_m", "rsqrt_m", "sqrt_m", "lg2_m", "sin_q0", "tanh_e120", "tanh_e126", "ex2_pos", "ex2_neg", "rcp64h_m"} {
		b.Run(name, func(b *testing.B) {
			for range b.N {
				if _, err := newSource(s.tables, nil, true).tableErr(name); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
