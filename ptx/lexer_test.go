package ptx

import (
	"strings"
	"testing"

	"github.com/alecthomas/participle/v2/lexer"
	"github.com/stretchr/testify/require"
)

// lexAll returns "Type:Value" for every token of src up to EOF.
func lexAll(src string, module bool) []string {
	sc := newScanner("t.ptx", src, 0, len(src), 1, module)
	var out []string
	for {
		t, err := sc.Next()
		if err != nil {
			panic(err)
		}
		if t.EOF() {
			return out
		}
		out = append(out, tokenNames[t.Type]+":"+t.Value)
	}
}

func TestLexerTokens(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"instruction with modifiers", "ld.global.nc.v4.f32 {%f1, _}, [%rd1+-16];", []string{
			"Ident:ld.global.nc.v4.f32", "Punct:{", "Ident:%f1", "Punct:,", "Ident:_",
			"Punct:}", "Punct:,", "Punct:[", "Ident:%rd1", "Punct:+", "Int:-16", "Punct:]", "Punct:;"}},
		{"scoped modifiers", "fence.proxy.async.shared::cta; ld.global.L2::128B.b32 x", []string{
			"Ident:fence.proxy.async.shared::cta", "Punct:;", "Ident:ld.global.L2::128B.b32", "Ident:x"}},
		{"multiple scopes", ".mbarrier::complete_tx::bytes", []string{"Dot:.mbarrier::complete_tx::bytes"}},
		{"blanks separate an opcode from directives", "ld .global x. .b", []string{"Ident:ld", "Dot:.global", "Ident:x", "Error:.", "Dot:.b"}},
		{"special registers", "%tid.x %ntid.y %ctaid.z %clock64 %lanemask_eq %envreg3 %SP", []string{
			"Ident:%tid.x", "Ident:%ntid.y", "Ident:%ctaid.z", "Ident:%clock64", "Ident:%lanemask_eq", "Ident:%envreg3", "Ident:%SP"}},
		{"names", "$L__BB0_1: _Z3fibi __local_depot0 $str$1 sm_90a", []string{
			"Ident:$L__BB0_1", "Punct::", "Ident:_Z3fibi", "Ident:__local_depot0", "Ident:$str$1", "Ident:sm_90a"}},
		{"integers", "0 42 0x1F 0X1fU 017 0b101 7U", []string{
			"Int:0", "Int:42", "Int:0x1F", "Int:0X1fU", "Int:017", "Int:0b101", "Int:7U"}},
		{"floats", "0f3F800000 0FBF800000 0d3FF0000000000000 1.5 2e10 1.5e-3 8.5", []string{
			"Float:0f3F800000", "Float:0FBF800000", "Float:0d3FF0000000000000", "Float:1.5", "Float:2e10", "Float:1.5e-3", "Float:8.5"}},
		{"negative literal after punctuation", "add.s32 %r1, %r2, -1; = {-2, -0f3F800000}", []string{
			"Ident:add.s32", "Ident:%r1", "Punct:,", "Ident:%r2", "Punct:,", "Int:-1", "Punct:;",
			"Punct:=", "Punct:{", "Int:-2", "Punct:,", "Float:-0f3F800000", "Punct:}"}},
		{"minus after an operand is subtraction", "[sym-4] x-1", []string{
			"Punct:[", "Ident:sym", "Punct:-", "Int:4", "Punct:]", "Ident:x", "Punct:-", "Int:1"}},
		{"predicate pair and negation", "@!%p1 setp %p1|%p2, !%p3", []string{
			"Punct:@", "Punct:!", "Ident:%p1", "Ident:setp", "Ident:%p1|%p2", "Punct:,", "Punct:!", "Ident:%p3"}},
		{"a broken pair", "%p1| %p2 %p1|, %p1|%", []string{"Ident:%p1", "Punct:|", "Ident:%p2", "Ident:%p1", "Punct:|", "Punct:,", "Ident:%p1", "Punct:|", "Error:%"}},
		{"strings and comments", ".pragma \"nounroll\"; // comment\n/* block\ncomment */ .file 1 \"a \\\"b\\\".cu\"", []string{
			"Dot:.pragma", "String:\"nounroll\"", "Punct:;", "Dot:.file", "Int:1", "String:\"a \\\"b\\\".cu\""}},
		{"register ranges", ".reg .b32 %r<35>;", []string{"Dot:.reg", "Dot:.b32", "Ident:%r", "Punct:<", "Int:35", "Punct:>", "Punct:;"}},
		{"malformed numbers", "0x 0f3F80 12ab 0b2", []string{"Error:0x", "Error:0f3F80", "Error:12ab", "Error:0b2"}},
		{"stray characters", "# % . é", []string{"Error:#", "Error:%", "Error:.", "Error:é"}},
		{"unterminated string", "\"abc\nx", []string{"Error:\"abc", "Ident:x"}},
		{"unterminated comment", "x /* abc", []string{"Ident:x", "Error:/*"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, lexAll(tt.src, false))
		})
	}
}

func TestLexerModuleMode(t *testing.T) {
	src := ".const .b8 t[2] = {1, {2}};\n.entry k() .maxntid 1, 1, 1 {\n\tld.f32 {%f1}, [x]; // }\n\t.pragma \"}\";\n}\n" +
		".section .debug_str { .b8 0 }\n.entry broken() { {"
	require.Equal(t, []string{
		"Dot:.const", "Dot:.b8", "Ident:t", "Punct:[", "Int:2", "Punct:]", "Punct:=", "Punct:{", "Int:1", "Punct:,",
		"Punct:{", "Int:2", "Punct:}", "Punct:}", "Punct:;",
		"Dot:.entry", "Ident:k", "Punct:(", "Punct:)", "Dot:.maxntid", "Int:1", "Punct:,", "Int:1", "Punct:,", "Int:1",
		"Body:{\n\tld.f32 {%f1}, [x]; // }\n\t.pragma \"}\";\n}",
		"Dot:.section", "Dot:.debug_str", "Body:{ .b8 0 }",
		"Dot:.entry", "Ident:broken", "Punct:(", "Punct:)", "Error:{", "Error:{",
	}, lexAll(src, true))
}

func TestLexerPositions(t *testing.T) {
	src := "a\n  .b 12\n\t\"s\" /* x\ny */ z"
	sc := newScanner("f.ptx", src, 0, len(src), 1, false)
	var got []lexer.Position
	for {
		tok, _ := sc.Next()
		got = append(got, tok.Pos)
		if tok.EOF() {
			break
		}
	}
	want := []lexer.Position{
		{Filename: "f.ptx", Offset: 0, Line: 1, Column: 1},
		{Filename: "f.ptx", Offset: 4, Line: 2, Column: 3},
		{Filename: "f.ptx", Offset: 7, Line: 2, Column: 6},
		{Filename: "f.ptx", Offset: 11, Line: 3, Column: 2},
		{Filename: "f.ptx", Offset: 25, Line: 4, Column: 6},
		{Filename: "f.ptx", Offset: 26, Line: 4, Column: 7},
	}
	require.Equal(t, want, got)

	// A scanner over a sub-range starting mid-line knows its column.
	sub := newScanner("f.ptx", src, 6, len(src), 2, false)
	tok, _ := sub.Next()
	require.Equal(t, lexer.Position{Filename: "f.ptx", Offset: 7, Line: 2, Column: 6}, tok.Pos)
}

// The lexer plugs into participle as a lexer.Definition.
func TestLexerDefinition(t *testing.T) {
	syms := ptxLexer.Symbols()
	require.Equal(t, tIdent, syms["Ident"])
	require.Equal(t, lexer.EOF, syms["EOF"])
	lx, err := ptxLexer.Lex("r.ptx", strings.NewReader("mov.u32 %r1, 0x10;"))
	require.NoError(t, err)
	toks, err := lexer.ConsumeAll(lx)
	require.NoError(t, err)
	require.Len(t, toks, 6)
	require.Equal(t, "0x10", toks[3].Value)
	sd, ok := ptxLexer.(lexer.BytesDefinition)
	require.True(t, ok)
	lx, _ = sd.LexBytes("b.ptx", []byte("x"))
	tok, _ := lx.Next()
	require.Equal(t, "x", tok.Value)
}
