package compare_test

import (
	"encoding/binary"
	"encoding/json"
	"math"
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
