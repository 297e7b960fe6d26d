package listing

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ptxvm/ptxvm/ptx/demangle"
)

// Resolve finds the kernel a person means among names (a module's
// entries, mangled as nvcc emits them). It accepts, in this order of
// preference, and the first rule that matches exactly one kernel wins:
//
//  1. the mangled name itself (_Z12matmul_tiledPfPKfS1_j);
//  2. the demangled signature (matmul_tiled(float*, float const*, float
//     const*, unsigned int)), spaces ignored;
//  3. the demangled name (matmul_tiled, ns::f<float>), or its last
//     components (f<float> for ns::f<float>);
//  4. a substring of the mangled or the demangled signature.
//
// A rule that matches several kernels is an error listing them (overloads,
// template instances); no match is an error listing every kernel.
func Resolve(names []string, want string) (string, error) {
	if want == "" {
		return "", fmt.Errorf("no kernel named")
	}
	type cand struct{ mangled, sig, name string }
	cs := make([]cand, len(names))
	for i, n := range names {
		cs[i] = cand{mangled: n, sig: demangle.Filter(n), name: demangle.Filter(n, demangle.NoParams)}
	}
	squash := func(s string) string { return strings.Join(strings.Fields(s), "") }
	rules := []func(c cand) bool{
		func(c cand) bool { return c.mangled == want },
		func(c cand) bool { return squash(c.sig) == squash(want) },
		func(c cand) bool { return c.name == want || strings.HasSuffix(c.name, "::"+want) },
		func(c cand) bool { return strings.Contains(c.mangled, want) || strings.Contains(c.sig, want) },
	}
	for _, rule := range rules {
		var hits []cand
		for _, c := range cs {
			if rule(c) {
				hits = append(hits, c)
			}
		}
		switch len(hits) {
		case 0:
			continue
		case 1:
			return hits[0].mangled, nil
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%q names %d kernels; give the signature or the mangled name:", want, len(hits))
		for _, h := range hits {
			fmt.Fprintf(&b, "\n  %s  (%s)", h.sig, h.mangled)
		}
		return "", &ResolveError{Msg: b.String()}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "no kernel matches %q; the module has:", want)
	sorted := append([]cand(nil), cs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].sig < sorted[j].sig })
	for _, c := range sorted {
		if c.sig != c.mangled {
			fmt.Fprintf(&b, "\n  %s  (%s)", c.sig, c.mangled)
		} else {
			fmt.Fprintf(&b, "\n  %s", c.mangled)
		}
	}
	if len(cs) == 0 {
		b.WriteString(" no kernels")
	}
	return "", &ResolveError{Msg: b.String()}
}

// ResolveError is a kernel name that matches no kernel or several.
type ResolveError struct{ Msg string }

func (e *ResolveError) Error() string { return e.Msg }
