package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/vm/compare"
	"github.com/ptxvm/ptxvm/vm/spec"
)

// FuzzQuickArg: no --arg text makes the quick-launch parser panic; what it
// accepts is a named buffer of a known type with elements, or a scalar
// whose bytes the spec can make; a whole quick launch built from such
// arguments (one a line) passes the spec's checks or says why not.
func FuzzQuickArg(f *testing.F) {
	for _, s := range []string{
		"C=f32[65536]", "A=f32[65536]:rand", "A=f32[64]:rand(-1,1,7)", "x=u32[8]:iota(3,2)",
		"x=s8[4]:-3", "B=B.npy", "B=f32[]:B.npy", "n=u32:256", "f32:0x3f800000", "f64:nan",
		"s64:-9223372036854775808", "u8:300", "=f32[1]", "a=f16[2]:1.5", "a=bf16[3]:rand()",
		"C=f32[65536]\nA=f32[65536]:rand\nn=u32:256",
	} {
		f.Add(s)
	}
	f.Chdir(f.TempDir()) // file names name nothing
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 4096 {
			return
		}
		buf, arg, err := parseQuickArg(0, s)
		if err != nil {
			require.NotEmpty(t, err.Error())
			require.Nil(t, buf)
		} else if buf != nil {
			require.Equal(t, "buffer", arg.Kind)
			require.Equal(t, buf.Name, arg.Name)
			require.NotEmpty(t, buf.Name)
			require.NotZero(t, compare.ElemSize(buf.Type), buf.Type)
			require.NotZero(t, buf.Count)
		} else {
			_, err := spec.ArgBytes(&arg)
			require.NoError(t, err)
		}
		sp, err := buildQuickSpec("k.ptx", "k", "1", "32", 0, strings.Split(s, "\n"), "")
		if err == nil {
			require.NotNil(t, sp)
			require.Len(t, sp.Args, strings.Count(s, "\n")+1)
		}
	})
}
