package sasscost

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/vm"
)

// kernelOf lowers the one entry of a PTX snippet.
func kernelOf(t *testing.T, body string, debug bool) *vm.Kernel {
	t.Helper()
	target := "sm_90"
	if debug {
		target += ", debug"
	}
	src := ".version 8.0\n.target " + target + "\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n" + body + "\n}\n"
	m, err := vm.NewDevice().LoadModule("k.ptx", []byte(src))
	require.NoError(t, err)
	k, err := m.Kernel("k")
	require.NoError(t, err)
	return k
}

// Forms name what changes the machine code: rounding and approximation of
// divisions, signedness of integer division, the state space and vector
// width of memory accesses, moves of constants and special registers.
func TestForms(t *testing.T) {
	k := kernelOf(t, `
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	.reg .f32 %f<8>;
	.reg .pred %p<3>;
	ld.param.u64 %rd1, [p];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %r1;
	mul.wide.u32 %rd3, %r1, 4;
	add.s64 %rd4, %rd2, %rd3;
	ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd4];
	div.rn.f32 %f5, %f1, %f2;
	div.full.f32 %f6, %f1, %f2;
	div.approx.ftz.f32 %f7, %f1, %f2;
	div.u32 %r3, %r1, %r2;
	rem.s32 %r4, %r1, %r2;
	mul.lo.s64 %rd5, %rd4, %rd3;
	setp.lt.u32 %p1, %r1, 7;
	@%p1 bra $L1;
	st.global.f32 [%rd4], %f5;
$L1:
	sqrt.rn.f64 %rd6, %rd5;
	exit;`, false)
	var got []string
	ro := NewFacts(k.Entry)
	for _, info := range k.Insts {
		got = append(got, Form(info, ro))
	}
	assert.Equal(t, []string{
		"ld.param.64", "cvta.to.global", "mov.ro.32", "mov.32", "mul.wide.32", "add.64",
		"ld.global.v4.32", "div.rn.f32", "div.full.f32", "div.approx.ftz.f32", "div.u32", "rem.s32",
		"mul.lo.64", "setp.32", "bra.cond", "st.global.32", "sqrt.rn.f64", "exit", "exit",
	}, got)
}

// A form the table does not list costs its class; a debug form falls back
// to the optimised form's cost and keeps its prefix.
func TestLookup(t *testing.T) {
	tab := &Table{Name: "t", Forms: map[string]Cost{
		"div.u32":   {Slots: 10, Pipe: PipeIMAD, Latency: 50},
		"g:div.u32": {Slots: 14, Pipe: PipeIMAD, Latency: 60},
		"add.32":    {Slots: 0.5, Pipe: PipeALU},
	}, Classes: map[string]Cost{"int": {Slots: 1, Pipe: PipeALU}, "int-div": {Slots: 12, Pipe: PipeIMAD}, "exit": {Slots: 1, Pipe: PipeBranch}}}
	for _, debug := range []bool{false, true} {
		k := kernelOf(t, `
	.reg .b32 %r<4>;
	mov.u32 %r1, %tid.x;
	div.u32 %r2, %r1, 3;
	add.s32 %r3, %r2, %r1;
	xor.b32 %r3, %r3, %r1;
	exit;`, debug)
		ro := NewFacts(k.Entry)
		c, f := tab.Lookup(k.Insts[1], ro, debug)
		if debug {
			assert.Equal(t, "g:div.u32", f)
			assert.Equal(t, 14.0, c.Slots)
		} else {
			assert.Equal(t, "div.u32", f)
			assert.Equal(t, 10.0, c.Slots)
		}
		c, f = tab.Lookup(k.Insts[2], ro, debug)
		assert.Equal(t, 0.5, c.Slots, "add.32 in any build")
		assert.Equal(t, debug, f == "g:add.32")
		c, _ = tab.Lookup(k.Insts[3], ro, debug)
		assert.Equal(t, Cost{Slots: 1, Pipe: PipeALU}, c, "xor: the int class")
	}
}

// The shipped tables parse, give every class a cost, and their pipes have
// names the profiles know.
func TestShippedTables(t *testing.T) {
	for _, name := range []string{"h100"} {
		tab, err := Load(name)
		require.NoError(t, err)
		assert.NotEmpty(t, tab.Forms)
		b, err := tab.Marshal()
		require.NoError(t, err)
		again, err := Parse(b)
		require.NoError(t, err)
		assert.Equal(t, tab.Forms, again.Forms, "round trip")
	}
	_, err := Parse([]byte(`{"name":"x","forms":{},"classes":{}}`))
	assert.ErrorContains(t, err, "no cost for class")
	_, err = Parse([]byte(`{"name":"x","forms":{"a":{"slots":1,"pipe":"warp"}},"classes":{}}`))
	assert.ErrorContains(t, err, `unknown pipe "warp"`)
}

// The fit recovers known costs from exact rows and respects the priors
// where the rows say nothing.
func TestSolve(t *testing.T) {
	// Three forms, true costs 2, 0.5, 7; a fourth form in no row.
	truth := []float64{2, 0.5, 7}
	rows := [][]float64{{10, 40, 1}, {3, 0, 5}, {0, 8, 2}, {7, 7, 7}, {1, 100, 0}}
	p := &Problem{Forms: []string{"a", "b", "c", "d"}, Prior: []float64{1, 1, 1, 3}, Scale: []float64{1, 1, 1, 1}, Lambda: 1e-6}
	for _, r := range rows {
		y := 0.0
		row := Row{W: 1}
		for j, x := range r {
			y += x * truth[j]
			row.Col = append(row.Col, j)
			row.X = append(row.X, x)
		}
		row.Y = y
		p.Rows = append(p.Rows, row)
	}
	s := p.Solve(2000)
	for j, want := range truth {
		assert.InDelta(t, want, s[j], 1e-3, p.Forms[j])
	}
	assert.InDelta(t, 3, s[3], 1e-9, "no data: the prior")
}

// ptxas folds a negation that only floating-point arithmetic reads into
// an operand modifier, and the saturation of an fma's result into the
// fma (.SAT), as in expf; a negation a store reads is an instruction.
func TestFormsFold(t *testing.T) {
	k := kernelOf(t, `
	.reg .b64 %rd<4>;
	.reg .f32 %f<12>;
	ld.param.u64 %rd1, [p];
	cvta.to.global.u64 %rd2, %rd1;
	ld.global.f32 %f1, [%rd2];
	neg.f32 %f2, %f1;
	fma.rn.f32 %f3, %f2, 0f3F000000, 0f3F000000;
	cvt.sat.f32.f32 %f4, %f3;
	neg.f32 %f5, %f4;
	st.global.f32 [%rd2], %f5;
	cvt.sat.f32.f32 %f6, %f1;
	st.global.f32 [%rd2+4], %f6;
	exit;`, false)
	fx := NewFacts(k.Entry)
	var got []string
	for _, info := range k.Insts {
		got = append(got, Form(info, fx))
	}
	assert.Equal(t, []string{
		"ld.param.64", "cvta.to.global", "ld.global.32", "neg.f32.mod", "fma.f32", "cvt.f32.f32.sat",
		"neg.f32", "st.global.32", "cvt.f32.f32.rint", "st.global.32", "exit", "exit",
	}, got)
}
