package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/ptxvm/ptxvm/ptx"
	"github.com/ptxvm/ptxvm/ptx/demangle"
	"github.com/ptxvm/ptxvm/vm"
	"github.com/ptxvm/ptxvm/vm/listing"
)

func cmdList(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("list", `Usage: ptxrun FILE.ptx [flags]   (or: ptxrun list FILE.ptx)

Lists each kernel (.entry) of a PTX module: its C++ signature (demangled),
its parameters in PTX and C++, and the resources the PTX declares: virtual
registers by type, static shared memory, the local-memory depot, the
constant bank, and performance directives. These are PTX-level figures;
ptxas allocates physical registers itself. A malformed module is reported
error by error (the first ten, then how many more) and exits 2.`, stderr)
	asJSON := fs.Bool("json", false, "print JSON")
	only := fs.String("kernel", "", "describe only the kernel `NAME` (mangled, C++ name or signature, or a unique part of one)")
	check := fs.Bool("check", false, "also lower every kernel, reporting what this emulator cannot run")
	headers := fs.Bool("headers", false, "list from the declarations alone, without parsing the bodies: fast for modules of many megabytes, but errors inside bodies go unreported")
	pos, err := parseFlags(fs, args, stdout)
	if err != nil {
		return usageErr(err)
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "ptxrun: give exactly one PTX file")
		fs.Usage()
		return exitUsage
	}
	src, err := os.ReadFile(pos[0])
	if err != nil {
		fmt.Fprintln(stderr, "ptxrun:", err)
		return exitUsage
	}
	// Every body is parsed: a listing of a module that does not parse
	// would be a lie.
	mode := ptx.AllErrors
	if *headers {
		mode |= ptx.Lazy
	}
	ast, err := ptx.ParseMode(pos[0], src, mode)
	if err == nil {
		err = ast.CheckOpcodes()
	}
	if err != nil {
		printErrors(stderr, err)
		return exitUsage
	}
	dev := vm.NewDevice()
	m, err := dev.LoadAST(pos[0], ast)
	if err != nil {
		printErrors(stderr, err)
		return exitUsage
	}
	names := m.EntryNames()
	if *only != "" {
		k, err := listing.Resolve(names, *only)
		if err != nil {
			fmt.Fprintf(stderr, "ptxrun: %s: %v\n", pos[0], err)
			return exitUsage
		}
		names = []string{k}
	}
	var infos []*listing.KernelInfo
	failed := false
	for _, n := range names {
		ki, err := listing.Kernel(m, n)
		if err != nil {
			ptx.PrintError(stderr, err)
			return exitUsage
		}
		infos = append(infos, ki)
		if *check {
			if _, err := m.Kernel(n); err != nil {
				ptx.PrintError(stderr, err)
				failed = true
			}
		}
	}
	defer func() {
		if failed {
			fmt.Fprintln(stderr, "ptxrun: some kernels cannot run here (see above)")
		}
	}()
	if *asJSON {
		type param struct {
			Name   string `json:"name"`
			Type   string `json:"type"`
			CType  string `json:"ctype,omitempty"`
			Offset uint64 `json:"offset"`
			Size   uint64 `json:"size"`
		}
		type kernel struct {
			Name         string             `json:"name"`
			Signature    string             `json:"signature,omitempty"`
			Params       []param            `json:"params"`
			Registers    map[string]int     `json:"registers"`
			SharedStatic uint64             `json:"shared_static_bytes"`
			Local        uint64             `json:"local_bytes"`
			Const        uint64             `json:"const_bytes"`
			Callees      []string           `json:"callees,omitempty"`
			Instructions int                `json:"ptx_instructions"`
			Directives   map[string][]int64 `json:"directives,omitempty"`
		}
		var out []kernel
		for _, ki := range infos {
			k := kernel{Name: ki.Name, Signature: demangledOrEmpty(ki.Name), Registers: map[string]int{}, SharedStatic: ki.SharedStatic, Local: ki.LocalBytes,
				Const: ki.ConstBytes, Callees: ki.Callees, Instructions: ki.Instructions, Directives: ki.Perf}
			ctypes := paramCTypes(ki)
			for i, p := range ki.Params {
				k.Params = append(k.Params, param{p.Name, p.Type.String(), ctypes[i], p.Offset, p.Size})
			}
			for _, r := range ki.Registers {
				k.Registers[r.Type.String()] = r.Count
			}
			out = append(out, k)
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(struct {
			Module  string   `json:"module"`
			Version string   `json:"ptx_version"`
			Target  []string `json:"target"`
			Kernels []kernel `json:"kernels"`
		}{pos[0], m.AST.Version, m.AST.Target, out})
		if failed {
			return exitFail
		}
		return exitOK
	}
	fmt.Fprintf(stdout, "%s: PTX %s, target %s, %d-bit addresses, %d kernel(s)\n", pos[0], m.AST.Version, strings.Join(m.AST.Target, ","), m.AST.AddressSize, len(names))
	for _, ki := range infos {
		fmt.Fprintf(stdout, "\n%s\n", ki.Name)
		if sig := demangledOrEmpty(ki.Name); sig != "" {
			fmt.Fprintf(stdout, "  %s\n", sig)
		}
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		ctypes := paramCTypes(ki)
		var ps []string
		for i, p := range ki.Params {
			s := fmt.Sprintf("%s %s", p.Type, p.Name)
			if p.Array >= 0 {
				s = fmt.Sprintf(".b8 %s[%d]", p.Name, p.Size)
			}
			if ctypes[i] != "" {
				// nvcc names parameters after the kernel: the C++ type says more.
				s = fmt.Sprintf("%s %s", strings.Fields(s)[0], ctypes[i])
				if p.Array >= 0 {
					s = fmt.Sprintf(".b8[%d] %s", p.Size, ctypes[i])
				}
			}
			ps = append(ps, s)
		}
		fmt.Fprintf(tw, "  params\t%d (%d bytes)\t%s\n", len(ki.Params), ki.ParamBytes, strings.Join(ps, ", "))
		var rs []string
		total := 0
		for _, r := range ki.Registers {
			rs = append(rs, fmt.Sprintf("%d %s", r.Count, r.Type))
			total += r.Count
		}
		fmt.Fprintf(tw, "  registers\t%d declared\t%s\n", total, strings.Join(rs, ", "))
		fmt.Fprintf(tw, "  shared\t%d bytes\tstatic\n", ki.SharedStatic)
		fmt.Fprintf(tw, "  local\t%d bytes\tdepot of the entry\n", ki.LocalBytes)
		fmt.Fprintf(tw, "  const\t%d bytes\tmodule constant bank\n", ki.ConstBytes)
		fmt.Fprintf(tw, "  instructions\t%d\tPTX, entry and callees\n", ki.Instructions)
		if len(ki.Callees) > 0 {
			fmt.Fprintf(tw, "  calls\t%d\t%s\n", len(ki.Callees), strings.Join(ki.Callees, ", "))
		}
		for _, name := range slices.Sorted(maps.Keys(ki.Perf)) {
			var vs []string
			for _, v := range ki.Perf[name] {
				vs = append(vs, strconv.FormatInt(v, 10))
			}
			fmt.Fprintf(tw, "  %s\t%s\t\n", name, strings.Join(vs, ", "))
		}
		tw.Flush()
	}
	if failed {
		return exitFail
	}
	return exitOK
}

// paramCTypes returns the C++ type of each parameter of a kernel with a
// mangled name ("" each when unknown).
func paramCTypes(ki *listing.KernelInfo) []string {
	out := make([]string, len(ki.Params))
	if _, ps, err := demangle.Signature(ki.Name); err == nil && len(ps) == len(out) {
		copy(out, ps)
	}
	return out
}
