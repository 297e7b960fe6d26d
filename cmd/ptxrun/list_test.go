package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// listJSONOut is the JSON that `ptxrun FILE.ptx --json` prints.
type listJSONOut struct {
	Module  string   `json:"module"`
	Version string   `json:"ptx_version"`
	Target  []string `json:"target"`
	Kernels []struct {
		Name      string `json:"name"`
		Signature string `json:"signature"`
		Params    []struct {
			Name   string `json:"name"`
			Type   string `json:"type"`
			CType  string `json:"ctype"`
			Offset uint64 `json:"offset"`
			Size   uint64 `json:"size"`
		} `json:"params"`
		Registers    map[string]int     `json:"registers"`
		SharedStatic uint64             `json:"shared_static_bytes"`
		Local        uint64             `json:"local_bytes"`
		Const        uint64             `json:"const_bytes"`
		Callees      []string           `json:"callees"`
		Instructions int                `json:"ptx_instructions"`
		Directives   map[string][]int64 `json:"directives"`
	} `json:"kernels"`
}

func listJSON(t *testing.T, args ...string) listJSONOut {
	t.Helper()
	r := ptxrun(t, append(args, "--json")...)
	require.Equal(t, exitOK, r.code, r.stderr)
	var l listJSONOut
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &l), r.stdout)
	return l
}

const (
	transposeNaive  = "_Z15transpose_naivePfPKfjj"
	transposeShared = "_Z16transpose_sharedPfPKfjj"
	transposePadded = "_Z16transpose_paddedPfPKfjj"
)

func TestListText(t *testing.T) {
	file := filepath.Join(nvccDir, "ptx", "transpose.O3.ptx")
	for _, args := range [][]string{{file}, {"list", file}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			r := ptxrun(t, args...)
			require.Equal(t, exitOK, r.code, r.stderr)
			assert.Empty(t, r.stderr)
			out := r.stdout
			assert.Contains(t, out, "PTX 9.0, target sm_90, 64-bit addresses, 3 kernel(s)")
			for _, k := range []string{transposeNaive, transposeShared, transposePadded} {
				assert.Contains(t, out, "\n"+k+"\n")
			}
			// Each kernel's C++ signature under its mangled name, and its
			// parameters in PTX and C++.
			for _, sig := range []string{"transpose_naive", "transpose_shared", "transpose_padded"} {
				assert.Contains(t, out, "\n  "+sig+"(float*, float const*, unsigned int, unsigned int)\n")
				assert.Regexp(t, `params\s+4 \(24 bytes\)\s+\.u64 float\*, \.u64 float const\*, \.u32 unsigned int, \.u32 unsigned int\n`, out)
			}
			assert.Regexp(t, `params\s+4 \(24 bytes\)`, out)
			assert.Regexp(t, `registers\s+62 declared\s+23 \.b32, 21 \.b64, 5 \.f32, 13 \.pred`, out)
			assert.Regexp(t, `shared\s+4096 bytes\s+static`, out)
			assert.Regexp(t, `shared\s+4224 bytes\s+static`, out)
			assert.Regexp(t, `local\s+0 bytes`, out)
			assert.Regexp(t, `const\s+0 bytes`, out)
			assert.Regexp(t, `instructions\s+\d+\s+PTX`, out)
		})
	}
}

func TestListKernelFilter(t *testing.T) {
	file := filepath.Join(nvccDir, "ptx", "transpose.O3.ptx")
	r := ptxrun(t, file, "--kernel", transposePadded)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "1 kernel(s)")
	assert.Contains(t, r.stdout, transposePadded)
	assert.NotContains(t, r.stdout, transposeNaive)
	assert.NotContains(t, r.stdout, transposeShared)
	assert.Regexp(t, `shared\s+4224 bytes`, r.stdout)

	// Flags before the file work too.
	l := listJSON(t, "--kernel", transposeShared, file)
	require.Len(t, l.Kernels, 1)
	assert.Equal(t, transposeShared, l.Kernels[0].Name)
	assert.EqualValues(t, 4096, l.Kernels[0].SharedStatic)

	r = ptxrun(t, file, "--kernel", "nosuch")
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, `no kernel matches "nosuch"`)
	assert.Contains(t, r.stderr, "transpose_naive(float*, float const*, unsigned int, unsigned int)  ("+transposeNaive+")", "the message lists the entries there are")

	// Kernels by the names people use.
	for _, name := range []string{"transpose_padded", "padded", "transpose_padded(float*, float const*, unsigned int, unsigned int)"} {
		l := listJSON(t, file, "--kernel", name)
		require.Len(t, l.Kernels, 1, name)
		assert.Equal(t, transposePadded, l.Kernels[0].Name, name)
		assert.Equal(t, "transpose_padded(float*, float const*, unsigned int, unsigned int)", l.Kernels[0].Signature)
		assert.Equal(t, "float const*", l.Kernels[0].Params[1].CType)
	}
	r = ptxrun(t, file, "--kernel", "transpose")
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, `"transpose" names 3 kernels; give the signature or the mangled name:`)
}

func TestListJSON(t *testing.T) {
	l := listJSON(t, filepath.Join(nvccDir, "ptx", "transpose.O3.ptx"))
	assert.Equal(t, "9.0", l.Version)
	assert.Equal(t, []string{"sm_90"}, l.Target)
	require.Len(t, l.Kernels, 3)
	k := l.Kernels[0]
	assert.Equal(t, transposeNaive, k.Name)
	require.Len(t, k.Params, 4)
	for i, want := range []struct {
		typ          string
		offset, size uint64
	}{{".u64", 0, 8}, {".u64", 8, 8}, {".u32", 16, 4}, {".u32", 20, 4}} {
		p := k.Params[i]
		assert.Equal(t, k.Name+"_param_"+strconv.Itoa(i), p.Name)
		assert.Equal(t, want.typ, p.Type)
		assert.Equal(t, want.offset, p.Offset)
		assert.Equal(t, want.size, p.Size)
	}
	assert.Equal(t, map[string]int{".b32": 23, ".b64": 21, ".f32": 5, ".pred": 13}, k.Registers)
	assert.Positive(t, k.Instructions)
}

// TestListAgainstPtxas checks the figures the listing reports for every
// kernel of the nvcc corpus: static shared memory against what `ptxas -v`
// said (testdata/nvcc/ptxas), and the declared registers and local depot,
// which ptxas does not report (it allocates its own), against the PTX's
// declarations.
func TestListAgainstPtxas(t *testing.T) {
	mods, err := filepath.Glob(filepath.Join(nvccDir, "ptx", "*.ptx"))
	require.NoError(t, err)
	require.NotEmpty(t, mods)
	checked, withShared, withLocal := 0, 0, 0
	for _, mod := range mods {
		base := strings.TrimSuffix(filepath.Base(mod), ".ptx")
		t.Run(base, func(t *testing.T) {
			ptxas := readPtxas(t, filepath.Join(nvccDir, "ptxas", base+".txt"))
			src, err := os.ReadFile(mod)
			require.NoError(t, err)
			decl := entryDecls(string(src))
			l := listJSON(t, mod)
			require.Len(t, l.Kernels, len(ptxas), "entries of %s", base)
			for _, k := range l.Kernels {
				pk, ok := ptxas[k.Name]
				require.True(t, ok, "ptxas compiled no entry %s", k.Name)
				assert.Equal(t, pk.smem, k.SharedStatic, "%s: static shared bytes", k.Name)
				d := decl[k.Name]
				require.NotNil(t, d, "no .entry %s in the PTX", k.Name)
				assert.Equal(t, d.regs, k.Registers, "%s: declared registers", k.Name)
				assert.Equal(t, d.depot, k.Local, "%s: local depot", k.Name)
				checked++
				if k.SharedStatic > 0 {
					withShared++
				}
				if k.Local > 0 {
					withLocal++
				}
			}
		})
	}
	// The corpus exercises both, so the comparison means something.
	assert.Greater(t, checked, 100)
	assert.Greater(t, withShared, 10)
	assert.Greater(t, withLocal, 3)
}

// ptxasEntry is what `ptxas -v` reported for an entry that the listing
// also reports: its static shared memory. (Its register count is of
// physical registers, which the listing does not claim.)
type ptxasEntry struct {
	smem uint64
}

var (
	ptxasEntryRE = regexp.MustCompile(`Compiling entry function '([^']+)'`)
	ptxasUsedRE  = regexp.MustCompile(`Used \d+ registers`)
	ptxasSmemRE  = regexp.MustCompile(`(\d+) bytes smem`)
)

// readPtxas reads the entries of a `ptxas -v` report.
func readPtxas(t *testing.T, path string) map[string]ptxasEntry {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	out := map[string]ptxasEntry{}
	cur := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if m := ptxasEntryRE.FindStringSubmatch(line); m != nil {
			cur = m[1]
			continue
		}
		if ptxasUsedRE.MatchString(line) && cur != "" {
			e := ptxasEntry{}
			if s := ptxasSmemRE.FindStringSubmatch(line); s != nil {
				e.smem, _ = strconv.ParseUint(s[1], 10, 64)
			}
			out[cur] = e
			cur = ""
		}
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, out, "no entries in %s", path)
	return out
}

type entryDecl struct {
	regs  map[string]int
	depot uint64
}

var (
	entryRE = regexp.MustCompile(`\.entry\s+(\w+)\s*\(`)
	regRE   = regexp.MustCompile(`\.reg\s+(\.\w+)\s+([^;]+);`)
	rangeRE = regexp.MustCompile(`^\S+<(\d+)>$`)
	depotRE = regexp.MustCompile(`\.local\s+\.align\s+\d+\s+\.b8\s+__local_depot\d+\[(\d+)\]`)
)

// entryDecls finds each .entry of a PTX module that nvcc wrote and counts
// the registers its body declares (%r<N> is N registers, in nested scopes
// too) and its local depot.
func entryDecls(src string) map[string]*entryDecl {
	out := map[string]*entryDecl{}
	locs := entryRE.FindAllStringSubmatchIndex(src, -1)
	for _, loc := range locs {
		body := braceBlock(src[loc[1]:])
		d := &entryDecl{regs: map[string]int{}}
		for _, m := range regRE.FindAllStringSubmatch(body, -1) {
			for _, name := range strings.Split(m[2], ",") {
				if r := rangeRE.FindStringSubmatch(strings.TrimSpace(name)); r != nil {
					n, _ := strconv.Atoi(r[1])
					d.regs[m[1]] += n
				} else {
					d.regs[m[1]]++
				}
			}
		}
		if m := depotRE.FindStringSubmatch(body); m != nil {
			d.depot, _ = strconv.ParseUint(m[1], 10, 64)
		}
		out[src[loc[2]:loc[3]]] = d
	}
	return out
}

// braceBlock returns s up to the brace that closes its first opening
// brace, skipping // comments.
func braceBlock(s string) string {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '/':
			if strings.HasPrefix(s[i:], "//") {
				if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
					i += j
				}
			}
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return s[:i]
			}
		}
	}
	return s
}

// TestListCheckCorpus: --check lowers every kernel; the corpus has none
// this emulator rejects.
func TestListCheckCorpus(t *testing.T) {
	mods, err := filepath.Glob(filepath.Join(nvccDir, "ptx", "*.O3.ptx"))
	require.NoError(t, err)
	for _, mod := range mods {
		r := ptxrun(t, mod, "--check")
		assert.Equal(t, exitOK, r.code, "%s: %s", mod, r.stderr)
		assert.Empty(t, r.stderr, mod)
	}
}

const directivesPTX = `.version 8.0
.target sm_90
.address_size 64

.visible .func (.param .b32 func_retval0) helper(
	.param .b32 helper_param_0
)
{
	.reg .b32 	%r<3>;
	.local .align 4 .b8 	__local_depot1[16];
	ld.param.b32 	%r1, [helper_param_0];
	add.s32 	%r2, %r1, 1;
	st.param.b32 	[func_retval0], %r2;
	ret;
}

.visible .entry perf(
	.param .u64 perf_param_0,
	.param .align 16 .b8 perf_param_1[32]
)
.maxntid 256, 1, 1
.minnctapersm 2
.maxnreg 64
{
	.reg .b32 	%r<4>;
	.reg .f64 	%fd<2>;
	.local .align 8 .b8 	__local_depot0[40];
	.shared .align 4 .b8 	sh[100];
	mov.u32 	%r1, 7;
	{
	.reg .b32 temp_param_reg;
	.param .b32 param0;
	st.param.b32 	[param0], %r1;
	.param .b32 retval0;
	call.uni (retval0), helper, (param0);
	ld.param.b32 	%r2, [retval0];
	}
	ret;
}
`

func TestListDirectivesAndCallees(t *testing.T) {
	dir := writeFiles(t, map[string]string{"perf.ptx": directivesPTX})
	file := filepath.Join(dir, "perf.ptx")

	l := listJSON(t, file)
	require.Len(t, l.Kernels, 1, "a .func is not a kernel")
	k := l.Kernels[0]
	assert.Equal(t, "perf", k.Name)
	require.Len(t, k.Params, 2)
	assert.Equal(t, uint64(16), k.Params[1].Offset, "the array parameter is aligned to 16")
	assert.Equal(t, uint64(32), k.Params[1].Size)
	assert.Equal(t, map[string]int{".b32": 5, ".f64": 2}, k.Registers, "%r<4> and temp_param_reg of the call's scope")
	assert.Equal(t, uint64(100), k.SharedStatic)
	assert.Equal(t, uint64(40), k.Local, "the entry's depot; the callee's frame is its own")
	assert.Equal(t, []string{"helper"}, k.Callees)
	assert.Equal(t, map[string][]int64{".maxntid": {256, 1, 1}, ".minnctapersm": {2}, ".maxnreg": {64}}, k.Directives)

	// The text listing prints the directives in a fixed order, every time.
	r := ptxrun(t, file)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Regexp(t, `(?s)\.maxnreg\s+64\s.*\.maxntid\s+256, 1, 1\s.*\.minnctapersm\s+2\s`, r.stdout)
	assert.Contains(t, r.stdout, ".b8 perf_param_1[32]")
	assert.Regexp(t, `calls\s+1\s+helper`, r.stdout)
	for i := 0; i < 20; i++ {
		again := ptxrun(t, file)
		require.Equal(t, r.stdout, again.stdout, "the listing changes from run to run")
	}
}
