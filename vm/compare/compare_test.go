package compare_test

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/vm/compare"
)

func f32s(v ...float32) []byte {
	b := make([]byte, 0, 4*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

func TestCompareBuffer(t *testing.T) {
	one := float32(1)
	next := math.Nextafter32(one, 2)
	nan1 := math.Float32frombits(0x7fc00001)
	nan2 := math.Float32frombits(0x7fffffff)
	cases := []struct {
		name      string
		typ       string
		got, want []byte
		tol       compare.Tolerance
		differ    int
		maxULP    uint64
		sizeErr   bool
	}{
		{"identical", "f32", f32s(1, 2, 3), f32s(1, 2, 3), compare.Tolerance{}, 0, 0, false},
		{"one ulp, exact", "f32", f32s(one, 2), f32s(next, 2), compare.Tolerance{}, 1, 1, false},
		{"one ulp, ulp 1", "f32", f32s(one, 2), f32s(next, 2), compare.Tolerance{ULP: 1}, 0, 1, false},
		{"NaN payloads, exact", "f32", f32s(nan1), f32s(nan2), compare.Tolerance{}, 1, 0, false},
		{"NaN payloads, any_nan", "f32", f32s(nan1), f32s(nan2), compare.Tolerance{AnyNaN: true}, 0, 0, false},
		// ±0 differ bit for bit, but are 0 ulp apart, so any ulp tolerance accepts them.
		{"-0 is not +0", "f32", f32s(float32(math.Copysign(0, -1))), f32s(0), compare.Tolerance{}, 1, 0, false},
		{"-0 for +0, ulp 1", "f32", f32s(float32(math.Copysign(0, -1))), f32s(0), compare.Tolerance{ULP: 1}, 0, 0, false},
		{"integers, abs 1", "s32", []byte{5, 0, 0, 0}, []byte{4, 0, 0, 0}, compare.Tolerance{Abs: 1}, 0, 0, false},
		{"integers, exact", "s32", []byte{5, 0, 0, 0}, []byte{4, 0, 0, 0}, compare.Tolerance{}, 1, 0, false},
		{"sizes", "f32", f32s(1), f32s(1, 2), compare.Tolerance{}, 0, 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := compare.CompareBuffer("out", c.typ, c.got, c.want, c.tol)
			require.Equal(t, c.differ, r.Differ)
			require.Equal(t, c.maxULP, r.MaxULP)
			require.Equal(t, c.sizeErr, r.SizeErr != "")
			require.Equal(t, c.differ == 0 && !c.sizeErr, r.OK())
		})
	}
}

// TestComparisonJSON: ptxrun test --json prints comparisons with
// snake_case keys, like the rest of its output.
func TestComparisonJSON(t *testing.T) {
	r := compare.CompareBuffer("out", "f32", f32s(1), f32s(math.Nextafter32(1, 2)), compare.Tolerance{})
	b, err := json.Marshal(r)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	for _, k := range []string{"name", "type", "elements", "differ", "max_ulp", "max_abs", "first"} {
		require.Contains(t, m, k)
	}
	first := m["first"].([]any)[0].(map[string]any)
	for _, k := range []string{"index", "got", "want", "ulp"} {
		require.Contains(t, first, k)
	}
}

// TestToleranceAccounting: a comparison that passes through its tolerance
// says how many elements differ bit for bit and which criterion allowed
// each.
func TestToleranceAccounting(t *testing.T) {
	nan1 := math.Float32frombits(0x7fc00001)
	nan2 := math.Float32frombits(0x7fffffff)
	one := float32(1)
	next := math.Nextafter32(one, 2)
	cases := []struct {
		name      string
		typ       string
		got, want []byte
		tol       compare.Tolerance
		tolerated int
		allowed   map[string]int
		explain   string
	}{
		{"exact", "f32", f32s(1, 2), f32s(1, 2), compare.Tolerance{ULP: 4}, 0, nil, ""},
		{"nan payloads", "f32", f32s(nan1, nan1, 3), f32s(nan2, nan2, 3), compare.Tolerance{AnyNaN: true}, 2,
			map[string]int{"nan": 2}, "2 of 3 elements differ bit for bit, allowed by the tolerance: 2 NaN where the GPU gave another NaN"},
		{"ulp and nan", "f32", f32s(one, nan1), f32s(next, nan2), compare.Tolerance{ULP: 2, AnyNaN: true}, 2,
			map[string]int{"nan": 1, "ulp": 1}, "2 of 2 elements differ bit for bit, allowed by the tolerance: 1 NaN where the GPU gave another NaN, 1 within 2 ulp (largest 1)"},
		{"abs", "f32", f32s(1.5), f32s(1), compare.Tolerance{Abs: 0.5}, 1, map[string]int{"abs": 1},
			"1 of 1 elements differ bit for bit, allowed by the tolerance: 1 within abs 0.5 (largest difference 0.5)"},
		{"rel", "f32", f32s(110), f32s(100), compare.Tolerance{Rel: 0.2}, 1, map[string]int{"rel": 1}, "1 of 1 elements differ bit for bit, allowed by the tolerance: 1 within rel 0.2"},
		{"int abs", "s32", []byte{5, 0, 0, 0, 1, 0, 0, 0}, []byte{4, 0, 0, 0, 1, 0, 0, 0}, compare.Tolerance{Abs: 1}, 1, map[string]int{"abs": 1}, ""},
		{"outside", "f32", f32s(2), f32s(1), compare.Tolerance{ULP: 1}, 0, nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := compare.CompareBuffer("out", c.typ, c.got, c.want, c.tol)
			require.Equal(t, c.tolerated, r.Tolerated)
			require.Equal(t, c.allowed, r.Allowed)
			if c.explain != "" {
				require.Equal(t, c.explain, r.Explain(c.tol))
			}
			if c.tolerated == 0 {
				require.Empty(t, r.Explain(c.tol))
			}
		})
	}
}

func TestCompareDigest(t *testing.T) {
	const sum = "c5130f74211b36da69759358741cbc0c0e9bc751f459a5090b1f91359acda0cb"
	other := "0" + sum[1:]
	for _, c := range []struct {
		name, recorded string
		got            string
		length         uint64
		ok             bool
		sizeErr        string
	}{
		{"match", sum + " 400012\n", sum, 400012, true, ""},
		{"match without count", sum + "\n", sum, 400012, true, ""},
		{"upper case", strings.ToUpper(sum), sum, 400012, true, ""},
		{"digest differs", sum + " 400012", other, 400012, false, ""},
		{"length differs", sum + " 400016", sum, 400012, false, "got 400012 bytes, want 400016"},
		{"not a digest", "abc 12", sum, 12, false, "not a SHA-256 digest"},
		{"bad count", sum + " twelve", sum, 12, false, `byte count "twelve"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := compare.CompareDigest("y", "f32", c.got, c.length, c.recorded)
			require.Equal(t, c.ok, r.OK())
			if c.sizeErr != "" {
				require.Contains(t, r.SizeErr, c.sizeErr)
			} else {
				require.NotNil(t, r.Digest)
				require.Equal(t, 100003, r.Elements)
			}
		})
	}
}
