package ptx

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the printer's output")

func printString(t testing.TB, m *Module) string {
	var b bytes.Buffer
	require.NoError(t, Print(&b, m))
	return b.String()
}

// TestPrintGolden prints each testdata module and compares the text with
// testdata/NAME.golden (go test -run PrintGolden -update rewrites them).
func TestPrintGolden(t *testing.T) {
	for _, file := range testdataFiles(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			m, err := Parse(filepath.Base(file), readFile(t, file))
			require.NoError(t, err)
			got := printString(t, m)
			golden := strings.TrimSuffix(file, ".ptx") + ".golden"
			if *update {
				require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
				return
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "run go test -run PrintGolden -update to create it")
			require.Equal(t, string(want), got)
		})
	}
}

// TestPrintRoundTrip checks parse -> print -> parse gives the same tree,
// and that printing is a fixed point after one round.
func TestPrintRoundTrip(t *testing.T) {
	for _, file := range testdataFiles(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			m1, err := Parse(file, readFile(t, file))
			require.NoError(t, err)
			text := printString(t, m1)
			m2, err := Parse(file, []byte(text))
			require.NoError(t, err, text)
			require.Equal(t, dump(t, m1), dump(t, m2))
			require.Equal(t, text, printString(t, m2))
		})
	}
}

// A body not parsed yet is printed from the source, verbatim.
func TestPrintLazy(t *testing.T) {
	src := readFile(t, "testdata/fib_calls.ptx")
	full, err := Parse("f.ptx", src)
	require.NoError(t, err)
	m, err := ParseLazy("f.ptx", src)
	require.NoError(t, err)
	text := printString(t, m)
	require.Contains(t, text, "\t{ // callseq 0, 0\n\t.reg .b32 temp_param_reg;", "comments survive in raw bodies")
	again, err := Parse("f.ptx", []byte(text))
	require.NoError(t, err)
	require.Equal(t, dump(t, full), dump(t, again))
}

// A tree built by hand prints as PTX that parses back to it.
func TestPrintConstructed(t *testing.T) {
	m := &Module{
		Version: "8.5", Target: []string{"sm_90"}, AddressSize: 64,
		Vars: []*VarDecl{{Space: ".global", Align: 4, Type: ".f32", Name: "g", Dims: []int64{2}, HasInit: true,
			Init: []*InitElem{{Kind: InitFloat, Float: f32bits(1)}, {Kind: InitFloat, Float: f32bits(-2)}}}},
		Funcs: []*Function{{
			Linkage: ".visible", Entry: true, Name: "k", HasBody: true,
			Params: []*Param{{Space: ".param", Type: ".u64", Name: "p", ArrayLen: -1}},
			Body: []*Statement{
				{Reg: &RegDecl{Type: ".b32", Names: []*RegName{{Name: "%r", Count: 3}}}},
				{Inst: &Instruction{Opcode: "ld", Mods: []string{".param", ".u64"},
					Operands: []*Operand{name("%rd1"), addr("p", 0)}}},
				{Label: "$L1"},
				{Inst: &Instruction{Guard: &Guard{Reg: "%p1", Neg: true}, Opcode: "bra", Operands: []*Operand{name("$L1")}}},
				{Inst: &Instruction{Opcode: "ret"}},
			},
		}},
	}
	text := printString(t, m)
	require.Equal(t, `.version 8.5
.target sm_90
.address_size 64

.global .align 4 .f32 g[2] = {0f3F800000, 0fC0000000};

.visible .entry k(
	.param .u64 p
)
{
	.reg .b32 	%r<3>;
	ld.param.u64 	%rd1, [p];
$L1:
	@!%p1 bra 	$L1;
	ret;
}
`, text)
	back, err := Parse("", []byte(text))
	require.NoError(t, err)
	require.Equal(t, dump(t, m), dump(t, back))
}

type failWriter struct{ n int }

func (w *failWriter) Write(b []byte) (int, error) {
	if w.n -= len(b); w.n < 0 {
		return 0, errors.New("disk full")
	}
	return len(b), nil
}

func TestPrintWriteError(t *testing.T) {
	m, err := Parse("f.ptx", synthModule(256<<10))
	require.NoError(t, err)
	require.EqualError(t, Print(&failWriter{n: 100 << 10}, m), "disk full")
}
