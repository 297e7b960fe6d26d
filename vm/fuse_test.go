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
