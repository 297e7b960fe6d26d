package ptx

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// maxFuzzInput caps the size of fuzz inputs: large inputs only slow the
// fuzzer down without reaching new code.
const maxFuzzInput = 64 << 10

// FuzzParse checks that no input makes the parser panic or hang, that
// errors are well formed, and that parse -> print -> parse gives the same
// tree, eagerly and lazily.
func FuzzParse(f *testing.F) {
	for _, file := range testdataFiles(f) {
		f.Add(readFile(f, file))
	}
	for _, s := range []string{
		kernel("\tld.global.nc.v4.f32 {%f1, _}, [%rd1+-16];\n\t@!%p1 bra $L1;\n$L1:\n\tret;"),
		kernel("\t{\n\t.param .b32 p;\n\tcall.uni (r), f, (p);\n\t}"),
		kernel("\t$L_brx_0: .branchtargets $L1, $L2;\n\tprototype_0 : .callprototype ()_ (.param .b64 _);"),
		kernel("\tmov.b64 %rd1, 0xFFFFFFFFFFFFFFFF;\n\tmov.f32 %f1, -0f3F800000;\n\tmov.f64 %fd1, 1.5e-3;"),
		header + ".global .align 8 .u64 p[3] = {generic(a), a+8, {1, -2}};\n.extern .shared .align 16 .b8 d[];\n",
		header + ".section .debug_str { $L__info_string0: .b8 95,0 }\n.file 1 \"a.cu\", 1, 2\n",
		header + ".visible .entry k(.param .u64 .ptr .global .align 4 p, .param .align 8 .b8 q[16])\n.maxntid 1, 1, 1\n{\n}\n",
		kernel("\tmov.u32 %r1, 0x;\n\t{\n\tadd"),
		kernel("\tvmad.s32.s32.s32.sat.shr7 %r1, -%r2.b0, -%r3.h1, -%r4;\n\tcall (%r1, %r2), f, (%r3, -7);\n\tadd.u32 %v.w, %v.a, WARP_SZ;"),
		header + ".func (.reg .b32 a, .reg .f64 b) f(.param .v4 .b32 v, .reg .pred p)\n{\n\tret;\n}\n",
		kernel("\tst.global.u64 [%rd1], %rd2 + 1;\n\tmov.u32 %r1, %r2+-1;\n\tst.v2.u32 [%rd1], {%r1 + 1, %r2};\n\tadd.u32 %r1, %r2 - 3, %r3;"),
		kernel("\tmov.v4.u16 %q, {%h1, %h2, _, 7};\n\tmov.b64 %rd1, %v;\n\tld.global.v8.f32 {%f1, _, %f3, %f4, %f5, %f6, %f7, %f8}, [%rd1];"),
		"{{{{{{{{",
		".entry k() { .loc 1 2 3, function_name .debug_str+16, inlined_at 1 2 3\n}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) { checkParse(t, src) })
}

// checkParse is FuzzParse's check of one input.
func checkParse(t testing.TB, src []byte) {
	{
		if len(src) > maxFuzzInput {
			return
		}
		m, err := Parse("fuzz.ptx", src)
		require.NotNil(t, m)
		if err != nil {
			var list ErrorList
			require.True(t, errors.As(err, &list))
			require.NotEmpty(t, list)
			require.LessOrEqual(t, len(list), maxErrors)
			for _, e := range list {
				require.GreaterOrEqual(t, e.Pos.Line, 1, e.Error())
				require.GreaterOrEqual(t, e.Pos.Column, 1, e.Error())
				require.NotEmpty(t, e.Msg)
			}
			var b bytes.Buffer
			require.NoError(t, Print(&b, m)) // a partial tree prints too
			return
		}
		var b bytes.Buffer
		require.NoError(t, Print(&b, m))
		m2, err := Parse("fuzz.ptx", b.Bytes())
		if err != nil {
			require.NoError(t, err, "printed:\n%s", b.String())
		}
		if !sameTree(m, m2) {
			require.Equal(t, dump(t, m), dump(t, m2), "printed:\n%s", b.String())
		}

		lazy, err := ParseLazy("fuzz.ptx", src)
		require.NoError(t, err)
		for _, f := range lazy.Funcs {
			require.NoError(t, lazy.ParseBody(f))
		}
		if !sameTree(m, lazy) {
			require.Equal(t, dump(t, m), dump(t, lazy))
		}
		for i, f := range lazy.Funcs {
			require.Equal(t, m.Funcs[i].Body, f.Body, "positions included")
		}
	}
}

// BenchmarkFuzzParseSeeds runs FuzzParse's check on the seed inputs
// (testdata modules) and on damaged copies of them, as the fuzzer's
// mutations make: the time of an exec, less the instrumentation.
func BenchmarkFuzzParseSeeds(b *testing.B) {
	var srcs [][]byte
	for _, file := range testdataFiles(b) {
		src := readFile(b, file)
		srcs = append(srcs, src)
		bad := []byte(string(src))
		bad[len(bad)/2] = '}'
		srcs = append(srcs, bad)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range srcs {
			checkParse(b, s)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(srcs)), "µs/exec")
}
