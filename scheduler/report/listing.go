package report

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ptxvm/ptxvm/vm"
)

// ListingLine is one line of the kernel's PTX, for a source view: the
// entry's and each function's it calls, from the declaration to the closing
// brace, without blank lines and .loc directives (the CUDA line they give
// is on the instructions after them).
type ListingLine struct {
	// Line is the line in the PTX file, Text its text (trimmed).
	Line int    `json:"line"`
	Text string `json:"text"`
	// Insts are the ids of the instructions on the line (usually one;
	// none for labels, declarations and braces). Those that accessed
	// memory are in Report.Insts.
	Insts []int32 `json:"instructions,omitempty"`
	// CUDA is the CUDA source line of its instructions ("matmul.cu:16"),
	// from .loc.
	CUDA string `json:"cuda_line,omitempty"`
	// Func starts a function: its name on the line that declares it.
	Func string `json:"func,omitempty"`
}

// listing builds the PTX listing of kernel k and the CUDA files its .loc
// directives name (as recorded, usually absolute paths on the machine
// that ran nvcc).
func listing(k *vm.Kernel, src func(lines ...int) map[int]string, decl map[string]int) ([]ListingLine, []string) {
	type span struct {
		name        string
		first, last int
		insts       map[int][]int32
		cuda        map[int]string
	}
	var spans []*span
	byFunc := map[*vm.Func]*span{}
	files := map[string]bool{}
	for _, info := range k.Insts {
		sp := byFunc[info.Func]
		if sp == nil {
			sp = &span{name: info.Func.Name, first: int(info.Line), last: int(info.Line), insts: map[int][]int32{}, cuda: map[int]string{}}
			if d, ok := decl[info.Func.Name]; ok && d > 0 && d <= sp.first {
				sp.first = d
			}
			byFunc[info.Func] = sp
			spans = append(spans, sp)
		}
		ln := int(info.Line)
		sp.first, sp.last = min(sp.first, ln), max(sp.last, ln)
		sp.insts[ln] = append(sp.insts[ln], info.ID)
		if loc, ok := info.Source(); ok {
			sp.cuda[ln] = fmt.Sprintf("%s:%d", filepath.Base(loc.File), loc.Line)
			files[loc.File] = true
		}
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].first < spans[j].first })
	var want []int
	for _, sp := range spans {
		// The closing brace follows the last instruction, within a few
		// lines (a label, a .loc, a comment).
		for l := sp.first; l <= sp.last+8; l++ {
			want = append(want, l)
		}
	}
	text := src(want...)
	var out []ListingLine
	for _, sp := range spans {
		for l := sp.first; l <= sp.last+8; l++ {
			t, ok := text[l]
			if !ok {
				break
			}
			if l > sp.last && t == "}" {
				out = append(out, ListingLine{Line: l, Text: t})
				break
			}
			if l > sp.last && (strings.HasPrefix(t, ".entry") || strings.HasPrefix(t, ".func") || strings.HasPrefix(t, ".visible")) {
				break // no brace found before the next function
			}
			if t == "" || strings.HasPrefix(t, ".loc") {
				continue
			}
			ll := ListingLine{Line: l, Text: t, Insts: sp.insts[l], CUDA: sp.cuda[l]}
			if l == sp.first {
				ll.Func = sp.name
			}
			out = append(out, ll)
		}
	}
	var names []string
	for f := range files {
		names = append(names, f)
	}
	sort.Strings(names)
	return out, names
}
