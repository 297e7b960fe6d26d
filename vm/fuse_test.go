package vm_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/vm"
)

// fuseKernel is a shared-tile step, ld.shared + ld.shared + fma.rn.f32, in
// two entries: f, which lowering fuses (vm.FuseLdLdFma), and u, the same
// but for an always-true guard on the fma, which keeps it unfused. Thread t
// stores in[t], in[32+t] and in[64+t] to shared words t, 32+t, 64+t, then
// multiplies word t by the word off bytes further and adds word 64+t.
const fuseKernel = `
.visible .entry %s(.param .u64 pout, .param .u64 pin, .param .u32 poff)
{
	.reg .b32 %%r<16>;
	.reg .f32 %%f<8>;
	.reg .b64 %%rd<8>;
	.reg .pred %%p<2>;
	.shared .align 4 .b8 sh[384];
	ld.param.u64 	%%rd1, [pout];
	ld.param.u64 	%%rd2, [pin];
	ld.param.u32 	%%r9, [poff];
	mov.u32 	%%r1, %%tid.x;
	setp.lt.u32 	%%p1, %%r1, 32;
	mul.wide.u32 	%%rd3, %%r1, 4;
	add.s64 	%%rd4, %%rd2, %%rd3;
	add.s64 	%%rd5, %%rd1, %%rd3;
	ld.global.f32 	%%f1, [%%rd4];
	ld.global.f32 	%%f2, [%%rd4+128];
	ld.global.f32 	%%f4, [%%rd4+256];
	mov.u32 	%%r5, sh;
	shl.b32 	%%r6, %%r1, 2;
	add.s32 	%%r7, %%r5, %%r6;
	st.shared.f32 	[%%r7], %%f1;
	st.shared.f32 	[%%r7+128], %%f2;
	bar.sync 	0;
	add.s32 	%%r8, %%r7, %%r9;
	ld.shared.f32 	%%f5, [%%r7];
	ld.shared.f32 	%%f6, [%%r8];
	%s fma.rn.f32 	%%f7, %%f5, %%f6, %%f4;
	st.global.f32 	[%%rd5], %%f7;
	ret;
}
`

// TestFusedLdLdFma: the superinstruction computes what the three
// instructions compute one by one, and a misaligned or out-of-range address
// in either load faults as it does unfused, at the same instruction.
func TestFusedLdLdFma(t *testing.T) {
	src := header + fmt.Sprintf(fuseKernel, "f", "") + fmt.Sprintf(fuseKernel, "u", "@%p1")
	dev := vm.NewDevice()
	m, err := dev.LoadModule("test.ptx", []byte(src))
	require.NoError(t, err)
	fused := func(name string) int {
		n := 0
		k, err := m.Kernel(name)
		require.NoError(t, err)
		for _, in := range k.Entry.Code {
			if in.Fuse == vm.FuseLdLdFma {
				n++
			}
		}
		return n
	}
	require.Equal(t, 1, fused("f"), "f's load pair and fma are one superinstruction")
	require.Equal(t, 0, fused("u"), "a guarded fma is not fused")

	ld2Line := strings.Count(src[:strings.Index(src, "ld.shared.f32 	%f6")], "\n") + 1
	r := rand.New(rand.NewSource(7))
	in := make([]uint32, 96)
	for i := range in {
		in[i] = math.Float32bits(float32(r.NormFloat64()))
	}
	in[3], in[35] = 0x7f800000, 0 // inf * 0: NaN
	in[5] = 0x00000123            // a subnormal
	for _, off := range []uint32{128, 0, 2, 4096, 250 * 4, 0xfffffff0} {
		run := func(kernel string) ([]uint32, error) {
			out, err := dev.Malloc(128, "out")
			require.NoError(t, err)
			inp, err := dev.Malloc(384, "in")
			require.NoError(t, err)
			require.NoError(t, dev.MemcpyHtoD(inp, u32bytes(in)))
			args := [][]byte{binary.LittleEndian.AppendUint64(nil, out), binary.LittleEndian.AppendUint64(nil, inp),
				binary.LittleEndian.AppendUint32(nil, off)}
			l, err := m.PrepareLaunch(kernel, vm.LaunchConfig{Grid: [3]uint32{1, 1, 1}, Block: [3]uint32{32, 1, 1}}, args)
			require.NoError(t, err)
			if _, err := runAll(l, options{maxInst: 1 << 16}); err != nil {
				return nil, err
			}
			raw := make([]byte, 128)
			require.NoError(t, dev.MemcpyDtoH(raw, out))
			return bytesU32(raw), nil
		}
		gotF, errF := run("f")
		gotU, errU := run("u")
		if errU != nil {
			require.Error(t, errF, "offset %d: unfused faults (%v), fused does not", off, errU)
			// The same message, but for the kernel's name and line.
			_, restU, _ := strings.Cut(errU.Error(), ": ")
			posF, restF, _ := strings.Cut(errF.Error(), ": ")
			require.Equal(t, strings.ReplaceAll(restU, "kernel u", "kernel f"), restF, "offset %d", off)
			require.Equal(t, fmt.Sprintf("test.ptx:%d", ld2Line), posF, "offset %d: the second load faults", off)
			continue
		}
		require.NoError(t, errF, "offset %d", off)
		require.Equal(t, gotU, gotF, "offset %d", off)
	}
}

// chainKernel builds a shared-tile inner loop of steps FuseLdLdFma steps
// whose sums chain, as nvcc unrolls it: thread t stores the words t,
// t+32, ... t+992 of in to shared memory, then steps j multiply the word
// at [b+32j] (a row of the B part: b = sh + 4·(t%16)) by the word at
// [a+4j] (one word per half-warp: a = sh + 2048 + 64·(t/16), plus off in
// lane 7) and add them to in2[t]. Besides the sum it writes the B word of
// step 3 and the sum after step 5, which stay live after the loop. guard
// is put before the fma of the steps in guarded (an always-true guard,
// which keeps a step unfused).
func chainKernel(name string, steps int, guarded func(j int) bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, `
.visible .entry %s(.param .u64 pout, .param .u64 pin, .param .u32 poff)
{
	.reg .b32 %%r<16>;
	.reg .f32 %%f<%d>;
	.reg .f32 %%g<%d>;
	.reg .f32 %%s<%d>;
	.reg .b64 %%rd<8>;
	.reg .pred %%p<4>;
	.shared .align 4 .b8 sh[4096];
	ld.param.u64 	%%rd1, [pout];
	ld.param.u64 	%%rd2, [pin];
	ld.param.u32 	%%r9, [poff];
	mov.u32 	%%r1, %%tid.x;
	setp.lt.u32 	%%p1, %%r1, 32;
	setp.eq.u32 	%%p2, %%r1, 7;
	selp.b32 	%%r10, %%r9, 0, %%p2;
	mul.wide.u32 	%%rd3, %%r1, 4;
	add.s64 	%%rd4, %%rd2, %%rd3;
	add.s64 	%%rd5, %%rd1, %%rd3;
	mov.u32 	%%r5, sh;
	shl.b32 	%%r6, %%r1, 2;
	add.s32 	%%r7, %%r5, %%r6;
`, name, steps+1, steps+1, steps+1)
	for i := range 32 {
		fmt.Fprintf(&b, "\tld.global.f32 \t%%f0, [%%rd4+%d];\n\tst.shared.f32 \t[%%r7+%d], %%f0;\n", 128*i, 128*i)
	}
	fmt.Fprintf(&b, `	ld.global.f32 	%%s0, [%%rd4+4096];
	bar.sync 	0;
	and.b32 	%%r2, %%r1, 15;
	shl.b32 	%%r2, %%r2, 2;
	add.s32 	%%r3, %%r5, %%r2;
	shr.u32 	%%r4, %%r1, 4;
	shl.b32 	%%r4, %%r4, 6;
	add.s32 	%%r4, %%r4, %%r5;
	add.s32 	%%r4, %%r4, 2048;
	add.s32 	%%r4, %%r4, %%r10;
`)
	for j := range steps {
		g := ""
		if guarded(j) {
			g = "@%p1 "
		}
		fmt.Fprintf(&b, "\tld.shared.f32 \t%%f%d, [%%r3+%d];\n\tld.shared.f32 \t%%g%d, [%%r4+%d];\n\t%sfma.rn.f32 \t%%s%d, %%g%d, %%f%d, %%s%d;\n",
			j+1, 32*j, j+1, 4*j, g, j+1, j+1, j+1, j)
	}
	fmt.Fprintf(&b, `	st.global.f32 	[%%rd5], %%s%d;
	st.global.f32 	[%%rd5+128], %%f4;
	st.global.f32 	[%%rd5+256], %%s6;
	ret;
}
`, steps)
	return b.String()
}

// TestFusedChain: a chain of FuseLdLdFma steps (one FuseLdLdFmaChain of
// warpsimd.MaxChain steps and one of the rest, with the layout's shared
// slots and without, run whole or in parts as turns of a few instructions
// end inside it) computes and writes what the instructions compute one by
// one, and a misaligned or out-of-range address in any step faults as it
// does unfused, at the same instruction.
func TestFusedChain(t *testing.T) {
	const steps = 40
	for _, layout := range []bool{true, false} {
		if !layout {
			defer vm.WithoutLayout()()
		}
		src := header + chainKernel("f", steps, func(int) bool { return false }) +
			chainKernel("u", steps, func(int) bool { return true }) +
			chainKernel("h", steps, func(j int) bool { return j == 2 || j == 9 })
		dev := vm.NewDevice()
		m, err := dev.LoadModule("test.ptx", []byte(src))
		require.NoError(t, err)
		chains := func(name string) []int {
			k, err := m.Kernel(name)
			require.NoError(t, err)
			ident, lens := vm.ChainPlansForTest(k.Entry)
			require.Equal(t, len(lens), ident, "%s: plans in both layouts", name)
			return lens
		}
		require.Equal(t, []int{3 * 32, 3 * 8}, chains("f"), "layout %v", layout)
		require.Empty(t, chains("u"))
		require.Equal(t, []int{3 * 2, 3 * 6, 3 * 30}, chains("h"))

		r := rand.New(rand.NewSource(27))
		in := make([]uint32, 1024+32)
		for i := range in {
			in[i] = math.Float32bits(float32(r.NormFloat64()))
		}
		in[2048/4+5], in[3], in[17] = 0x7f800000, 0, 0x00000123 // inf * 0, a subnormal
		in[1024+9] = 0x7fc00001                                 // a NaN addend
		lines := strings.Split(src, "\n")
		faults := 0
		for _, off := range []uint32{0, 2, 1972, 2032, 2076, 4096, 0xfffff7f0, 0xfffff3f0} {
			run := func(kernel string, quantum int) ([]uint32, error) {
				out, err := dev.Malloc(384, "out")
				require.NoError(t, err)
				inp, err := dev.Malloc(uint64(4*len(in)), "in")
				require.NoError(t, err)
				require.NoError(t, dev.MemcpyHtoD(inp, u32bytes(in)))
				args := [][]byte{binary.LittleEndian.AppendUint64(nil, out), binary.LittleEndian.AppendUint64(nil, inp),
					binary.LittleEndian.AppendUint32(nil, off)}
				l, err := m.PrepareLaunch(kernel, vm.LaunchConfig{Grid: [3]uint32{1, 1, 1}, Block: [3]uint32{32, 1, 1}}, args)
				require.NoError(t, err)
				if quantum == 0 {
					if _, err := runAll(l, options{maxInst: 1 << 16}); err != nil {
						return nil, err
					}
				} else if err := l.NewSM(0).RunCTAs([]int{0}, quantum); err != nil {
					return nil, err
				}
				raw := make([]byte, 384)
				require.NoError(t, dev.MemcpyDtoH(raw, out))
				return bytesU32(raw), nil
			}
			gotU, errU := run("u", 0)
			for _, kq := range []struct {
				k string
				q int
			}{{"f", 0}, {"h", 0}, {"f", 1}, {"f", 5}, {"f", 32}, {"h", 7}} {
				k := kq.k
				got, err := run(k, kq.q)
				if errU != nil {
					require.Error(t, err, "offset %d: unfused faults (%v), %s does not", off, errU, k)
					_, restU, _ := strings.Cut(errU.Error(), ": ")
					pos, rest, _ := strings.Cut(err.Error(), ": ")
					require.Equal(t, strings.ReplaceAll(restU, "kernel u", "kernel "+k), rest, "offset %d", off)
					// The same line of the kernel's own text.
					posU, _, _ := strings.Cut(errU.Error(), ": ")
					var lu, lk int
					fmt.Sscanf(posU, "test.ptx:%d", &lu)
					fmt.Sscanf(pos, "test.ptx:%d", &lk)
					require.Equal(t, strings.TrimSpace(lines[lu-1]), strings.TrimSpace(lines[lk-1]), "offset %d", off)
					faults++
					continue
				}
				require.NoError(t, err, "offset %d", off)
				require.Equal(t, gotU, got, "offset %d, kernel %s, quantum %d", off, k, kq.q)
			}
		}
		require.Equal(t, 6*6, faults, "misaligned; past the end at steps 35, 20, 9, 0; below the window")
	}
}

// TestFastFormsMarkedAtLowering: lowering marks the lone instructions
// whose full-warp fast path the interpreter may take (Inst.Fast), and only
// those: 32-bit shared loads (not signed ones) and stores at [r+imm].
func TestFastFormsMarkedAtLowering(t *testing.T) {
	src := header + `
.visible .entry k(.param .u64 p)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
	.reg .f32 %f<4>;
	.shared .align 8 .b8 sh[256];
	ld.param.u64 %rd1, [p];
	mov.u32 %r1, sh;
	ld.shared.u32 %r2, [%r1+4];
	ld.shared.f32 %f1, [%r1];
	ld.shared.s32 %r3, [%r1+8];
	ld.shared.u16 %r4, [%r1+12];
	ld.shared.v2.u32 {%r5, %r6}, [%r1+16];
	st.shared.b32 [%r1+24], %r2;
	st.shared.f32 [%r1+28], %f1;
	ld.global.u32 %r7, [%rd1];
	st.global.u32 [%rd1], %r7;
	ret;
}
`
	m, err := vm.NewDevice().LoadModule("fast.ptx", []byte(src))
	require.NoError(t, err)
	k, err := m.Kernel("k")
	require.NoError(t, err)
	var got []string
	for _, in := range k.Entry.Code {
		if in.Fast != vm.FastNone {
			got = append(got, in.Op.String()+" "+in.Fast.String())
		}
	}
	require.Equal(t, []string{"ld ld.shared.32 [r+imm]", "ld ld.shared.32 [r+imm]", "st st.shared.32 [r+imm]", "st st.shared.32 [r+imm]"}, got)
}
