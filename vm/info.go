package vm

import (
	"sort"
)

// KernelInfo describes a kernel as `ptxas -v` would, from what the PTX
// declares: parameters, registers by type, shared, local and constant bytes.
type KernelInfo struct {
	Name         string
	Params       []ParamSlot
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
	Type  Type
	Count int
}

// Info lowers the kernel (once) and describes it.
func (m *Module) Info(name string) (*KernelInfo, error) {
	k, err := m.Kernel(name)
	if err != nil {
		return nil, err
	}
	ki := &KernelInfo{Name: name, Params: k.Params, ParamBytes: k.ParamSize, SharedStatic: k.SharedStatic,
		LocalBytes: k.Entry.LocalSize, ConstBytes: m.constSize, Perf: k.Perf}
	for t, n := range k.Entry.RegCount {
		ki.Registers = append(ki.Registers, RegClass{t, n})
	}
	sort.Slice(ki.Registers, func(i, j int) bool { return ki.Registers[i].Type < ki.Registers[j].Type })
	for _, f := range k.Funcs {
		ki.Instructions += len(f.Code) - 1 // minus the implicit final exit/ret
		if f != k.Entry {
			ki.Callees = append(ki.Callees, f.Name)
		}
	}
	return ki, nil
}
