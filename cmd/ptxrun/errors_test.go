package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fixturePTX has three kernels: store writes out[tid.x + off] = tid.x (an
// out-of-bounds store when off is large enough), spin never ends, and
// deadlock waits at a barrier for more threads than ever arrive.
const fixturePTX = `.version 8.0
.target sm_90
.address_size 64

.visible .entry store(
	.param .u64 store_param_0,
	.param .u32 store_param_1
)
{
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<4>;

	ld.param.u64 	%rd1, [store_param_0];
	ld.param.u32 	%r1, [store_param_1];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r2, %tid.x;
	add.s32 	%r3, %r2, %r1;
	mul.wide.u32 	%rd3, %r3, 4;
	add.s64 	%rd2, %rd2, %rd3;
	st.global.u32 	[%rd2], %r2;
	ret;
}

.visible .entry spin(
	.param .u64 spin_param_0
)
{
	.reg .b32 	%r<2>;
	mov.u32 	%r1, 0;
$L_loop:
	add.s32 	%r1, %r1, 1;
	bra.uni 	$L_loop;
}

.visible .entry deadlock(
	.param .u64 deadlock_param_0
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<2>;
	mov.u32 	%r1, %tid.x;
	setp.eq.u32 	%p1, %r1, 0;
	@%p1 bra 	$L_end;
	bar.sync 	0, 64;
$L_end:
	ret;
}
`

// storeLine is the line of fixturePTX's global store.
var storeLine = lineOf(fixturePTX, "st.global.u32")

func lineOf(src, s string) int {
	for i, l := range strings.Split(src, "\n") {
		if strings.Contains(l, s) {
			return i + 1
		}
	}
	panic(s)
}

// badSyntaxPTX has an operand missing at 9:16.
const badSyntaxPTX = `.version 8.0
.target sm_90
.address_size 64
.visible .entry k(
	.param .u64 p
)
{
	.reg .b32 %r<2>;
	mov.u32 %r1, ;
	ret;
}
`

// unknownInstPTX uses an instruction PTX does not have, at 9:2.
const unknownInstPTX = `.version 8.0
.target sm_90
.address_size 64
.visible .entry k(
	.param .u64 p
)
{
	.reg .b32 %r<2>;
	frobnicate.u32 %r1, %r0;
	ret;
}
`

// badHeaderPTX has a stray comma in the parameter list, at 5:15.
const badHeaderPTX = `.version 8.0
.target sm_90
.address_size 64
.visible .entry k(
	.param .u64 p,,
)
{
	ret;
}
`

// spec returns a launch spec of the store kernel of k.ptx, with fields
// replaced (or removed, when nil) by over.
func sp(over map[string]any) string {
	s := map[string]any{
		"module":  "k.ptx",
		"kernel":  "store",
		"grid":    []int{1, 1, 1},
		"block":   []int{64, 1, 1},
		"buffers": []any{map[string]any{"name": "out", "type": "u32", "count": 64}},
		"args":    []any{map[string]any{"buffer": "out"}, map[string]any{"u32": 0}},
		"outputs": []string{"out"},
	}
	maps.Copy(s, over)
	for k, v := range s {
		if v == nil {
			delete(s, k)
		}
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		panic(err)
	}
	return string(b)
}

// storeSpec launches store with the given offset over a buffer of count u32.
func storeSpec(off, count int) string {
	return sp(map[string]any{
		"buffers": []any{map[string]any{"name": "out", "type": "u32", "count": count}},
		"args":    []any{map[string]any{"buffer": "out"}, map[string]any{"u32": off}},
	})
}

func withInput(file string) map[string]any {
	return map[string]any{"buffers": []any{map[string]any{"name": "out", "type": "u32", "count": 64, "file": file}}}
}

func TestBadInput(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string // written to a temporary folder, with k.ptx
		args  []string          // {dir} is that folder
		code  int
		// substrings of stderr; {dir} is the folder
		stderr []string
	}{
		// Files that are not there.
		{name: "missing PTX file", args: []string{"{dir}/nope.ptx"}, code: exitUsage,
			stderr: []string{"nope.ptx", "no such file"}},
		{name: "missing PTX file, list", args: []string{"list", "{dir}/nope"}, code: exitUsage,
			stderr: []string{"nope", "no such file"}},
		{name: "missing spec", args: []string{"run", "{dir}/nope.json"}, code: exitUsage,
			stderr: []string{"nope.json", "no such file"}},
		{name: "spec is a folder", args: []string{"run", "{dir}"}, code: exitUsage,
			stderr: []string{"is a directory"}},
		{name: "missing test folder", args: []string{"test", "{dir}/nope"}, code: exitUsage,
			stderr: []string{"nope", "no such file"}},
		{name: "test of a file", files: map[string]string{"spec.json": sp(nil)}, args: []string{"test", "{dir}/spec.json"}, code: exitUsage,
			stderr: []string{"is not a folder"}},
		{name: "test folder without cases", args: []string{"test", "{dir}"}, code: exitUsage,
			stderr: []string{"no cases"}},
		{name: "spec names a missing module", files: map[string]string{"spec.json": sp(map[string]any{"module": "gone.ptx"})},
			args: []string{"run", "{dir}/spec.json"}, code: exitUsage, stderr: []string{"gone.ptx", "no such file"}},

		// Bad PTX: file:line:col.
		{name: "malformed PTX, run", files: map[string]string{"bad.ptx": badSyntaxPTX, "spec.json": sp(map[string]any{"module": "bad.ptx", "kernel": "k", "args": []any{map[string]any{"buffer": "out"}}})},
			args: []string{"run", "{dir}/spec.json"}, code: exitUsage, stderr: []string{"bad.ptx:9:15: ", `found ";"`}},
		// A listing parses every body: a malformed module is bad input.
		{name: "malformed PTX, list", files: map[string]string{"bad.ptx": badSyntaxPTX},
			args: []string{"{dir}/bad.ptx"}, code: exitUsage, stderr: []string{"bad.ptx:9:15: "}},
		{name: "malformed PTX, list --check", files: map[string]string{"bad.ptx": badSyntaxPTX},
			args: []string{"{dir}/bad.ptx", "--check"}, code: exitUsage, stderr: []string{"bad.ptx:9:15: "}},
		{name: "malformed PTX, list --check --json", files: map[string]string{"bad.ptx": badSyntaxPTX},
			args: []string{"{dir}/bad.ptx", "--check", "--json"}, code: exitUsage, stderr: []string{"bad.ptx:9:15: "}},
		{name: "malformed PTX header, list", files: map[string]string{"hdr.ptx": badHeaderPTX},
			args: []string{"{dir}/hdr.ptx"}, code: exitUsage, stderr: []string{"hdr.ptx:5:16: ", `","`}},
		{name: "not PTX at all", files: map[string]string{"bin.ptx": "\x00\x01garbage"},
			args: []string{"{dir}/bin.ptx"}, code: exitUsage, stderr: []string{"bin.ptx:1:1: "}},
		{name: "unknown instruction, run", files: map[string]string{"unk.ptx": unknownInstPTX, "spec.json": sp(map[string]any{"module": "unk.ptx", "kernel": "k", "args": []any{map[string]any{"buffer": "out"}}})},
			args: []string{"run", "{dir}/spec.json"}, code: exitUsage, stderr: []string{"unk.ptx:9:2: ", "frobnicate"}},
		{name: "unknown instruction, list --check", files: map[string]string{"unk.ptx": unknownInstPTX},
			args: []string{"{dir}/unk.ptx", "--check"}, code: exitUsage, stderr: []string{"unk.ptx:9:2: ", "unknown instruction frobnicate"}}, // a malformed module, as a parse error is

		// Bad specs.
		{name: "malformed spec JSON", files: map[string]string{"spec.json": "{\"module\": \"k.ptx\",\n \"kernel\": \"store\",, }"},
			args: []string{"run", "{dir}/spec.json"}, code: exitUsage, stderr: []string{"spec.json", "line 2, column 20"}},
		{name: "truncated spec JSON", files: map[string]string{"spec.json": `{"module": "k.ptx", "kernel": `},
			args: []string{"run", "{dir}/spec.json"}, code: exitUsage, stderr: []string{"spec.json", "invalid spec"}},
		{name: "empty spec", files: map[string]string{"spec.json": ""},
			args: []string{"run", "{dir}/spec.json"}, code: exitUsage, stderr: []string{"spec.json", "invalid spec"}},
		{name: "spec field of the wrong type", files: map[string]string{"spec.json": sp(map[string]any{"grid": "big"})},
			args: []string{"run", "{dir}/spec.json"}, code: exitUsage, stderr: []string{"grid"}},
		{name: "unknown spec field", files: map[string]string{"spec.json": sp(map[string]any{"modul": "k.ptx"})},
			args: []string{"run", "{dir}/spec.json"}, code: exitUsage, stderr: []string{`unknown field "modul"`}},
		{name: "spec without a module", files: map[string]string{"spec.json": sp(map[string]any{"module": nil})},
			args: []string{"run", "{dir}/spec.json"}, code: exitUsage, stderr: []string{`"module" is missing`}},
		{name: "spec names a missing kernel", files: map[string]string{"spec.json": sp(map[string]any{"kernel": "nope"})},
			args: []string{"run", "{dir}/spec.json"}, code: exitUsage, stderr: []string{`no kernel matches "nope"; the module has:`, "\n  deadlock\n  spin\n  store\n"}},
		{name: "unknown buffer type", files: map[string]string{"spec.json": sp(map[string]any{"buffers": []any{map[string]any{"name": "out", "type": "u31", "count": 64}}})},
			args: []string{"run", "{dir}/spec.json"}, code: exitUsage, stderr: []string{`unknown type "u31"`}},
		{name: "output that is not a buffer", files: map[string]string{"spec.json": sp(map[string]any{"outputs": []string{"nope"}})},
			args: []string{"run", "{dir}/spec.json"}, code: exitUsage, stderr: []string{`output "nope" is not a buffer`}},
		{name: "symbol the module lacks", files: map[string]string{"spec.json": sp(map[string]any{"symbols": []any{map[string]any{"name": "coef", "type": "f32", "count": 4}}})},
			args: []string{"run", "{dir}/spec.json"}, code: exitUsage, stderr: []string{`"coef"`}},

		// Input files.
		{name: "missing input file", files: map[string]string{"spec.json": sp(withInput("in.bin"))},
			args: []string{"run", "{dir}/spec.json"}, code: exitUsage, stderr: []string{"buffer out", "in.bin", "no such file"}},
		{name: "short input file", files: map[string]string{"spec.json": sp(withInput("in.bin")), "in.bin": strings.Repeat("\x00", 100)},
			args: []string{"run", "{dir}/spec.json"}, code: exitUsage, stderr: []string{"buffer out", "in.bin has 100 bytes", "needs 256"}},
		{name: "long input file", files: map[string]string{"spec.json": sp(withInput("in.bin")), "in.bin": strings.Repeat("\x00", 260)},
			args: []string{"run", "{dir}/spec.json"}, code: exitUsage, stderr: []string{"in.bin has 260 bytes", "needs 256"}},

		// Arguments.
		{name: "too few arguments", files: map[string]string{"spec.json": sp(map[string]any{"args": []any{map[string]any{"buffer": "out"}}})},
			args: []string{"run", "{dir}/spec.json"}, code: exitUsage, stderr: []string{"kernel store takes 2 parameters, the spec gives 1 arguments; the parameters are:\n  .u64 in PTX\n  .u32 in PTX"}},
		{name: "too many arguments", files: map[string]string{"spec.json": sp(map[string]any{"args": []any{map[string]any{"buffer": "out"}, map[string]any{"u32": 0}, map[string]any{"u32": 1}}})},
			args: []string{"run", "{dir}/spec.json"}, code: exitUsage, stderr: []string{"kernel store takes 2 parameters, the spec gives 3 arguments"}},
		{name: "f64 for a u32 parameter", files: map[string]string{"spec.json": sp(map[string]any{"args": []any{map[string]any{"buffer": "out"}, map[string]any{"f64": 1.5}}})},
			args: []string{"run", "{dir}/spec.json"}, code: exitUsage, stderr: []string{`spec.json: args[1] (parameter 1 of store, .u32 in PTX): f64 is 64 bits; the parameter is 32 bits: write {"u32": ...}`}},
		{name: "u32 for a pointer parameter", files: map[string]string{"spec.json": sp(map[string]any{"args": []any{map[string]any{"u32": 5}, map[string]any{"u32": 0}}})},
			args: []string{"run", "{dir}/spec.json"}, code: exitUsage, stderr: []string{`args[0] (parameter 0 of store, .u64 in PTX): u32 is 32 bits; the parameter is 64 bits: write {"u64": ...}`}},
		{name: "u32 argument out of range", files: map[string]string{"spec.json": sp(map[string]any{"args": []any{map[string]any{"buffer": "out"}, map[string]any{"u32": 1 << 32}}})},
			args: []string{"run", "{dir}/spec.json"}, code: exitUsage, stderr: []string{"args[1]", "4294967296", "out of range"}},
		{name: "argument names no buffer", files: map[string]string{"spec.json": sp(map[string]any{"args": []any{map[string]any{"buffer": "nope"}, map[string]any{"u32": 0}}})},
			args: []string{"run", "{dir}/spec.json"}, code: exitUsage, stderr: []string{`"nope"`}},

		// Launch limits.
		{name: "block of 2048 threads", files: map[string]string{"spec.json": sp(map[string]any{"block": []int{32, 32, 2}})},
			args: []string{"run", "{dir}/spec.json"}, code: exitUsage, stderr: []string{"kernel store", "2048 threads", "1024"}},
		{name: "block x over the limit", files: map[string]string{"spec.json": sp(map[string]any{"block": []int{2048, 1, 1}})},
			args: []string{"run", "{dir}/spec.json"}, code: exitUsage, stderr: []string{"block (2048,1,1) exceeds the limits"}},
		{name: "block z over the limit", files: map[string]string{"spec.json": sp(map[string]any{"block": []int{1, 1, 65}})},
			args: []string{"run", "{dir}/spec.json"}, code: exitUsage, stderr: []string{"block (1,1,65) exceeds the limits"}},
		{name: "grid y over the limit", files: map[string]string{"spec.json": sp(map[string]any{"grid": []int{1, 70000, 1}})},
			args: []string{"run", "{dir}/spec.json"}, code: exitUsage, stderr: []string{"grid (1,70000,1) exceeds the limits"}},
		{name: "largest grid, stopped by the budget", files: map[string]string{"spec.json": sp(map[string]any{"grid": []int{1<<31 - 1, 65535, 65535}})},
			args: []string{"run", "{dir}/spec.json", "--max-inst", "10"}, code: exitFail,
			stderr: []string{"kernel store", "instruction budget exhausted", "-max-inst 10"}},
		{name: "empty grid", files: map[string]string{"spec.json": sp(map[string]any{"grid": []int{0, 1, 1}})},
			args: []string{"run", "{dir}/spec.json"}, code: exitUsage, stderr: []string{`"grid"`, "zero"}},
		{name: "too much dynamic shared memory", files: map[string]string{"spec.json": sp(map[string]any{"dynamic_shared_bytes": 1 << 30})},
			args: []string{"run", "{dir}/spec.json"}, code: exitUsage, stderr: []string{"shared"}},

		// Faults while running.
		{name: "kernel that never ends", files: map[string]string{"spec.json": sp(map[string]any{"kernel": "spin", "args": []any{map[string]any{"buffer": "out"}}})},
			args: []string{"run", "{dir}/spec.json", "--max-inst", "1000"}, code: exitFail,
			stderr: []string{"kernel spin", "instruction budget exhausted", "block (0,0,0)", "-max-inst 1000"}},
		{name: "deadlock at a barrier", files: map[string]string{"spec.json": sp(map[string]any{"kernel": "deadlock", "args": []any{map[string]any{"buffer": "out"}}})},
			args: []string{"run", "{dir}/spec.json"}, code: exitFail,
			stderr: []string{"kernel deadlock", "deadlock in block (0,0,0)", "barrier 0", "63 of 64 threads"}},
		{name: "out-of-bounds global store", files: map[string]string{"spec.json": storeSpec(10, 64)},
			args: []string{"run", "{dir}/spec.json"}, code: exitFail,
			stderr: []string{fmt.Sprintf("k.ptx:%d:", storeLine), "kernel store", "block (0,0,0)", "thread (54,0,0)", "pc ", "store of 4 bytes", "global", "buffer out"}},
		{name: "out-of-bounds store with --json", files: map[string]string{"spec.json": storeSpec(10, 64)},
			args: []string{"run", "{dir}/spec.json", "--json"}, code: exitFail,
			stderr: []string{fmt.Sprintf("k.ptx:%d:", storeLine), "thread (54,0,0)"}},
		{name: "output folder that cannot be made", files: map[string]string{"spec.json": storeSpec(0, 64), "file": "x"},
			args: []string{"run", "{dir}/spec.json", "--out", "{dir}/file/out"}, code: exitFail, stderr: []string{"file"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{"k.ptx": fixturePTX}
			maps.Copy(files, tc.files)
			dir := writeFiles(t, files)
			args := make([]string, len(tc.args))
			for i, a := range tc.args {
				args[i] = filepath.FromSlash(strings.ReplaceAll(a, "{dir}", filepath.ToSlash(dir)))
			}
			r := ptxrun(t, args...)
			assert.Equal(t, tc.code, r.code, "stderr: %s", r.stderr)
			require.NotEmpty(t, r.stderr)
			for _, s := range tc.stderr {
				assert.Contains(t, r.stderr, strings.ReplaceAll(s, "{dir}", dir))
			}
			if !strings.Contains(tc.name, "list") {
				assert.Empty(t, r.stdout, "a failed command prints no result")
			}
		})
	}
}

// TestOutOfBoundsReportsOnce: a fault is reported once, the same way on any
// number of workers, and no output is written.
func TestOutOfBoundsReportsOnce(t *testing.T) {
	dir := writeFiles(t, map[string]string{"k.ptx": fixturePTX, "spec.json": storeSpec(10, 64)})
	var msgs []string
	for _, w := range []string{"1", "4"} {
		out := filepath.Join(dir, "out"+w)
		r := ptxrun(t, "run", filepath.Join(dir, "spec.json"), "--workers", w, "--out", out)
		require.Equal(t, exitFail, r.code)
		assert.Equal(t, 1, strings.Count(r.stderr, "\n"), r.stderr)
		msgs = append(msgs, r.stderr)
		_, err := os.Stat(out)
		assert.True(t, os.IsNotExist(err), "a faulting launch writes no outputs")
	}
	assert.Equal(t, msgs[0], msgs[1])
}
