package sanitize

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ptxSource reads the inlined-at locations of a module's .loc directives
// from its PTX file, which the lowered instructions do not keep: an
// instruction of an inlined function (__syncwarp, atomicAdd from the CUDA
// headers) is reported at the line that called it, as compute-sanitizer's
// "inlined from" frame names it.
type ptxSource struct {
	loaded bool
	files  map[int]string
	// inl maps a PTX line to the inlined-at location of the .loc in
	// force there ("" when that .loc is not inlined).
	inl []string
}

func (p *ptxSource) load(path string) {
	p.loaded = true
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	p.files = map[int]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	cur := ""
	p.inl = append(p.inl, "") // line 0
	type pending struct{ file, line int }
	var todo []pending
	for sc.Scan() {
		t := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(t, ".file"):
			fs := strings.Fields(t)
			if len(fs) >= 3 {
				if n, err := strconv.Atoi(fs[1]); err == nil {
					name := strings.Trim(fs[2], `",`)
					p.files[n] = name
				}
			}
		case strings.HasPrefix(t, ".loc"):
			cur = ""
			if i := strings.Index(t, "inlined_at"); i >= 0 {
				fs := strings.Fields(t[i+len("inlined_at"):])
				if len(fs) >= 2 {
					fn, e1 := strconv.Atoi(fs[0])
					ln, e2 := strconv.Atoi(strings.TrimSuffix(fs[1], ","))
					if e1 == nil && e2 == nil {
						todo = append(todo, pending{fn, ln})
						cur = fmt.Sprintf("\x00%d", len(todo)-1)
					}
				}
			}
		}
		p.inl = append(p.inl, cur)
	}
	// .file lines come after the code in nvcc's output: resolve names now.
	for i, s := range p.inl {
		if strings.HasPrefix(s, "\x00") {
			k, _ := strconv.Atoi(s[1:])
			name := p.files[todo[k].file]
			if name == "" {
				name = "file" + strconv.Itoa(todo[k].file)
			}
			p.inl[i] = fmt.Sprintf("%s:%d", name, todo[k].line)
		}
	}
}

// inlinedAt is the call site of the inlined code at PTX line n, or "".
func (p *ptxSource) inlinedAt(path string, n int) string {
	if !p.loaded {
		p.load(path)
	}
	if n <= 0 || n >= len(p.inl) {
		return ""
	}
	return p.inl[n]
}
