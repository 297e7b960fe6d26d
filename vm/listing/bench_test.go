package listing_test

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/ptxvm/ptxvm/ptx"
	"github.com/ptxvm/ptxvm/vm"
	"github.com/ptxvm/ptxvm/vm/listing"
)

// bigModule replicates the kernels of the nvcc-compiled matmul module, each
// copy renamed, into a module of about 10 MB, as real libraries ship.
func bigModule(tb testing.TB) ([]byte, []string) {
	src, err := os.ReadFile("../../testdata/nvcc/ptx/matmul.O3.ptx")
	if err != nil {
		tb.Fatal(err)
	}
	s := string(src)
	i := strings.Index(s, ".address_size 64\n") + len(".address_size 64\n")
	head, body := s[:i], s[i:]
	names := []string{"_Z12matmul_naivePfPKfS1_j", "_Z12matmul_tiledPfPKfS1_j", "_Z16matmul_naive_f64PdPKdS1_j"}
	var b bytes.Buffer
	b.WriteString(head)
	var entries []string
	for n := 0; b.Len() < 10<<20; n++ {
		c := body
		for _, name := range names {
			c = strings.ReplaceAll(c, name, fmt.Sprintf("%s_%d", name, n))
			entries = append(entries, fmt.Sprintf("%s_%d", name, n))
		}
		b.WriteString(c)
	}
	return b.Bytes(), entries
}

// BenchmarkListLargeModule loads a 10 MB module and describes every one of
// its kernels, with no body parsed.
func BenchmarkListLargeModule(b *testing.B) {
	src, entries := bigModule(b)
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m, err := vm.NewDevice().LoadModule("big.ptx", src)
		if err != nil {
			b.Fatal(err)
		}
		for _, e := range m.EntryNames() {
			if _, err := listing.Kernel(m, e); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(len(entries)), "kernels")
}

// BenchmarkListLargeModuleParsed is what `ptxrun FILE.ptx` does: every
// body parsed (so that a malformed module is reported, not listed), then
// every kernel described.
func BenchmarkListLargeModuleParsed(b *testing.B) {
	src, entries := bigModule(b)
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ast, err := ptx.ParseMode("big.ptx", src, ptx.AllErrors)
		if err != nil {
			b.Fatal(err)
		}
		m, err := vm.NewDevice().LoadAST("big.ptx", ast)
		if err != nil {
			b.Fatal(err)
		}
		for _, e := range m.EntryNames() {
			if _, err := listing.Kernel(m, e); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(len(entries)), "kernels")
}
