package ptx

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// errorList parses src with mode and returns its errors as strings.
func errorList(t *testing.T, src string, mode Mode) []string {
	t.Helper()
	_, err := ParseMode("e.ptx", []byte(src), mode)
	if err == nil {
		return nil
	}
	var list ErrorList
	require.True(t, errors.As(err, &list), "%T", err)
	var out []string
	for _, e := range list {
		out = append(out, e.Error())
	}
	return out
}

func TestErrors(t *testing.T) {
	k := func(body string) string { return header + ".visible .entry k() {\n" + body + "\n}\n" } // body starts on line 5
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"unknown module directive", header + ".bogus 1\n",
			[]string{`e.ptx:4:1: expected a module directive such as .version, .target, .entry, .func or .global, found ".bogus"`}},
		{"stray brace at module level", header + "}\n",
			[]string{`e.ptx:4:1: expected a module directive such as .version, .target, .entry, .func or .global, found "}"`}},
		{"variable without semicolon", header + ".global .u32 x\n.global .u32 y;\n.global .u32 z 5;\n",
			[]string{`e.ptx:4:15: expected "[", "=" or ";", found newline`, `e.ptx:6:16: expected "[", "=" or ";", found "5"`}},
		{"initialisers", header + ".global .u32 a = ;\n.global .u32 b[2] = {1 2};\n.global .u32 c[2] = {1, 2;\n",
			[]string{`e.ptx:4:18: expected an initialiser, found ";"`, `e.ptx:5:24: expected "," or "}", found "2"`, `e.ptx:6:26: expected "," or "}", found ";"`}},
		{"declaration checks", header + ".global .u32 x[-1];\n.global .align 3 .u32 y;\n.global .foo z;\n.address_size 48\n.param .u32 p;\n",
			[]string{`e.ptx:4:16: expected a non-negative integer, found -1`, `e.ptx:5:9: expected a power of two after .align, found 3`,
				`e.ptx:6:9: expected a type such as .b32, .f32 or .pred, found .foo`, `e.ptx:7:1: expected .address_size 32 or 64, found 48`,
				`e.ptx:8:1: expected a .global, .const, .shared or .tex variable at module scope, found .param`}},
		{"parameter list", header + ".visible .entry k(\n\t.param .u64 a\n\t.param .u64 b\n)\n{\n\tret;\n}\n",
			[]string{`e.ptx:6:2: expected "," or ")", found ".param"`}},
		{"bad parameter", header + ".visible .entry k(\n\t.param .u64 a,\n\t.bogus .u64 b\n)\n{\n\tret;\n}\n",
			[]string{`e.ptx:6:2: expected a parameter declaration, found ".bogus"`}},
		{"ptr without align", header + ".func k(.param .u64 .ptr .global x) {}\n",
			[]string{`e.ptx:4:9: expected .align N in the .ptr attributes of x`}},
		{"entry with return parameters", header + ".entry (.param .b32 r) k() {}\n",
			[]string{`e.ptx:4:8: expected the kernel name after .entry, found "("`}},
		{"performance directive", header + ".visible .entry k()\n.maxntid 256, , 1\n{\n\tret;\n}\n",
			[]string{`e.ptx:5:15: expected an integer, found ","`}},
		{"unclosed body", header + ".visible .entry k()\n{\n\tret;\n",
			[]string{`e.ptx:5:1: "{" has no matching "}"`}},
		{"unclosed block", k("\t{\n\tret;"),
			[]string{`e.ptx:7:1: expected "}" to close the block opened at line 5, found the end of the function body`}},
		{"missing semicolon", k("\tadd.s32 %r1, %r2, %r3\n\tadd.s32 %r1, %r2, %r3;"),
			[]string{`e.ptx:5:23: expected "," or ";", found newline`}},
		{"missing semicolon before the closing brace", k("\tret"),
			[]string{`e.ptx:5:5: expected "," or ";", found newline`}},
		{"missing comma", k("\tst.global.f32 [%rd1], %f1 %f2;"),
			[]string{`e.ptx:5:28: expected "," or ";", found "%f2"`}},
		{"statements", k("\t.reg .b32 %r<;\n\t.reg .foo %q;\n\tld.global.f32 %f1, [%rd1;\n\tst.global.f32 [%rd1], {%f1;\n" +
			"\tcall.uni (r, f, (p);\n\t.loc 1 2\n\tret;\n\t.pragma nounroll;\n\tx: .callprototype (.param .b32 _) (.param .b32 _);\n" +
			"\t$L: .branchtargets ;\n\tmov.u32 %r1, #5;"),
			[]string{
				`e.ptx:5:15: expected an integer, found ";"`,
				`e.ptx:6:7: expected a type such as .b32, .f32 or .pred, found .foo`,
				`e.ptx:7:26: expected "]", found ";"`,
				`e.ptx:8:28: expected "," or "}", found ";"`,
				`e.ptx:9:21: expected "," or ")", found ";"`,
				`e.ptx:10:10: expected an integer, found newline`,
				`e.ptx:12:10: expected a string, found "nounroll"`,
				`e.ptx:13:36: expected "_", found "("`,
				`e.ptx:14:21: expected a name, found ";"`,
				`e.ptx:15:15: unexpected character '#'`,
			}},
		{"more statements", k("\t.weird 1;\n\tmov.u32 %r1, !5;\n\tld [%rd1+%r2];\n\tld [];\n\tadd.s32 %r1, %r2, ;\n\tbar.sync 0 0;\n\t: x;"),
			[]string{
				`e.ptx:5:2: expected a statement, found ".weird"`,
				`e.ptx:6:16: expected a name, found "5"`,
				`e.ptx:7:11: expected an integer, found "%r2"`,
				`e.ptx:8:6: expected an address, found "]"`,
				`e.ptx:9:20: expected an operand, found ";"`,
				`e.ptx:10:13: expected "," or ";", found "0"`,
				`e.ptx:11:2: expected a statement, found ":"`,
			}},
		{"literals", k("\tmov.u32 %r1, 0x;\n\tmov.u32 %r1, 99999999999999999999;\n\tmov.u32 %r1, 0f3F80000;\n\tmov.u32 %r1, \"abc;\n" +
			"\tmov.u32 %r1, %;\n\tmov.u32 %r1, 08;\n\tmov.u32 %r1, 1.5e999;\n\tmov.u32 %r1, \xff;\n\tmov.u32 %r1, .;"),
			[]string{
				`e.ptx:5:15: malformed number "0x"`,
				`e.ptx:6:15: integer literal 99999999999999999999 does not fit in 64 bits`,
				`e.ptx:7:15: malformed number "0f3F80000"`,
				`e.ptx:8:15: string literal not terminated`,
				`e.ptx:9:15: expected a register name after "%"`,
				`e.ptx:10:15: invalid digit in octal literal 08`,
				`e.ptx:11:15: floating literal 1.5e999 is out of range`,
				`e.ptx:12:15: unexpected byte 0xFF`,
				`e.ptx:13:15: malformed directive or modifier "."`,
			}},
		{"unterminated comment", k("\tret; /* no end"),
			[]string{`e.ptx:4:21: "{" has no matching "}"`, `e.ptx:5:7: comment not terminated`}},
		{"an unbalanced brace spoils one body only", header + ".entry a() {\n\tst.f32 [%rd1], {%f1;\n}\n.entry b() {\n\tret\n}\n",
			[]string{`e.ptx:5:21: expected "," or "}", found ";"`, `e.ptx:8:5: expected "," or ";", found newline`}},
		{"empty input", "", []string{"e.ptx:1:1: expected a .version directive (a PTX module begins with .version and .target), found none"}},
		{"no .version", "// just a comment\n.target sm_90\n", []string{"e.ptx:1:1: expected a .version directive (a PTX module begins with .version and .target), found none"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, errorList(t, tt.src, AllErrors))
		})
	}
}

func TestErrorLimits(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 30; i++ {
		b.WriteString("\tmov.u32 %r1 %r2; add.s32 %r1, ;\n") // two errors on each line
	}
	src := header + ".visible .entry k() {\n" + b.String() + "}\n"

	errs := errorList(t, src, 0)
	require.Len(t, errs, 10, "ten errors unless asked for all")
	for i, e := range errs {
		require.True(t, strings.HasPrefix(e, fmt.Sprintf("e.ptx:%d:14: ", 5+i)), e)
	}
	require.Len(t, errorList(t, src, AllErrors), 60, "all errors, two per line")

	// The same limits hold for ParseBody, and over a module's bodies.
	m, err := ParseLazy("e.ptx", []byte(src))
	require.NoError(t, err)
	err = m.ParseBody(m.Funcs[0])
	require.Len(t, err.(ErrorList), 10)
	require.EqualError(t, err, `e.ptx:5:14: expected "," or ";", found "%r2" (and 9 more errors)`)

	two := src + strings.Replace(src[len(header):], "entry k()", "entry k2()", 1)
	errs = errorList(t, header+two[len(header):], 0)
	require.Len(t, errs, 10)
	require.True(t, strings.HasPrefix(errs[0], "e.ptx:5:14"), errs[0])
}

func TestErrorList(t *testing.T) {
	var l ErrorList
	require.NoError(t, l.Err())
	require.Equal(t, "no errors", l.Error())
	l.Add(Pos{Filename: "b.ptx", Line: 2, Column: 1}, "second")
	l.Add(Pos{Filename: "a.ptx", Line: 9, Column: 4}, "first")
	l.Add(Pos{Filename: "b.ptx", Line: 2, Column: 5}, "same line")
	l.Add(Pos{Filename: "b.ptx", Line: 1, Column: 7}, "earlier")
	l.Sort()
	require.Equal(t, "a.ptx:9:4: first", l[0].Error())
	require.Equal(t, "b.ptx:1:7: earlier", l[1].Error())
	require.Equal(t, "a.ptx:9:4: first (and 3 more errors)", l.Error())
	l.RemoveMultiples()
	require.Len(t, l, 3)
	require.Error(t, l.Err())
	var sb strings.Builder
	PrintError(&sb, l)
	require.Equal(t, "a.ptx:9:4: first\nb.ptx:1:7: earlier\nb.ptx:2:1: second\n", sb.String())
	l.Reset()
	require.NoError(t, l.Err())
	require.Equal(t, "3:4: x", Error{Pos: Pos{Line: 3, Column: 4}, Msg: "x"}.Error())
}

// Deep nesting is an error, not a stack overflow, and many unbalanced
// braces do not make the parse quadratic.
func TestPathologicalInput(t *testing.T) {
	deep := strings.Repeat("{", 100000)
	errs := errorList(t, kernel("\tmov.b32 "+deep+"%r1;"), 0)
	require.Equal(t, []string{`e.ptx:7:266: brackets nested more than 256 deep`}, errs[:1])
	errs = errorList(t, header+".global .u32 x[1] = "+strings.Repeat("{", 300)+"1;\n", 0)
	require.Equal(t, []string{`e.ptx:4:277: brackets nested more than 256 deep`}, errs)

	start := time.Now()
	src := header + strings.Repeat(".entry a() { {\n", 20000)
	m, err := Parse("e.ptx", []byte(src))
	require.Error(t, err)
	require.NotNil(t, m)
	require.Less(t, time.Since(start), 5*time.Second)

	start = time.Now()
	_, err = Parse("e.ptx", []byte(strings.Repeat("a{", 50000)))
	require.Error(t, err)
	require.Less(t, time.Since(start), 5*time.Second)
}
