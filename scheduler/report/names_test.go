package report

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

// Reports and comparisons print kernels as run does (demangled, then the
// mangled name), and a comparison labels each side with what was run.
func TestNamesAsRunPrintsThem(t *testing.T) {
	const k = "_Z6vecaddPfPKfS1_i"
	for _, tc := range []struct {
		name string
		r    *Report
		want string
	}{
		{"mangled", &Report{Kernel: k}, "vecadd(float*, float const*, float const*, int)  (" + k + ")"},
		{"plain", &Report{Kernel: "store"}, "store"},
		{"from a spec", &Report{Kernel: k, From: "runs/a.json"}, "runs/a.json: vecadd(float*, float const*, float const*, int)  (" + k + ")"},
	} {
		require.Equal(t, tc.want, sideTitle(tc.r), tc.name)
	}

	a := &Report{Kernel: k, From: "O3/spec.json", Metrics: map[string]float64{"x.sum": 1}}
	b := &Report{Kernel: k, From: "G/spec.json", Metrics: map[string]float64{"x.sum": 2}}
	var out bytes.Buffer
	require.NoError(t, Compare(a, b).WriteText(&out, false))
	require.Regexp(t, `A +O3/spec.json: vecadd\(float\*, float const\*, float const\*, int\)  \(_Z6vecaddPfPKfS1_i\) +grid`, out.String())
	require.Regexp(t, `B +G/spec.json: vecadd\(`, out.String())

	out.Reset()
	require.NoError(t, a.WriteText(&out))
	require.Regexp(t, `kernel +vecadd\(float\*, float const\*, float const\*, int\)  \(_Z6vecaddPfPKfS1_i\)\n`, out.String())
}
