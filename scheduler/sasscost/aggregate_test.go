package sasscost

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/vm"
)

// aggregated counts the atomics of a kernel that Aggregates calls
// warp-aggregated.
func aggregated(k *vm.Kernel, debug bool) int {
	n := 0
	for _, f := range k.Funcs {
		v := f.Varying()
		read := ReadRegs(f)
		for pc := range f.Code {
			if Aggregates(f, pc, &v, read, debug) {
				n++
			}
		}
	}
	return n
}

// TestAggregatesAsPtxasDoes holds the rule to the machine code ptxas made
// of the corpus's atomics kernels (testdata/nvcc/sass/atomics.O3.sass):
// each aggregated atomic is one store or reduction guarded by the leader
// predicate that VOTEU.ANY and UFLO elect (@P0 REDG / @P1 ATOMS); the
// 64-bit ones, inc, dec, CAS and float atomics are not guarded.
func TestAggregatesAsPtxasDoes(t *testing.T) {
	src, err := os.ReadFile("../../testdata/nvcc/ptx/atomics.O3.ptx")
	require.NoError(t, err)
	m, err := vm.NewDevice().LoadModule("atomics.O3.ptx", src)
	require.NoError(t, err)
	sass, err := os.ReadFile("../../testdata/nvcc/sass/atomics.O3.sass")
	require.NoError(t, err)
	funcs := strings.Split(string(sass), "//--------------------- .text.")
	leader := regexp.MustCompile(`@P\d (REDG|ATOMS)\.`)
	for _, c := range []struct {
		kernel string
		want   int // leader-guarded atomics in its SASS
	}{
		{"_Z16atomic_contendedPiPjPyPxPKij", 14},
		{"_Z17atomic_shared_opsPjPKj", 7},
		{"_Z19atomic_ret_distinctPjS_PyS0_PfS1_PdS2_PKjj", 0},
		{"_Z18hist_global_atomicPjPKhj", 0},
		{"_Z18hist_shared_atomicPjPKhj", 0},
	} {
		var body string
		for _, f := range funcs {
			if strings.HasPrefix(f, c.kernel+" ") {
				body = f
			}
		}
		require.NotEmpty(t, body, c.kernel)
		require.Equal(t, c.want, len(leader.FindAllString(body, -1)), "%s: the SASS's leader-guarded atomics", c.kernel)
		k, err := m.Kernel(c.kernel)
		require.NoError(t, err)
		assert.Equal(t, c.want, aggregated(k, false), c.kernel)
		assert.Zero(t, aggregated(k, true), "%s: -G code aggregates nothing", c.kernel)
	}
	// atomic_float_exact's one uniform 32-bit integer atomic runs in
	// thread 0 alone; ptxas leaves it unguarded, which reaches memory
	// with the same one lane.
	k, err := m.Kernel("_Z18atomic_float_exactPfPdPKij")
	require.NoError(t, err)
	assert.Equal(t, 1, aggregated(k, false))
}

// An atomic is aggregated only when its address is uniform and its
// result unused.
func TestAggregatesNeedsAUniformAddress(t *testing.T) {
	k := kernelOf(t, `
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [p];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, %tid.x;
	atom.global.add.u32 %r2, [%rd2], %r1;
	mul.wide.u32 %rd3, %r1, 4;
	add.s64 %rd4, %rd2, %rd3;
	atom.global.add.u32 %r3, [%rd4], %r1;
	atom.global.add.u32 %r4, [%rd2+4], %r1;
	st.global.u32 [%rd2+8], %r4;
	atom.global.inc.u32 %r5, [%rd2+12], %r1;
	atom.global.add.u64 %rd5, [%rd2+16], %rd3;
	atom.global.add.f32 %r6, [%rd2+24], %r1;
	ret;`, false)
	f := k.Entry
	v := f.Varying()
	read := ReadRegs(f)
	var got []bool
	for pc := range f.Code {
		if f.Code[pc].Op == vm.OpAtom {
			got = append(got, Aggregates(f, pc, &v, read, false))
		}
	}
	// uniform; per-lane address; result stored; inc; 64-bit; float.
	assert.Equal(t, []bool{true, false, false, false, false, false}, got)
}

// popcIncs counts the atomics of kernel k that PopcInc says ptxas makes
// ATOMS.POPC.INC.
func popcIncs(k *vm.Kernel) int {
	n := 0
	for _, f := range k.Funcs {
		read := ReadRegs(f)
		for pc := range f.Code {
			if PopcInc(f, pc, read) {
				n++
			}
		}
	}
	return n
}

// sassFunctions splits a SASS listing into its functions' bodies by name:
// nvdisasm's ".text.NAME:" sections or cuobjdump's "Function : NAME".
func sassFunctions(t *testing.T, path string) map[string]string {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		require.NoError(t, err)
		raw, err = io.ReadAll(zr)
		require.NoError(t, err)
	}
	out := map[string]string{}
	head := regexp.MustCompile(`(?m)^\.text\.([A-Za-z0-9_]+):|Function : ([A-Za-z0-9_]+)`)
	idx := head.FindAllStringSubmatchIndex(string(raw), -1)
	for i, m := range idx {
		var name string
		if m[2] >= 0 {
			name = string(raw[m[2]:m[3]]) // nvdisasm
		} else {
			name = string(raw[m[4]:m[5]]) // cuobjdump
		}
		end := len(raw)
		if i+1 < len(idx) {
			end = idx[i+1][0]
		}
		out[name] += string(raw[m[1]:end])
	}
	return out
}

// TestPopcIncAsPtxasDoes holds PopcInc to the machine code: every kernel
// of these modules has as many shared adds PopcInc picks as its SASS has
// ATOMS.POPC.INC (histograms' adds of 1, the atomics probe's red of a
// register holding 1), and none where the SASS has ATOMS.ADD for an add
// of 2 or of a value per lane (casspin) or of 1 whose result is used.
func TestPopcIncAsPtxasDoes(t *testing.T) {
	popc := regexp.MustCompile(`ATOMS\.POPC\.INC`)
	for _, c := range []struct{ ptx, sass string }{
		{"../../testdata/nvcc/ptx/atomics.O3.ptx", "../../testdata/nvcc/sass/atomics.O3.sass"},
		{"../../testdata/perf/ptx/calib.O3.ptx", "../../testdata/perf/sass/calib.O3.sass"},
		{"../../testdata/apps/ptx/prims.O3.ptx", "../../testdata/apps/sass/prims.O3.sass.gz"},
		{"../../testdata/perf/micro/sched/atomics.ptx.gz", "../../testdata/perf/micro/sched/atomics.sass.gz"},
		{"../../testdata/perf/micro/sched/casspin.ptx.gz", "../../testdata/perf/micro/sched/casspin.sass.gz"},
	} {
		src, err := os.ReadFile(c.ptx)
		require.NoError(t, err)
		if strings.HasSuffix(c.ptx, ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(src))
			require.NoError(t, err)
			src, err = io.ReadAll(zr)
			require.NoError(t, err)
		}
		m, err := vm.NewDevice().LoadModule(c.ptx, src)
		require.NoError(t, err)
		seen := 0
		for name, body := range sassFunctions(t, c.sass) {
			k, err := m.Kernel(name)
			if err != nil {
				continue // a device function
			}
			want := len(popc.FindAllString(body, -1))
			seen += want
			assert.Equal(t, want, popcIncs(k), "%s: %s", c.sass, name)
		}
		t.Logf("%s: %d ATOMS.POPC.INC", c.sass, seen)
	}
}
