package timing

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler/gpu"
)

// A probe whose block faults alone (here: blocks from 512 on store past
// their buffer) decides nothing: the sampling asked for is kept (its
// waves on the whole GPU, decided from the first waves), the reason is
// given, and memory and the launch's count are as before.
func TestPlanAutoProbeFails(t *testing.T) {
	src := outKernel(`	mov.u32 %r1, %ctaid.x;
	mul.wide.u32 %rd3, %r1, 4;
	add.u64 %rd4, %rd2, %rd3;
	st.global.u32 [%rd4], %r1;
	ret;
`)
	l, dev, buf := ptxLaunch(t, src, 1024, 32, 2048)
	s := AutoSample(false)
	got, a := PlanAuto(l, gpu.MustLookup("h100"), 1, s, nil)
	assert.Equal(t, s, got)
	require.NotNil(t, a)
	assert.False(t, a.Sampled)
	assert.Contains(t, a.Why, "could not be estimated ahead")
	assert.Contains(t, a.Why, "not inside any allocation")
	assert.Zero(t, l.InstExecuted())
	out := make([]byte, 2048)
	require.NoError(t, dev.MemcpyDtoH(out, buf))
	assert.Equal(t, make([]byte, 2048), out, "the probed blocks' stores undone")
}
