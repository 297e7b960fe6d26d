package vm_test

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/vm"
)

// probeSrc: block b's threads loop b times; each stores its sum into a
// sparse buffer (2 MiB) and thread 0 counts its block into a dense counter
// with an atomic.
const probeSrc = `
.visible .entry tri(.param .u64 out, .param .u64 ctr)
{
	.reg .pred %p;
	.reg .b32 %r<8>;
	.reg .b64 %rd<6>;
	ld.param.u64 %rd1, [out];
	ld.param.u64 %rd2, [ctr];
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %tid.x;
	mov.u32 %r3, 0;
	mov.u32 %r4, 0;
	setp.eq.u32 %p, %r1, 0;
	@%p bra DONE;
LOOP:
	add.u32 %r4, %r4, %r2;
	add.u32 %r3, %r3, 1;
	setp.lt.u32 %p, %r3, %r1;
	@%p bra LOOP;
DONE:
	mad.lo.u32 %r5, %r1, 32, %r2;
	mul.wide.u32 %rd3, %r5, 8192;
	add.u64 %rd4, %rd1, %rd3;
	st.global.u32 [%rd4], %r4;
	setp.ne.u32 %p, %r2, 0;
	@%p bra END;
	atom.global.add.u32 %r6, [%rd2], 1;
END:
	ret;
}`

func TestProbe(t *testing.T) {
	const blocks = 8
	prepare := func(t *testing.T) (*vm.Device, *vm.Launch, uint64, uint64) {
		dev := vm.NewDevice()
		m, err := dev.LoadModule("probe.ptx", []byte(header+probeSrc))
		require.NoError(t, err)
		out, err := dev.Malloc(2<<20, "out")
		require.NoError(t, err)
		ctr, err := dev.Malloc(4, "ctr")
		require.NoError(t, err)
		l, err := m.PrepareLaunch("tri", vm.LaunchConfig{Grid: [3]uint32{blocks, 1, 1}, Block: [3]uint32{32, 1, 1}},
			[][]byte{binary.LittleEndian.AppendUint64(nil, out), binary.LittleEndian.AppendUint64(nil, ctr)})
		require.NoError(t, err)
		return dev, l, out, ctr
	}
	// Each block's warp instructions, run alone.
	var per [blocks]int64
	{
		_, l, _, _ := prepare(t)
		for b := range per {
			s := l.NewSM(0)
			require.NoError(t, s.RunCTA(b))
			per[b] = int64(s.Stats.Inst)
		}
		require.Less(t, per[1], per[5], "later blocks loop longer")
	}
	for _, tc := range []struct {
		name   string
		blocks []int
		budget int64
		ran    int
	}{
		{"two blocks", []int{1, 5}, 0, 2},
		{"every block", []int{0, 1, 2, 3, 4, 5, 6, 7}, 0, blocks},
		{"the budget runs out in the second", []int{2, 7}, per[2] + 5, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dev, l, out, ctr := prepare(t)
			l.MaxInst = 1 << 20
			held := dev.Mem.HostBytes()
			inst, ran, err := l.Probe(tc.blocks, tc.budget)
			require.NoError(t, err)
			assert.Equal(t, tc.ran, ran)
			if tc.ran == len(tc.blocks) {
				var want int64
				for _, b := range tc.blocks {
					want += per[b]
				}
				assert.Equal(t, want, inst, "the blocks' warp instructions")
			} else {
				assert.Greater(t, inst, tc.budget)
			}
			assert.Zero(t, l.InstExecuted(), "not counted against the launch")
			assert.Equal(t, int64(1<<20), l.MaxInst)
			assert.Equal(t, held, dev.Mem.HostBytes(), "the pages the probe wrote are freed")
			c := make([]byte, 4)
			require.NoError(t, dev.MemcpyDtoH(c, ctr))
			assert.Zero(t, binary.LittleEndian.Uint32(c), "the atomics undone")
			// The launch then runs as if nothing had probed it.
			s := l.NewSM(0)
			for b := range blocks {
				require.NoError(t, s.RunCTA(b))
			}
			require.NoError(t, dev.MemcpyDtoH(c, ctr))
			assert.Equal(t, uint32(blocks), binary.LittleEndian.Uint32(c))
			v := make([]byte, 4)
			require.NoError(t, dev.MemcpyDtoH(v, out+uint64(5*32+3)*8192))
			assert.Equal(t, uint32(5*3), binary.LittleEndian.Uint32(v), "block 5, thread 3: 3 added 5 times")
		})
	}
}
