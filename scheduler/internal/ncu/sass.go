package ncu

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/vm"
)

// MemOps counts a kernel's memory instructions by group ("global ld",
// "shared st", "generic ld", "tex", ...) and access width in bytes (0 for
// atomics and textures, whose width the comparison ignores).
type MemOps map[string]map[int]int

func (m MemOps) add(group string, width int) {
	if m[group] == nil {
		m[group] = map[int]int{}
	}
	m[group][width]++
}

// Same reports whether a and b hold the same instructions of group.
func Same(a, b MemOps, group string) bool {
	x, y := a[group], b[group]
	if len(x) != len(y) {
		return false
	}
	for w, n := range x {
		if y[w] != n {
			return false
		}
	}
	return true
}

// PTXOps counts the memory instructions of kernel k and every function it
// can call, as lowered.
func PTXOps(k *vm.Kernel) MemOps {
	m := MemOps{}
	for _, f := range k.Funcs {
		for i := range f.Code {
			in := &f.Code[i]
			var space string
			switch in.Space {
			case memspace.Global:
				space = "global"
			case memspace.Shared:
				space = "shared"
			case memspace.Local:
				space = "local"
			case memspace.Generic:
				space = "generic"
			}
			width := in.T.Size() * max(1, int(in.Vec))
			switch in.Op {
			case vm.OpLd:
				if space != "" {
					m.add(space+" ld", width)
				}
			case vm.OpSt:
				if space != "" {
					m.add(space+" st", width)
				}
			case vm.OpAtom:
				// red (no destination) is RED in the machine code; an atom
				// whose result is unused, too (ptxas turns it into RED).
				if space == "global" && in.D == vm.NoReg {
					m.add("global red", 0)
				} else if space != "" {
					m.add(space+" atom", 0)
				}
			case vm.OpTex:
				m.add("tex", 0)
			}
		}
	}
	return m
}

// SASSOps counts the memory instructions of the named functions' sections
// (.text.<name>) of an nvdisasm listing (a .sass file, or .sass.gz).
func SASSOps(path string, funcs []string) (MemOps, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var in io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		z, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		defer z.Close()
		in = z
	}
	want := map[string]bool{}
	for _, fn := range funcs {
		want[".text."+fn+":"] = true
	}
	m := MemOps{}
	found := 0
	inside := false
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "//---") {
			inside = false
			continue
		}
		if want[line] {
			inside = true
			found++
			continue
		}
		if !inside || !strings.HasPrefix(line, "/*") {
			continue
		}
		// /*0230*/  @!P0 LDG.E.64 R15, desc[UR6][R4.64] ;
		i := strings.Index(line, "*/")
		if i < 0 {
			continue
		}
		fields := strings.Fields(line[i+2:])
		if len(fields) > 0 && strings.HasPrefix(fields[0], "@") {
			fields = fields[1:]
		}
		if len(fields) == 0 {
			continue
		}
		parts := strings.Split(fields[0], ".")
		group := map[string]string{
			"LDG": "global ld", "STG": "global st", "LDL": "local ld", "STL": "local st",
			"LDS": "shared ld", "STS": "shared st", "LD": "generic ld", "ST": "generic st",
			"ATOMG": "global atom", "RED": "global red", "REDG": "global red", "ATOMS": "shared atom", "ATOM": "generic atom",
			"TEX": "tex", "TLD": "tex", "TLD4": "tex", "TXD": "tex",
		}[parts[0]]
		if group == "" {
			continue
		}
		for _, p := range parts[1:] {
			if p == "CAS" {
				m.add("cas", 0) // a compare-and-swap (loop)
			}
		}
		width := 4
		for _, p := range parts[1:] {
			switch p {
			case "64":
				width = 8
			case "128":
				width = 16
			case "U8", "S8":
				width = 1
			case "U16", "S16":
				width = 2
			}
		}
		if strings.HasSuffix(group, "atom") || strings.HasSuffix(group, "red") || group == "tex" {
			width = 0
		}
		m.add(group, width)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if found == 0 {
		return nil, fmt.Errorf("%s: no section of %v", path, funcs)
	}
	return m, nil
}

// SASSPath is the nvdisasm listing of the module a spec loads
// (testdata/<corpus>/sass/<module>.<variant>.sass or .sass.gz).
func SASSPath(modulePath string) string {
	base := strings.TrimSuffix(filepath.Base(modulePath), ".ptx")
	dir := filepath.Join(filepath.Dir(filepath.Dir(modulePath)), "sass")
	p := filepath.Join(dir, base+".sass")
	if _, err := os.Stat(p); err == nil {
		return p
	}
	return p + ".gz"
}
