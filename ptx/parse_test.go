package ptx

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

func name(s string) *Operand { return &Operand{Kind: OpName, Name: s} }
func imm(v int64) *Operand   { return &Operand{Kind: OpInt, Int: v} }
func vec(e ...*Operand) *Operand {
	return &Operand{Kind: OpVector, Elems: e}
}
func list(e ...*Operand) *Operand {
	return &Operand{Kind: OpList, Elems: e}
}
func addr(base string, off int64, extra ...*Operand) *Operand {
	return &Operand{Kind: OpAddress, Name: base, Int: off, Elems: extra}
}

func TestParseInstructions(t *testing.T) {
	f := vec(name("%f1"), name("%f2"), name("%f3"), name("%f4"))
	tests := []struct {
		src  string
		want *Instruction
	}{
		{"ld.global.nc.v4.f32 {%f1, %f2, %f3, _}, [%rd1+-16];", &Instruction{Opcode: "ld",
			Mods:     []string{".global", ".nc", ".v4", ".f32"},
			Operands: []*Operand{vec(name("%f1"), name("%f2"), name("%f3"), name("_")), addr("%rd1", -16)}}},
		{"@!%p1 bra.uni $L__BB0_3;", &Instruction{Guard: &Guard{Neg: true, Reg: "%p1"}, Opcode: "bra",
			Mods: []string{".uni"}, Operands: []*Operand{name("$L__BB0_3")}}},
		{"@%p2 ret;", &Instruction{Guard: &Guard{Reg: "%p2"}, Opcode: "ret"}},
		{"exit;", &Instruction{Opcode: "exit"}},
		{"setp.ne.s32 %p1|%p2, %r1, 0x1F;", &Instruction{Opcode: "setp", Mods: []string{".ne", ".s32"},
			Operands: []*Operand{{Kind: OpName, Name: "%p1", Pair: "%p2"}, name("%r1"), imm(31)}}},
		{"setp.ltu.and.f32 %p3, %f1, %f2, !%p2;", &Instruction{Opcode: "setp", Mods: []string{".ltu", ".and", ".f32"},
			Operands: []*Operand{name("%p3"), name("%f1"), name("%f2"), {Kind: OpName, Name: "%p2", Neg: true}}}},
		{"mov.u32 %r1, %tid.x;", &Instruction{Opcode: "mov", Mods: []string{".u32"},
			Operands: []*Operand{name("%r1"), name("%tid.x")}}},
		{"add.s32 %r1, %r2, -1;", &Instruction{Opcode: "add", Mods: []string{".s32"},
			Operands: []*Operand{name("%r1"), name("%r2"), imm(-1)}}},
		{"mov.b32 %r1, 017;", &Instruction{Opcode: "mov", Mods: []string{".b32"}, Operands: []*Operand{name("%r1"), imm(15)}}},
		{"mov.b32 %r1, 0b101U;", &Instruction{Opcode: "mov", Mods: []string{".b32"}, Operands: []*Operand{name("%r1"), imm(5)}}},
		{"mov.b64 %rd1, 0xFFFFFFFFFFFFFFFF;", &Instruction{Opcode: "mov", Mods: []string{".b64"}, Operands: []*Operand{name("%rd1"), imm(-1)}}},
		{"mov.b64 %rd1, 18446744073709551615U;", &Instruction{Opcode: "mov", Mods: []string{".b64"}, Operands: []*Operand{name("%rd1"), imm(-1)}}},
		{"mov.b64 %rd1, -9223372036854775808;", &Instruction{Opcode: "mov", Mods: []string{".b64"}, Operands: []*Operand{name("%rd1"), imm(-1 << 63)}}},
		{"mov.f32 %f1, 0fBF800000;", &Instruction{Opcode: "mov", Mods: []string{".f32"},
			Operands: []*Operand{name("%f1"), {Kind: OpFloat, Float: f32bits(-1)}}}},
		{"red.global.add.f32 [%rd1], -0f3F800000;", &Instruction{Opcode: "red", Mods: []string{".global", ".add", ".f32"},
			Operands: []*Operand{addr("%rd1", 0), {Kind: OpFloat, Float: f32bits(-1)}}}},
		{"mov.f64 %fd1, 0d3FF0000000000000;", &Instruction{Opcode: "mov", Mods: []string{".f64"},
			Operands: []*Operand{name("%fd1"), {Kind: OpFloat, Float: f64bits(1), Double: true}}}},
		{"mov.f32 %f1, -1.5e2;", &Instruction{Opcode: "mov", Mods: []string{".f32"},
			Operands: []*Operand{name("%f1"), {Kind: OpFloat, Float: f64bits(-150), Double: true}}}},
		{"st.global.f32 [sym+8], %f1;", &Instruction{Opcode: "st", Mods: []string{".global", ".f32"},
			Operands: []*Operand{addr("sym", 8), name("%f1")}}},
		{"ld.const.f32 %f1, [sym-4];", &Instruction{Opcode: "ld", Mods: []string{".const", ".f32"},
			Operands: []*Operand{name("%f1"), addr("sym", -4)}}},
		{"ld.global.u32 %r1, [0x100];", &Instruction{Opcode: "ld", Mods: []string{".global", ".u32"},
			Operands: []*Operand{name("%r1"), addr("", 256)}}},
		{"tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}];", &Instruction{Opcode: "tex",
			Mods:     []string{".2d", ".v4", ".f32", ".f32"},
			Operands: []*Operand{f, addr("%rd1", 0, vec(name("%f5"), name("%f6")))}}},
		{"tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [t, s, {%f5, %f6}];", &Instruction{Opcode: "tex",
			Mods:     []string{".2d", ".v4", ".f32", ".f32"},
			Operands: []*Operand{f, addr("t", 0, name("s"), vec(name("%f5"), name("%f6")))}}},
		{"call.uni (retval0), _Z3fibi, (param0, param1);", &Instruction{Opcode: "call", Mods: []string{".uni"},
			Operands: []*Operand{list(name("retval0")), name("_Z3fibi"), list(name("param0"), name("param1"))}}},
		{"call (retval0), %rd5, (param0), prototype_0;", &Instruction{Opcode: "call",
			Operands: []*Operand{list(name("retval0")), name("%rd5"), list(name("param0")), name("prototype_0")}}},
		{"call.uni foo, ();", &Instruction{Opcode: "call", Mods: []string{".uni"},
			Operands: []*Operand{name("foo"), list()}}},
		{"mov.b64 {%r1, %r2}, %rd1;", &Instruction{Opcode: "mov", Mods: []string{".b64"},
			Operands: []*Operand{vec(name("%r1"), name("%r2")), name("%rd1")}}},
		{"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f1, %f2, %f3, %f4};",
			&Instruction{Opcode: "mma", Mods: []string{".sync", ".aligned", ".m16n8k16", ".row", ".col", ".f32", ".f16", ".f16", ".f32"},
				Operands: []*Operand{f, vec(name("%r1"), name("%r2"), name("%r3"), name("%r4")), vec(name("%r5"), name("%r6")), f}}},
		{"cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r3}], [%r4];",
			&Instruction{Opcode: "cp", Mods: []string{".async", ".bulk", ".tensor", ".2d", ".shared::cluster", ".global", ".tile", ".mbarrier::complete_tx::bytes"},
				Operands: []*Operand{addr("%r1", 0), addr("%rd1", 0, vec(name("%r2"), name("%r3"))), addr("%r4", 0)}}},
		{"atom.global.acq_rel.gpu.cas.b32 %r1, [%rd1], 0, 1;", &Instruction{Opcode: "atom",
			Mods: []string{".global", ".acq_rel", ".gpu", ".cas", ".b32"}, Operands: []*Operand{name("%r1"), addr("%rd1", 0), imm(0), imm(1)}}},
		{"brx.idx %r1, $L_brx_0;", &Instruction{Opcode: "brx", Mods: []string{".idx"},
			Operands: []*Operand{name("%r1"), name("$L_brx_0")}}},
		// Hand-written forms: several return values, negated video
		// operands, selectors and vector elements in names, WARP_SZ.
		{"call (%r1, %r2), divmod, (%r3, 7);", &Instruction{Opcode: "call",
			Operands: []*Operand{list(name("%r1"), name("%r2")), name("divmod"), list(name("%r3"), imm(7))}}},
		{"vmad.s32.s32.s32.sat.shr15 %r6, -%r1.b0, %r2.h1, -%r3;", &Instruction{Opcode: "vmad",
			Mods: []string{".s32", ".s32", ".s32", ".sat", ".shr15"},
			Operands: []*Operand{name("%r6"), {Kind: OpName, Name: "%r1.b0", Minus: true}, name("%r2.h1"),
				{Kind: OpName, Name: "%r3", Minus: true}}}},
		{"vsub.u32.u32.u32 %r3.b2, %r1, %r2, %r3;", &Instruction{Opcode: "vsub", Mods: []string{".u32", ".u32", ".u32"},
			Operands: []*Operand{name("%r3.b2"), name("%r1"), name("%r2"), name("%r3")}}},
		{"add.u32 %v.y, %v.x, WARP_SZ;", &Instruction{Opcode: "add", Mods: []string{".u32"},
			Operands: []*Operand{name("%v.y"), name("%v.x"), name("WARP_SZ")}}},
		{"sub.s32 %r1, %r2, -1;", &Instruction{Opcode: "sub", Mods: []string{".s32"},
			Operands: []*Operand{name("%r1"), name("%r2"), imm(-1)}}},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			body := parseBody(t, tt.src)
			require.Len(t, body, 1)
			in := body[0].Inst
			require.NotNil(t, in)
			clearPos(in)
			require.Equal(t, tt.want, in)
		})
	}
}

func TestParseStatements(t *testing.T) {
	tests := []struct {
		src  string
		want []*Statement
	}{
		{".reg .b32 %r<35>;", []*Statement{{Reg: &RegDecl{Type: ".b32", Names: []*RegName{{Name: "%r", Count: 35}}}}}},
		{".reg .pred p, q;", []*Statement{{Reg: &RegDecl{Type: ".pred", Names: []*RegName{{Name: "p"}, {Name: "q"}}}}}},
		{".reg .v4 .f32 %v;", []*Statement{{Reg: &RegDecl{Type: ".f32", Vector: 4, Names: []*RegName{{Name: "%v"}}}}}},
		{".local .align 8 .b8 __local_depot0[40];", []*Statement{{Var: &VarDecl{Space: ".local", Align: 8, Type: ".b8",
			Name: "__local_depot0", Dims: []int64{40}}}}},
		{".shared .align 4 .b8 tile[1024];", []*Statement{{Var: &VarDecl{Space: ".shared", Align: 4, Type: ".b8",
			Name: "tile", Dims: []int64{1024}}}}},
		{".pragma \"nounroll\";", []*Statement{{Pragma: []string{"nounroll"}}}},
		{"$L__BB0_1:\n\tret;", []*Statement{{Label: "$L__BB0_1"}, {Inst: &Instruction{Opcode: "ret"}}}},
		{".loc\t1 32 3", []*Statement{{Loc: &LocDirective{File: 1, Line: 32, Column: 3}}}},
		{".loc 1 32 3, function_name $L__info_string0, inlined_at 1 50 7", []*Statement{{Loc: &LocDirective{
			File: 1, Line: 32, Column: 3, FunctionName: "$L__info_string0", Inlined: true, InlinedFile: 1, InlinedLine: 50, InlinedCol: 7}}}},
		{".loc 2 15 3, function_name .debug_str+16, inlined_at 1 10 5", []*Statement{{Loc: &LocDirective{
			File: 2, Line: 15, Column: 3, FunctionName: ".debug_str", FunctionOff: 16, Inlined: true, InlinedFile: 1, InlinedLine: 10, InlinedCol: 5}}}},
		{"prototype_0 : .callprototype (.param .b32 _) _ (.param .b64 _, .param .align 8 .b8 _[16]);", []*Statement{{Prototype: &CallPrototype{
			Name:    "prototype_0",
			Returns: []*Param{{Space: ".param", Type: ".b32", Name: "_", ArrayLen: -1}},
			Params:  []*Param{{Space: ".param", Type: ".b64", Name: "_", ArrayLen: -1}, {Space: ".param", Align: 8, Type: ".b8", Name: "_", ArrayLen: 16}},
		}}}},
		{"prototype_1 : .callprototype ()_ (.param .b64 _) .noreturn;", []*Statement{{Prototype: &CallPrototype{
			Name: "prototype_1", Params: []*Param{{Space: ".param", Type: ".b64", Name: "_", ArrayLen: -1}}, NoReturn: true}}}},
		{"$L_brx_0: .branchtargets $L__BB0_1, $L__BB0_2;", []*Statement{{Label: "$L_brx_0"},
			{Targets: &TargetList{Directive: ".branchtargets", Names: []string{"$L__BB0_1", "$L__BB0_2"}}}}},
		{"$L_ct: .calltargets f, g;", []*Statement{{Label: "$L_ct"},
			{Targets: &TargetList{Directive: ".calltargets", Names: []string{"f", "g"}}}}},
		{"{ // callseq 0, 0\n\t.param .b32 param0;\n\tst.param.b32 [param0+0], %r2;\n\t{\n\t}\n\t} // callseq 0", []*Statement{{IsBlock: true, Block: []*Statement{
			{Var: &VarDecl{Space: ".param", Type: ".b32", Name: "param0"}},
			{Inst: &Instruction{Opcode: "st", Mods: []string{".param", ".b32"}, Operands: []*Operand{addr("param0", 0), name("%r2")}}},
			{IsBlock: true},
		}}}},
		{";;\n\tret;", []*Statement{{Inst: &Instruction{Opcode: "ret"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			body := parseBody(t, tt.src)
			clearPos(body)
			require.Equal(t, tt.want, body)
		})
	}
}

func TestParseModuleDirectives(t *testing.T) {
	src := `//
// Generated by NVIDIA NVVM Compiler
//
.version 7.8
.target sm_52, texmode_independent, debug
.address_size 32
.file	1 "/tmp/a.cu"
.file	2 "/usr/include/b.h", 1700000000, 4096
.section	.debug_str
{
$L__info_string0:
.b8 95,90,0
}
`
	m, err := Parse("m.ptx", []byte(src))
	require.NoError(t, err)
	require.Equal(t, "7.8", m.Version)
	require.Equal(t, []string{"sm_52", "texmode_independent", "debug"}, m.Target)
	require.Equal(t, 32, m.AddressSize)
	clearPos(m.Files)
	require.Equal(t, []*FileDirective{{Index: 1, Name: "/tmp/a.cu"}, {Index: 2, Name: "/usr/include/b.h", Timestamp: 1700000000, Size: 4096}}, m.Files)
	require.Len(t, m.Sections, 1)
	require.Equal(t, ".debug_str", m.Sections[0].Name)
	require.Equal(t, "\n$L__info_string0:\n.b8 95,90,0\n", m.Sections[0].Raw)
	require.Equal(t, Pos{Filename: "m.ptx", Offset: strings.Index(src, ".section"), Line: 9, Column: 1}, m.Sections[0].Pos)

	m, err = Parse("m.ptx", []byte(".version 8.0\n.target sm_90\n"))
	require.NoError(t, err)
	require.Equal(t, 64, m.AddressSize, "the default address size")
}

func TestParseVariables(t *testing.T) {
	tests := []struct {
		src  string
		want *VarDecl
	}{
		{".global .align 4 .u32 counter;", &VarDecl{Space: ".global", Align: 4, Type: ".u32", Name: "counter"}},
		{".visible .global .align 4 .u32 c = 5;", &VarDecl{Linkage: ".visible", Space: ".global", Align: 4, Type: ".u32", Name: "c",
			HasInit: true, Init: []*InitElem{{Kind: InitInt, Int: 5}}}},
		{".const .align 4 .b8 t[4] = {1, 2, -1, 0xFF};", &VarDecl{Space: ".const", Align: 4, Type: ".b8", Name: "t", Dims: []int64{4},
			HasInit: true, Init: []*InitElem{{Kind: InitInt, Int: 1}, {Kind: InitInt, Int: 2}, {Kind: InitInt, Int: ^uint64(0)}, {Kind: InitInt, Int: 255}}}},
		{".const .f32 s = 0f3F800000;", &VarDecl{Space: ".const", Type: ".f32", Name: "s",
			HasInit: true, Init: []*InitElem{{Kind: InitFloat, Float: f32bits(1)}}}},
		{".const .f64 d[2] = {0d4000000000000000, 2.5};", &VarDecl{Space: ".const", Type: ".f64", Name: "d", Dims: []int64{2},
			HasInit: true, Init: []*InitElem{{Kind: InitFloat, Float: f64bits(2), Double: true}, {Kind: InitFloat, Float: f64bits(2.5), Double: true}}}},
		{".global .u32 g[2][2] = {{1, 2}, {3, 4}};", &VarDecl{Space: ".global", Type: ".u32", Name: "g", Dims: []int64{2, 2},
			HasInit: true, Init: []*InitElem{{Kind: InitInt, Int: 1}, {Kind: InitInt, Int: 2}, {Kind: InitInt, Int: 3}, {Kind: InitInt, Int: 4}}}},
		{".global .u32 e[2] = {};", &VarDecl{Space: ".global", Type: ".u32", Name: "e", Dims: []int64{2}, HasInit: true}},
		{".global .align 8 .u64 p[4] = {generic(a), a+8, generic(b)+4, b-2};", &VarDecl{Space: ".global", Align: 8, Type: ".u64", Name: "p", Dims: []int64{4},
			HasInit: true, Init: []*InitElem{
				{Kind: InitSymbol, Symbol: "a", Generic: true}, {Kind: InitSymbol, Symbol: "a", Offset: 8},
				{Kind: InitSymbol, Symbol: "b", Generic: true, Offset: 4}, {Kind: InitSymbol, Symbol: "b", Offset: -2}}}},
		{".extern .shared .align 16 .b8 dyn[];", &VarDecl{Linkage: ".extern", Space: ".shared", Align: 16, Type: ".b8", Name: "dyn", Dims: []int64{0}}},
		{".global .texref t;", &VarDecl{Space: ".global", Type: ".texref", Name: "t"}},
		{".weak .global .align 16 .v4 .f32 v[2];", &VarDecl{Linkage: ".weak", Space: ".global", Align: 16, Vector: 4, Type: ".f32", Name: "v", Dims: []int64{2}}},
		{".common .global .align 4 .b8 c[16];", &VarDecl{Linkage: ".common", Space: ".global", Align: 4, Type: ".b8", Name: "c", Dims: []int64{16}}},
		{".global .attribute(.managed) .align 4 .u32 m;", &VarDecl{Space: ".global", Align: 4, Type: ".u32", Name: "m", Attrs: []string{".managed"}}},
		{".global .align 1 .b8 $str$1[3] = {104, 105, 0};", &VarDecl{Space: ".global", Align: 1, Type: ".b8", Name: "$str$1", Dims: []int64{3},
			HasInit: true, Init: []*InitElem{{Kind: InitInt, Int: 104}, {Kind: InitInt, Int: 105}, {Kind: InitInt, Int: 0}}}},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			m, err := Parse("v.ptx", []byte(header+tt.src+"\n"))
			require.NoError(t, err)
			require.Len(t, m.Vars, 1)
			clearPos(m.Vars)
			require.Equal(t, tt.want, m.Vars[0])
		})
	}
}

func TestParseFunctionHeaders(t *testing.T) {
	src := header + `
.extern .func  (.param .b32 func_retval0) vprintf
(
	.param .b64 vprintf_param_0,
	.param .b64 vprintf_param_1
)
;
.extern .func __assertfail(.param .b64 a) .noreturn;
.weak .func .noreturn abort_();
.visible .entry _Z1kPfS_(
	.param .u64 .ptr .global .align 4 _Z1kPfS__param_0,
	.param .u64 .ptr .align 1 _Z1kPfS__param_1,
	.param .align 8 .b8 _Z1kPfS__param_2[16],
	.param .f32 _Z1kPfS__param_3
)
.maxntid 256, 1, 1
.minnctapersm 2
.maxnreg 64
.explicitcluster
.reqnctapercluster 2, 1, 1
.maxclusterrank 8
.reqntid 128
.pragma_like 1, 2
{
	ret;
}
.func _Z3oldi(.reg .b32 x)
{
	ret;
}
.func (.reg .b32 q, .reg .f32 r) two(.param .align 16 .v4 .b32 v, .param .v2 .f64 w)
{
	ret;
}
`
	m, err := Parse("f.ptx", []byte(src))
	require.NoError(t, err)
	require.Len(t, m.Funcs, 6)
	fs := m.Funcs
	clearPos(fs)

	require.Equal(t, ".extern", fs[0].Linkage)
	require.False(t, fs[0].Entry)
	require.False(t, fs[0].HasBody)
	require.Equal(t, []*Param{{Space: ".param", Type: ".b32", Name: "func_retval0", ArrayLen: -1}}, fs[0].Returns)
	require.Len(t, fs[0].Params, 2)

	require.True(t, fs[1].NoReturn)
	require.False(t, fs[1].HasBody)
	require.True(t, fs[2].NoReturn)
	require.Equal(t, ".weak", fs[2].Linkage)

	k := fs[3]
	require.True(t, k.Entry)
	require.True(t, k.HasBody)
	require.Equal(t, "_Z1kPfS_", k.Name)
	require.Equal(t, []*Param{
		{Space: ".param", Type: ".u64", PtrSpace: ".global", PtrAlign: 4, Name: "_Z1kPfS__param_0", ArrayLen: -1},
		{Space: ".param", Type: ".u64", PtrAlign: 1, Name: "_Z1kPfS__param_1", ArrayLen: -1},
		{Space: ".param", Align: 8, Type: ".b8", Name: "_Z1kPfS__param_2", ArrayLen: 16},
		{Space: ".param", Type: ".f32", Name: "_Z1kPfS__param_3", ArrayLen: -1},
	}, k.Params)
	require.Equal(t, []*PerfDirective{
		{Name: ".maxntid", Values: []int64{256, 1, 1}},
		{Name: ".minnctapersm", Values: []int64{2}},
		{Name: ".maxnreg", Values: []int64{64}},
		{Name: ".explicitcluster"},
		{Name: ".reqnctapercluster", Values: []int64{2, 1, 1}},
		{Name: ".maxclusterrank", Values: []int64{8}},
		{Name: ".reqntid", Values: []int64{128}},
		{Name: ".pragma_like", Values: []int64{1, 2}},
	}, k.Perf)
	require.Equal(t, []*Param{{Space: ".reg", Type: ".b32", Name: "x", ArrayLen: -1}}, fs[4].Params)
	require.Equal(t, []*Param{{Space: ".reg", Type: ".b32", Name: "q", ArrayLen: -1},
		{Space: ".reg", Type: ".f32", Name: "r", ArrayLen: -1}}, fs[5].Returns)
	require.Equal(t, []*Param{{Space: ".param", Align: 16, Vector: 4, Type: ".b32", Name: "v", ArrayLen: -1},
		{Space: ".param", Vector: 2, Type: ".f64", Name: "w", ArrayLen: -1}}, fs[5].Params)

	require.Same(t, m.Funcs[3], m.Entry("_Z1kPfS_"))
	require.Nil(t, m.Entry("_Z3oldi"), "a .func is not an entry")
	require.Same(t, m.Funcs[4], m.Func("_Z3oldi"))
	require.Same(t, m.Funcs[0], m.Func("vprintf"))
	require.Nil(t, m.Func("nope"))
}

func TestPositions(t *testing.T) {
	src := header + "\n.visible .entry k(\n\t.param .u64 p\n)\n{\n\t.reg .b32 %r<2>;\n$L1:\n\t@%p1 add.s32 %r1, [%rd1+4], 0f3F800000;\n}\n"
	m, err := Parse("p.ptx", []byte(src))
	require.NoError(t, err)
	f := m.Funcs[0]
	require.Equal(t, Pos{Filename: "p.ptx", Offset: strings.Index(src, ".visible"), Line: 5, Column: 1}, f.Pos)
	require.Equal(t, Pos{Filename: "p.ptx", Offset: strings.Index(src, ".param"), Line: 6, Column: 2}, f.Params[0].Pos)
	require.Equal(t, 9, f.Body[0].Pos.Line)
	require.Equal(t, 2, f.Body[0].Pos.Column)
	require.Equal(t, 12, f.Body[0].Reg.Names[0].Pos.Column)
	require.Equal(t, Pos{Filename: "p.ptx", Offset: strings.Index(src, "$L1"), Line: 10, Column: 1}, f.Body[1].Pos)
	in := f.Body[2].Inst
	require.Equal(t, 11, in.Pos.Line)
	require.Equal(t, 2, in.Pos.Column)
	require.Equal(t, 2, in.Guard.Pos.Column)
	require.Equal(t, []int{15, 20, 30}, []int{in.Operands[0].Pos.Column, in.Operands[1].Pos.Column, in.Operands[2].Pos.Column})
}

func TestParseTestdata(t *testing.T) {
	for _, file := range testdataFiles(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			src := readFile(t, file)
			m, err := Parse(file, src)
			require.NoError(t, err)
			require.NotEmpty(t, m.Funcs)
			for _, f := range m.Funcs {
				require.Equal(t, f.HasBody, f.BodyParsed(), f.Name)
				if f.HasBody {
					require.NotEmpty(t, f.Body, f.Name)
				}
			}
		})
	}
}

func TestParseTestdataDetails(t *testing.T) {
	m, err := Parse("g.ptx", readFile(t, "testdata/matmul_tiled_G.ptx"))
	require.NoError(t, err)
	require.Equal(t, []string{"sm_90a", "debug"}, m.Target)
	require.Len(t, m.Sections, 4)
	require.Equal(t, []string{".debug_loc", ".debug_abbrev", ".debug_info", ".debug_macinfo"},
		[]string{m.Sections[0].Name, m.Sections[1].Name, m.Sections[2].Name, m.Sections[3].Name})
	require.Contains(t, m.Sections[2].Raw, ".b64 $L__func_begin1")
	require.Equal(t, "\t", m.Sections[3].Raw)
	k := m.Entry("_Z12matmul_tiledPfPKfS1_j")
	require.NotNil(t, k)
	require.Equal(t, ".local", k.Body[0].Var.Space)
	require.Equal(t, "%SP", k.Body[1].Reg.Names[0].Name)

	m, err = Parse("f.ptx", readFile(t, "testdata/fib_calls.ptx"))
	require.NoError(t, err)
	fib := m.Func("_Z3fibi")
	var calls int
	var walk func([]*Statement)
	walk = func(body []*Statement) {
		for _, st := range body {
			if st.Inst != nil && st.Inst.Opcode == "call" {
				calls++
				require.Equal(t, OpList, st.Inst.Operands[0].Kind)
				require.Equal(t, "_Z3fibi", st.Inst.Operands[1].Name)
			}
			walk(st.Block)
		}
	}
	walk(fib.Body)
	require.Equal(t, 2, calls)
	require.True(t, m.Func("__assertfail").NoReturn)
	require.Equal(t, []*InitElem{{Kind: InitSymbol, Symbol: "_Z3fibi"}, {Kind: InitSymbol, Symbol: "_Z4facti"}},
		func() []*InitElem { clearPos(m.Vars[0].Init); return m.Vars[0].Init }())
}

func TestParseLazy(t *testing.T) {
	src := readFile(t, "testdata/matmul_tiled_O3_lineinfo.ptx")
	full, err := Parse("l.ptx", src)
	require.NoError(t, err)
	m, err := ParseLazy("l.ptx", src)
	require.NoError(t, err)
	require.Len(t, m.Funcs, 2)
	for _, f := range m.Funcs {
		require.False(t, f.BodyParsed())
		require.Nil(t, f.Body)
	}
	k := m.Entry("_Z12matmul_tiledPfPKfS1_j")
	require.NotNil(t, k)
	require.NoError(t, m.ParseBody(k))
	require.True(t, k.BodyParsed())
	require.False(t, m.Funcs[0].BodyParsed(), "only the asked-for body is parsed")
	require.Equal(t, dump(t, full.Entry(k.Name)), dump(t, k))
	require.Equal(t, full.Entry(k.Name).Body, k.Body, "positions included")
	require.NoError(t, m.ParseBody(k), "a second call is a no-op")

	// Concurrent calls parse each body once (run with -race).
	m, err = ParseLazy("l.ptx", src)
	require.NoError(t, err)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			require.NoError(t, m.ParseBody(m.Funcs[i%2]))
		}(i)
	}
	wg.Wait()
	require.Equal(t, dump(t, full), dump(t, m))

	// A body error is reported by ParseBody, not by ParseLazy.
	bad := strings.Replace(string(src), "bar.sync 	0;", "bar.sync 	0 0;", 1)
	line := strings.Count(bad[:strings.Index(bad, "0 0;")], "\n") + 1
	want := fmt.Sprintf(`bad.ptx:%d:14: expected "," or ";", found "0"`, line)
	m, err = ParseLazy("bad.ptx", []byte(bad))
	require.NoError(t, err)
	err = m.ParseBody(m.Funcs[1])
	require.EqualError(t, err, want)
	require.Equal(t, err, m.ParseBody(m.Funcs[1]), "the same errors every time")
	_, err = Parse("bad.ptx", []byte(bad))
	require.EqualError(t, err, want)

	// A function of another module is refused; nil and declarations are no-ops.
	other, _ := ParseLazy("o.ptx", src)
	require.Error(t, m.ParseBody(other.Funcs[0]))
	require.NoError(t, m.ParseBody(nil))
}

// Large modules are parsed in parallel and give the same tree as parsing
// each body in turn.
func TestParseParallel(t *testing.T) {
	src := synthModule(200 << 10)
	m, err := Parse("big.ptx", src)
	require.NoError(t, err)
	lazy, err := ParseLazy("big.ptx", src)
	require.NoError(t, err)
	for _, f := range lazy.Funcs {
		require.NoError(t, lazy.ParseBody(f))
	}
	require.Equal(t, dump(t, m), dump(t, lazy))
	require.Greater(t, len(m.Funcs), 10)
	require.NotNil(t, m.Entry(fmt.Sprintf("_Z12matmul_tiledPfPKfS1_j_%d", 3)))
}
