package ptx

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestUnknownInstruction(t *testing.T) {
	for _, tc := range []struct {
		op   string
		mods []string
		want string
	}{
		{"addd", []string{".f32"}, "unknown instruction addd.f32; did you mean add.f32?"},
		{"sett", []string{".eq", ".s32"}, "unknown instruction sett.eq.s32; did you mean set.eq.s32?"},
		{"fmaa", []string{".rn", ".f32"}, "unknown instruction fmaa.rn.f32; did you mean fma.rn.f32?"},
		{"ldd", []string{".global", ".u32"}, "unknown instruction ldd.global.u32; did you mean ld.global.u32?"},
		{"shfl_sync", nil, "unknown instruction shfl_sync"},
		{"frobnicate", []string{".b32"}, "unknown instruction frobnicate.b32"},
	} {
		require.Equal(t, tc.want, UnknownInstruction(tc.op, tc.mods), tc.op)
	}
	require.True(t, KnownOpcode("wgmma"))
	require.False(t, KnownOpcode("addd"))
}

func TestCheckOpcodes(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       []string
	}{
		{"known", "\tadd.f32 %f1, %f2, %f3;\n\tret;", nil},
		{"unknown", "\taddd.f32 %f1, %f2, %f3;\n\t{\n\t@%p1 sett.eq.s32 %r1, %r2, %r3;\n\t}\n\tret;",
			[]string{"t.ptx:7:2: unknown instruction addd.f32; did you mean add.f32?",
				"t.ptx:9:2: unknown instruction sett.eq.s32; did you mean set.eq.s32?"}},
	} {
		m, err := Parse("t.ptx", []byte(kernel(tc.body)))
		require.NoError(t, err, tc.name)
		err = m.CheckOpcodes()
		if tc.want == nil {
			require.NoError(t, err, tc.name)
			continue
		}
		var got []string
		for _, e := range err.(ErrorList) {
			got = append(got, e.Error())
		}
		require.Equal(t, tc.want, got, tc.name)
	}
}
