package sfu

import (
	"fmt"
	"math"
	"sort"
	"testing"
)

// TestHypotheses prints, for the places where the models had to guess,
// how well each candidate explains the data (run with -v). It never fails:
// TestValidation does; this says which alternative to switch to when it
// does.
func TestHypotheses(t *testing.T) {
	if !testing.Verbose() {
		t.Skip("diagnostics: run with -v")
	}
	s := needData(t, false)
	rate := func(n, of int) string {
		if of == 0 {
			return "n/a"
		}
		return fmt.Sprintf("%d/%d (%.4f%%)", n, of, 100*float64(n)/float64(of))
	}
	tab := func(name string) *table {
		tb, err := s.tableErr(name)
		if err != nil {
			t.Logf("%s: %v", name, err)
		}
		return tb
	}
	val := func(name string) (in, out []uint64, ok bool) {
		d := s.dataset(name)
		if d == nil {
			return nil, nil, false
		}
		in, out, err := s.decodeAll(d)
		if err != nil {
			t.Logf("%s: %v", name, err)
			return nil, nil, false
		}
		return in, out, true
	}

	// exact points
	for _, c := range []struct {
		tab  string
		i    int
		want uint32
		what string
	}{
		{"rcp_m", 0, one32, "rcp(1) = 1"}, {"rsqrt_m", 0, one32, "rsqrt(1) = 1"},
		{"sqrt_m", 0, one32, "sqrt(1) = 1"}, {"ex2_pos", 0, one32, "ex2(0) = 1"},
		{"lg2_m", 1 << 23, 0, "lg2(1) = 0"}, {"lg2_m", 0, 0xBF800000, "lg2(0.5) = -1"},
		{"sin_q0", 0, 0, "sin(0) = 0"}, {"sin_q0", mask23, one32, "sin(2π(1/4 - 2^-25)) = 1 (so cos(0) = 1 under the ~f mirror)"},
	} {
		if tb := tab(c.tab); tb != nil {
			got := tb.at(c.i)
			t.Logf("exact: %-60s %s[%d] = %08x (%.9g) %s", c.what, c.tab, c.i, got, f32(got), map[bool]string{true: "yes", false: "NO"}[got == c.want])
		}
	}

	// ex2: how negative operands use the table
	if tp, tn := tab("ex2_pos"), tab("ex2_neg"); tp != nil && tn != nil {
		var a, b int
		for F := 1; F < 1<<23; F++ {
			v := tn.at(F)
			if v == rescale(0, tp.at(mask23-F), -1) {
				a++
			}
			if v == rescale(0, tp.at(1<<23-F), -1) {
				b++
			}
		}
		t.Logf("ex2(-F 2^-23) = ex2_pos[~F]/2 (ones' complement, envytools): %s; = ex2_pos[2^23-F]/2 (exact negation): %s "+
			"(the model reads ex2_neg directly and needs neither)", rate(a, 1<<23-1), rate(b, 1<<23-1))
	}

	// ex2: operand quantisation
	if tp, tn := tab("ex2_pos"), tab("ex2_neg"); tp != nil && tn != nil {
		variant := func(x uint32, mode string) uint32 {
			s, e, m := fields(x)
			if e == 0 || e == 255 || e >= 134 {
				y, _ := MufuEx2(x)
				return y
			}
			v := math.Ldexp(float64(m|1<<23), int(e)-127) // |x| 2^23, exact
			var J uint64
			switch mode {
			case "trunc":
				J = uint64(math.Trunc(v))
			case "round":
				J = uint64(math.RoundToEven(v))
			case "floor":
				if s != 0 {
					J = uint64(math.Ceil(v))
				} else {
					J = uint64(math.Floor(v))
				}
			}
			i, F := int(J>>23), int(J&mask23)
			if s != 0 {
				return rescale(0, tn.at(F), -i)
			}
			return rescale(0, tp.at(F), i)
		}
		for _, name := range []string{"ex2_probe", "v_ex2_approx_ftz_f32"} {
			in, out, ok := val(name)
			if !ok {
				continue
			}
			line := name + ": operand to 23 fraction bits by"
			for _, mode := range []string{"trunc", "round", "floor"} {
				n := 0
				for i, x := range in {
					if uint64(variant(uint32(x), mode)) == out[i] {
						n++
					}
				}
				line += fmt.Sprintf(" %s %s;", mode, rate(n, len(in)))
			}
			t.Logf("%s (model: trunc)", line)
		}
	}

	// lg2: truncation vs rounding of e + lg2(m)
	if tl := tab("lg2_m"); tl != nil {
		if in, out, ok := val("v_lg2_approx_ftz_f32"); ok {
			var nz, nr, of int
			for i, x := range in {
				s, e, m := fields(uint32(x))
				u := int(e) - 127
				if s != 0 || e == 0 || e == 255 || u == 0 || u == -1 {
					continue
				}
				of++
				if y, _ := MufuLg2(uint32(x)); uint64(y) == out[i] {
					nz++
				}
				var v float64
				if u > 0 {
					v = float64(u) + f32(tl.at(1<<23|int(m)))
				} else {
					v = float64(u) + 1 - math.Abs(f32(tl.at(int(m))))
				}
				if uint64(math.Float32bits(float32(v))) == out[i] {
					nr++
				}
			}
			t.Logf("lg2(m 2^e), e not 0/-1: truncated fixed-point sum (model) %s; rounded to nearest (approx.) %s", rate(nz, of), rate(nr, of))
		}
	}

	// sin/cos: mirror and quantisation
	if tq := tab("sin_q0"); tq != nil {
		variant := func(x uint32, ftz, cos bool, mirror, quant string) uint32 {
			tt := mulRZ(x, c2PiInv, ftz)
			s, e, m := fields(tt)
			if e == 0 || e == 255 {
				return mufuSinCos(tt, cos, tq)
			}
			v := math.Ldexp(float64(m|1<<23), int(e)-125) // |t| 2^25
			if quant == "round" {
				v = math.RoundToEven(v)
			}
			J := uint64(math.Mod(math.Trunc(v), 1<<25))
			q, f := uint32(J>>23), uint32(J&mask23)
			var sign uint32
			if cos {
				q = (q + 1) & 3
				sign = q >> 1 << 31
			} else {
				sign = s ^ q>>1<<31
			}
			if q&1 != 0 {
				if mirror == "~f" {
					f = ^f & mask23
				} else {
					f = (1<<23 - f) & mask23
				}
			}
			return tq.at(int(f))&^sign32 | sign
		}
		for _, name := range []string{"sin_probe", "cos_probe", "sin_rev", "cos_rev", "v_sin_approx_ftz_f32", "v_cos_approx_ftz_f32"} {
			d := s.dataset(name)
			if d == nil {
				continue
			}
			in, out, ok := val(name)
			if !ok {
				continue
			}
			cos := d.Instr[:3] == "cos"
			line := name + ":"
			for _, mv := range [][2]string{{"~f", "trunc"}, {"2^23-f", "trunc"}, {"~f", "round"}, {"2^23-f", "round"}} {
				n := 0
				for i, x := range in {
					if uint64(variant(uint32(x), true, cos, mv[0], mv[1])) == out[i] {
						n++
					}
				}
				line += fmt.Sprintf(" mirror %s, %s: %s;", mv[0], mv[1], rate(n, len(in)))
			}
			t.Logf("%s (model: mirror ~f, trunc)", line)
		}
	}

	// tanh: run structure of each binade (operand quantisation)
	for e := 100; e < 140; e++ {
		d := s.dataset(fmt.Sprintf("tanh_e%d", e))
		if d == nil {
			continue
		}
		tb := tab(d.Name)
		if tb == nil {
			continue
		}
		if tb.r == nil {
			t.Logf("tanh_e%d: no runs; predictor %s", e, d.Predictor.Fn)
			continue
		}
		lens := make([]int, len(tb.r.starts))
		for i := range lens {
			end := tb.r.n
			if i+1 < len(lens) {
				end = int(tb.r.starts[i+1])
			}
			lens[i] = end - int(tb.r.starts[i])
		}
		sort.Ints(lens)
		t.Logf("tanh_e%d: %d runs, lengths min %d median %d max %d (runs of 2^k: the operand keeps 23-k mantissa bits)",
			e, len(lens), lens[0], lens[len(lens)/2], lens[len(lens)-1])
	}
	if in, out, ok := val("v_tanh_approx_f32"); ok {
		idMax, oneMin := 0.0, math.Inf(1)
		for i, x := range in {
			v := math.Abs(f32(uint32(x)))
			if out[i] == x && v > idMax && v < 1 {
				idMax = v
			}
			if uint32(out[i])&^sign32 == one32 && v < oneMin {
				oneMin = v
			}
		}
		t.Logf("tanh validation: largest |x| with tanh(x) = x: %g; smallest |x| with |tanh(x)| = 1: %g", idMax, oneMin)
	}

	// 64H against the f32 tables
	for _, c := range [][2]string{{"rcp64h_m", "rcp_m"}, {"rsqrt64h_m", "rsqrt_m"}} {
		th, tf := tab(c[0]), tab(c[1])
		if th == nil || tf == nil {
			continue
		}
		n := 1 << 20
		if c[0] == "rsqrt64h_m" {
			n = 1 << 21
		}
		var nt, nr int
		for i := 0; i < n; i++ {
			p, m := i>>20, i&(1<<20-1)
			v := tf.at(p<<23 | m<<3) // the f32 result for the same operand
			h := th.at(i)
			e64 := int(v>>23&0xFF) - 127 + 1023
			trunc := uint32(e64)<<20 | v&mask23>>3
			if h == trunc {
				nt++
			}
			r := uint64(e64)<<20 | uint64(v&mask23)>>3
			if v&4 != 0 && (v&3 != 0 || v&8 != 0) {
				r++
			}
			if uint64(h) == r {
				nr++
			}
		}
		t.Logf("%s vs %s at the same operand: f32 result truncated to 20 bits %s; rounded %s", c[0], c[1], rate(nt, n), rate(nr, n))
	}
}
