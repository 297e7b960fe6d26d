package ptx

import (
	"sort"
	"strings"
)

// SourceLines returns the text of the given 1-based lines of the module's
// source, trimmed of surrounding space, in one pass over the source (a
// report quoting its instructions asks for all its lines at once). Lines
// beyond the source are left out.
func (m *Module) SourceLines(lines ...int) map[int]string {
	out := make(map[int]string, len(lines))
	if len(lines) == 0 {
		return out
	}
	want := append([]int(nil), lines...)
	sort.Ints(want)
	src := m.src
	line, start, k := 1, 0, 0
	for k < len(want) && want[k] < 1 {
		k++
	}
	for k < len(want) && start <= len(src) {
		end := strings.IndexByte(src[start:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += start
		}
		for k < len(want) && want[k] == line {
			out[line] = strings.TrimSpace(src[start:end])
			k++
		}
		line++
		start = end + 1
	}
	return out
}
