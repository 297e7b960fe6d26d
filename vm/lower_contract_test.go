package vm

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// contractKernel wraps body in a kernel whose registers a..e (f32, or the
// type's registers) hold loaded values, with p a predicate, and returns the
// lowered form of body's instructions as op names: "fma" for a contracted
// add, "fma-p" / "fma-c" when the product / the addend is negated.
func contractKernel(t *testing.T, target, typ, body string) []string {
	t.Helper()
	reg := map[string]string{".f32": ".f32", ".f64": ".f64", ".f16": ".b16", ".f16x2": ".b32"}[typ]
	src := fmt.Sprintf(`.version 8.5
.target %s
.address_size 64
.visible .entry k(.param .u64 p0)
{
	.reg .pred p, q;
	.reg %s a, b, c, e, t, u, d, d2, x;
	.reg .b64 %%rd<2>;
	.reg .b32 k;
	ld.param.u64 %%rd0, [p0];
	ld.global%s a, [%%rd0];
	ld.global%s b, [%%rd0+8];
	ld.global%s c, [%%rd0+16];
	ld.global%s e, [%%rd0+24];
	setp.ne.u64 p, %%rd0, 0;
// body
%s
// end
	st.global%s [%%rd0], d;
	st.global%s [%%rd0+8], d2;
	ret;
}
`, target, reg, reg, reg, reg, reg, strings.ReplaceAll(body, "; ", ";\n"), reg, reg)
	m, err := NewDevice().LoadModule("c.ptx", []byte(src))
	require.NoError(t, err)
	k, err := m.Kernel("k")
	require.NoError(t, err, src)
	first := strings.Count(src[:strings.Index(src, "// body")], "\n") + 2
	last := strings.Count(src[:strings.Index(src, "// end")], "\n")
	var ops []string
	for pc, in := range k.Entry.Code {
		line := int(k.Entry.Info[pc].Line)
		if line < first || line > last {
			continue
		}
		s := in.Op.String()
		if in.Op == OpFFma && in.Imm != 0 {
			if in.Imm&fmaNegProduct != 0 {
				s += "-p"
			}
			if in.Imm&fmaNegAddend != 0 {
				s += "-c"
			}
		}
		if in.Op == OpFFma && in.Flags&FSat != 0 {
			s += ".sat"
		}
		ops = append(ops, s)
	}
	return ops
}

// TestContraction checks the contraction rule (lower_contract.go) on the
// arrangements of the issue-7 probes, whose SASS (ptxas 13, sm_90) says
// which pairs became FFMA/DFMA/HFMA2: testdata/conformance/issue7/sass.
func TestContraction(t *testing.T) {
	tests := []struct {
		name, typ, body string
		want            string
	}{
		// FFMA R11, R2, R5, R7
		{"add_tc", ".f32", "mul.f32 t, a, b; add.f32 d, t, c;", "mul.f fma"},
		{"add_ct", ".f32", "mul.f32 t, a, b; add.f32 d, c, t;", "mul.f fma"},
		// FFMA R11, R2, R5, -R7 / FFMA R11, -R2, R5, R7
		{"sub_tc", ".f32", "mul.f32 t, a, b; sub.f32 d, t, c;", "mul.f fma-c"},
		{"sub_ct", ".f32", "mul.f32 t, a, b; sub.f32 d, c, t;", "mul.f fma-p"},
		{"neg_add", ".f32", "mul.f32 t, a, b; neg.f32 u, t; add.f32 d, u, c;", "mul.f neg.f fma-p"},
		{"neg_sub", ".f32", "mul.f32 t, a, b; neg.f32 u, t; sub.f32 d, c, u;", "mul.f neg.f fma"},
		{"mov_between", ".f32", "mul.f32 t, a, b; mov.b32 u, t; add.f32 d, u, c;", "mul.f mov fma"},
		// FMUL R11, R2, R5; FADD R11, R6, |R11|
		{"abs_add", ".f32", "mul.f32 t, a, b; abs.f32 u, t; add.f32 d, u, c;", "mul.f abs.f add.f"},
		// two FFMAs, the FMUL duplicated
		{"two_adds", ".f32", "mul.f32 t, a, b; add.f32 d, t, c; add.f32 d2, t, e;", "mul.f fma fma"},
		{"add_sub", ".f32", "mul.f32 t, a, b; add.f32 d, t, c; sub.f32 d2, e, t;", "mul.f fma fma-p"},
		// a use that is not an add: nothing fused
		{"add_store", ".f32", "mul.f32 t, a, b; add.f32 d, t, c; mov.b32 d2, t;", "mul.f add.f mov"},
		{"add_mul", ".f32", "mul.f32 t, a, b; add.f32 d, t, c; mul.f32 d2, t, e;", "mul.f add.f mul.f"},
		{"max_use", ".f32", "mul.f32 t, a, b; add.f32 d, t, c; max.f32 d2, t, e;", "mul.f add.f max.f"},
		// the product is tex.level's level of detail, or one of tex.grad's
		// gradients: a use that is not an add
		{"tex_level_lod", ".f32", "mul.f32 t, a, b; add.f32 d, t, c; tex.level.2d.v4.f32.f32 {d2, x, x, x}, [%rd0, {c, c}], t;", "mul.f add.f tex"},
		{"tex_grad", ".f32", "mul.f32 t, a, b; add.f32 d, t, c; tex.grad.2d.v4.f32.f32 {d2, x, x, x}, [%rd0, {c, c}], {t, e}, {e, e};", "mul.f add.f tex"},
		{"add_self", ".f32", "mul.f32 t, a, b; add.f32 d, t, t;", "mul.f add.f"},
		{"chain", ".f32", "mul.f32 t, a, b; add.f32 u, t, c; add.f32 d, u, e;", "mul.f fma add.f"},
		{"mulmul_add", ".f32", "mul.f32 t, a, b; mul.f32 u, t, c; add.f32 d, u, e;", "mul.f mul.f fma"},
		{"two_products", ".f32", "mul.f32 t, a, b; mul.f32 u, c, e; add.f32 d, t, u;", "mul.f mul.f fma"},
		// .ftz must agree; .sat on the add is kept, on the mul it blocks
		{"ftz_both", ".f32", "mul.ftz.f32 t, a, b; add.ftz.f32 d, t, c;", "mul.f fma"},
		{"ftz_add", ".f32", "mul.f32 t, a, b; add.ftz.f32 d, t, c;", "mul.f add.f"},
		{"ftz_mul", ".f32", "mul.ftz.f32 t, a, b; add.f32 d, t, c;", "mul.f add.f"},
		{"sat_add", ".f32", "mul.f32 t, a, b; add.sat.f32 d, t, c;", "mul.f fma.sat"},
		{"sat_mul", ".f32", "mul.sat.f32 t, a, b; add.f32 d, t, c;", "mul.f add.f"},
		// rounding modifiers: never
		{"rn_add", ".f32", "mul.f32 t, a, b; add.rn.f32 d, t, c;", "mul.f add.f"},
		{"rn_mul", ".f32", "mul.rn.f32 t, a, b; add.f32 d, t, c;", "mul.f add.f"},
		{"rz_both", ".f32", "mul.rz.f32 t, a, b; add.rz.f32 d, t, c;", "mul.f add.f"},
		// @P0 FFMA R11, R2, R5, R11
		{"pred_add", ".f32", "mul.f32 t, a, b; mov.b32 d, c; @p add.f32 d, t, c;", "mul.f mov fma"},
		// blocks: a bra.uni to a label nothing else reaches joins them
		{"bb_bra", ".f32", "mul.f32 t, a, b; bra.uni $L1; $L1: add.f32 d, t, c;", "mul.f bra fma"},
		{"bb_one_side", ".f32", "mul.f32 t, a, b; mov.b32 d, c; @p bra $L1; add.f32 d, t, c; $L1:", "mul.f mov bra add.f"},
		{"bb_join", ".f32", "mul.f32 t, a, b; @p bra $L1; mov.b32 x, e; bra.uni $L2; $L1: mov.b32 x, c; $L2: add.f32 d, t, x;",
			"mul.f bra mov bra mov add.f"},
		{"second_use_bb", ".f32", "mul.f32 t, a, b; add.f32 d, t, c; mov.b32 d2, e; @p bra $L1; add.f32 d2, t, e; $L1:",
			"mul.f add.f mov bra add.f"},
		{"bb_loop", ".f32", "mul.f32 t, a, b; mov.b32 d, c; mov.u32 k, 3; $L1: add.f32 d, d, t; sub.u32 k, k, 1; setp.ne.u32 q, k, 0; @q bra $L1;",
			"mul.f mov mov add.f sub setp bra"},
		// the mul overwrites its own source: the fma reads copies
		{"clobber", ".f32", "mul.f32 a, a, b; add.f32 d, a, c;", "mul.f.keep fma"},
		// div.approx ends in an FMUL: FFMA.FTZ -R0, R9, R11
		{"div_approx", ".f32", "div.approx.ftz.f32 t, a, b; sub.ftz.f32 d, c, t;", "div.f.keep fma-p"},
		{"div_full_rn", ".f32", "div.full.f32 t, a, b; add.rn.f32 d, t, c;", "div.f add.f"},
		{"f64", ".f64", "mul.f64 t, a, b; sub.f64 d, c, t;", "mul.f fma-p"},
		{"f64_rn", ".f64", "mul.rn.f64 t, a, b; sub.f64 d, c, t;", "mul.f sub.f"},
		{"f16", ".f16", "mul.f16 t, a, b; add.f16 d, t, c; add.f16 d2, t, e;", "mul.f fma fma"},
		{"f16x2", ".f16x2", "mul.f16x2 t, a, b; sub.f16x2 d, t, c;", "mul.f fma-c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := contractKernel(t, "sm_90", tt.typ, tt.body)
			require.Equal(t, tt.want, strings.Join(got, " "))
		})
	}
	t.Run("debug target", func(t *testing.T) {
		// nvcc -G: the driver compiles without optimisation, nothing fuses.
		got := contractKernel(t, "sm_90, debug", ".f32", "mul.f32 t, a, b; add.f32 d, t, c;")
		require.Equal(t, "mul.f add.f", strings.Join(got, " "))
	})
}

// TestContractionValues runs contracted pairs and checks the single
// rounding, the negations and the copies the clobbered form needs.
func TestContractionValues(t *testing.T) {
	const a, b, c = 1.0000001, 1.0000001, -1.0000002
	// a*b = 1.00000020000001: rounded first, 1.0000002 - 1.0000002 = 0; fused,
	// 1.4210855e-14.
	in := &Inst{Op: OpFFma, T: F32, Rnd: rndN}
	fused := floatOp(in, f32(a), f32(b), f32(c))
	require.NotZero(t, fused)
	sep := floatOp(&Inst{Op: OpFAdd, T: F32}, floatOp(&Inst{Op: OpFMul, T: F32}, f32(a), f32(b), 0), f32(c), 0)
	require.Zero(t, sep&0x7fffffff)
	// The negation modifiers leave NaNs as they are (DFMA -R on a NaN).
	nan := uint64(0x7ff8000000000001)
	require.Equal(t, nan, negNonNaN(nan, F64))
	require.Equal(t, uint64(0xbff0000000000000), negNonNaN(0x3ff0000000000000, F64))
	require.Equal(t, uint64(0x80007e01), negNonNaN(0x00007e01, F16x2), "the low half is a NaN, the high half +0")
}

func f32(x float32) uint64 { return uint64(math.Float32bits(x)) }
