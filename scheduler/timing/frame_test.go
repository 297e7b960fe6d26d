package timing

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler/gpu"
	"github.com/ptxvm/ptxvm/scheduler/sasscost"
	"github.com/ptxvm/ptxvm/vm"
)

// callPTX is a kernel that calls a recursive function depth times down
// and a leaf function once.
func callPTX(depth int) string {
	return fmt.Sprintf(`.version 8.0
.target sm_90
.address_size 64
.func (.param .b32 r) leaf(.param .b32 a)
{
	.reg .b32 %%r<3>;
	ld.param.u32 %%r1, [a];
	add.s32 %%r2, %%r1, 3;
	st.param.b32 [r], %%r2;
	ret;
}
.func (.param .b32 r) down(.param .b32 n)
{
	.reg .pred %%p<2>;
	.reg .b32 %%r<6>;
	ld.param.u32 %%r1, [n];
	setp.eq.u32 %%p1, %%r1, 0;
	mov.u32 %%r5, 0;
	@%%p1 bra $L_done;
	add.s32 %%r2, %%r1, -1;
	{
	.param .b32 a0;
	st.param.b32 [a0], %%r2;
	.param .b32 r0;
	call.uni (r0), down, (a0);
	ld.param.b32 %%r3, [r0];
	}
	add.s32 %%r5, %%r3, %%r1;
$L_done:
	st.param.b32 [r], %%r5;
	ret;
}
.visible .entry k(.param .u64 out)
{
	.reg .b32 %%r<4>;
	.reg .b64 %%rd<3>;
	ld.param.u64 %%rd1, [out];
	cvta.to.global.u64 %%rd2, %%rd1;
	mov.u32 %%r1, %d;
	{
	.param .b32 a;
	st.param.b32 [a], %%r1;
	.param .b32 r;
	call.uni (r), down, (a);
	ld.param.b32 %%r2, [r];
	}
	{
	.param .b32 a;
	st.param.b32 [a], %%r2;
	.param .b32 r;
	call.uni (r), leaf, (a);
	ld.param.b32 %%r3, [r];
	}
	st.global.u32 [%%rd2], %%r3;
	ret;
}`, depth)
}

// A call of a function with a stack frame issues the frame's stores, its
// return the frame's loads, and the return waits for the return address
// to load from L1; a leaf function has no frame. Neither holds the branch
// pipe for the frame's machine instructions.
func TestCallFrames(t *testing.T) {
	prof := gpu.MustLookup("h100")
	cfg, err := Resolve(prof)
	require.NoError(t, err)
	tab, err := sasscost.Load(cfg.SASS)
	require.NoError(t, err)
	l, _, _ := ptxLaunch(t, callPTX(4), 1, 32, 64)
	l1 := prof.Memory.Latency.L1Hit
	p := newProgram(l.Kernel, cfg, tab, l1)
	save := tab.Frame(false).Slots
	saves := map[string]int{}
	for _, f := range l.Kernel.Funcs {
		saves[f.Name] = sasscost.FrameSaves(f, false)
	}
	require.Equal(t, 4, saves["down"], "R20, R21, n across the call, B6")
	require.Zero(t, saves["leaf"])
	type want struct {
		slots  float64
		lastAt uint32
	}
	cases := map[string]want{
		"call down": {tab.Forms["call"].Slots + 4*save/2, 0},
		"call leaf": {tab.Forms["call"].Slots, 0},
		"ret down":  {tab.Forms["ret"].Slots + 4*save/2, l1},
		"ret leaf":  {tab.Forms["ret"].Slots, 0},
	}
	got := map[string]want{}
	for i := range p.insts {
		in := &p.insts[i]
		op := in.info.Inst().Op
		var name string
		switch {
		case op == vm.OpCall && in.info.Func.Entry:
			name = "call " + in.info.Inst().CallSite(in.info.Func).Callee.Name
		case op == vm.OpRet && !in.info.Func.Entry:
			name = "ret " + in.info.Func.Name
		default:
			continue
		}
		assert.True(t, in.mixed, name)
		assert.Equal(t, kindBranch, in.kind, name)
		got[name] = want{float64(in.slots) / 256, in.lastAt}
	}
	require.Len(t, got, len(cases))
	for name, w := range cases {
		assert.InDelta(t, w.slots, got[name].slots, 1.0/256, name)
		assert.Equal(t, w.lastAt, got[name].lastAt, name)
	}
}

// Each further level of recursion costs at least the return's wait for
// its return address (an L1 hit) and two branches, and that wait is
// long_scoreboard.
func TestRecursionCostsFrameLoads(t *testing.T) {
	prof := gpu.MustLookup("h100")
	cfg, err := Resolve(prof)
	require.NoError(t, err)
	run := func(depth int) *Result {
		l, _, _ := ptxLaunch(t, callPTX(depth), 1, 32, 64)
		res, err := Run(context.Background(), l, prof, Options{BlocksPerSM: 1, Workers: 1})
		require.NoError(t, err)
		return res
	}
	for _, tc := range []struct{ lo, hi int }{{2, 10}, {10, 40}} {
		a, b := run(tc.lo), run(tc.hi)
		per := float64(b.Cycles-a.Cycles) / float64(tc.hi-tc.lo)
		assert.GreaterOrEqual(t, per, float64(prof.Memory.Latency.L1Hit)+2*float64(cfg.BranchCycles), "depth %d to %d", tc.lo, tc.hi)
		assert.Greater(t, b.Stalls[LongScoreboard], a.Stalls[LongScoreboard], "depth %d to %d", tc.lo, tc.hi)
	}
}
