package listing

import (
	"sort"

	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/ptx"
	"github.com/ptxvm/ptxvm/vm"
)

// KernelInfo describes a kernel as `ptxas -v` would, from what the PTX
// declares: parameters, registers by type, shared, local and constant bytes.
type KernelInfo struct {
	Name         string
	Params       []vm.ParamSlot
	ParamBytes   uint64
	Registers    []RegClass // declared registers of the entry, by type
	SharedStatic uint64     // static shared memory of the kernel
	LocalBytes   uint64     // local depot of the entry (callees add their own frames)
	ConstBytes   uint64     // the module's constant bank in use
	Callees      []string   // functions reachable from the entry
	Instructions int        // PTX instructions in the entry and its callees
	Perf         map[string][]int64
}

// RegClass is a count of declared registers of one type.
type RegClass struct {
	Type  vm.Type
	Count int
}

// Kernel describes kernel name of m from a token scan of its body and of the
// bodies it calls, without parsing or lowering them: listing every kernel of
// a large module costs about as much as reading it once. vm.Module.Kernel
// lowers and checks the code itself.
func Kernel(m *vm.Module, name string) (*KernelInfo, error) {
	fn, err := m.EntryDecl(name)
	if err != nil {
		return nil, err
	}
	ki := &KernelInfo{Name: name, ConstBytes: m.ConstBytes(), Perf: map[string][]int64{}}
	for _, p := range fn.Perf {
		ki.Perf[p.Name] = p.Values
	}
	var off uint64
	for _, p := range fn.Params {
		slot, err := vm.ParamLayout(p)
		if err != nil {
			return nil, &ptx.Error{Pos: p.Pos, Msg: err.Error()}
		}
		off = alignUp(off, slot.Align)
		slot.Offset = off
		off += slot.Size
		ki.Params = append(ki.Params, slot)
	}
	ki.ParamBytes = off
	// The entry and every function it can reach.
	order := []*ptx.Function{fn}
	seen := map[string]bool{name: true}
	usedShared := map[*vm.Symbol]bool{}
	var sharedVars []*ptx.VarDecl
	for i := 0; i < len(order); i++ {
		f := order[i]
		d := m.AST.ScanDecls(f)
		ki.Instructions += d.Instructions
		if i == 0 {
			for t, n := range d.Regs {
				if ty, ok := vm.ParseType(t); ok {
					ki.Registers = append(ki.Registers, RegClass{ty, n})
				}
			}
		}
		for _, v := range d.Vars {
			switch v.Space {
			case ".shared":
				sharedVars = append(sharedVars, v)
			case ".local":
				if i == 0 {
					size, align, _, err := vm.VarLayout(v)
					if err == nil {
						ki.LocalBytes = alignUp(ki.LocalBytes, align) + size
					}
				}
			}
		}
		for n := range d.Names {
			if s := m.LookupSymbol(n); s != nil && s.Space == memspace.Shared {
				usedShared[s] = true
			}
			if cf := m.FuncDecl(n); cf != nil && !cf.Entry && cf.HasBody && !seen[n] {
				seen[n] = true
				order = append(order, cf)
				ki.Callees = append(ki.Callees, n)
			}
		}
	}
	sort.Slice(ki.Registers, func(i, j int) bool { return ki.Registers[i].Type < ki.Registers[j].Type })
	var sh uint64
	for _, s := range m.Symbols() {
		if usedShared[s] && !s.Dynamic {
			sh = alignUp(sh, s.Align) + s.Size
		}
	}
	for _, v := range sharedVars {
		if size, align, _, err := vm.VarLayout(v); err == nil && size > 0 {
			sh = alignUp(sh, align) + size
		}
	}
	ki.SharedStatic = sh
	return ki, nil
}

func alignUp(x, a uint64) uint64 {
	if a <= 1 {
		return x
	}
	return (x + a - 1) &^ (a - 1)
}
