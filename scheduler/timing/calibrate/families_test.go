package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler/internal/ncu"
)

const testdataRoot = "../../../testdata"

// TestEveryCalibrationLaunchHasAFamily: a launch of the calibration set
// whose kernel no family names would silently be left out of the split.
func TestEveryCalibrationLaunchHasAFamily(t *testing.T) {
	fams, err := loadFamilies(testdataRoot)
	require.NoError(t, err)
	ls, err := calibrationSet(testdataRoot, 30000, "", 0)
	require.NoError(t, err)
	require.NotEmpty(t, ls)
	for _, l := range ls {
		if l.Corpus == publicCorpus {
			continue
		}
		f, s := fams.of(l)
		assert.NotEqual(t, splitNone, s, "%s (%s) has no family in testdata/families.json", l.Name(), kernelKey(l.Corpus, l.Kernel))
		assert.NotEmpty(t, f, l.Name())
	}
}

// TestHeldOutFamilies: at least 30% of the families that have calibration
// launches are held out, and so are at least a fifth of the launches;
// the kernels the calibration pairs compare are all in training.
func TestHeldOutFamilies(t *testing.T) {
	fams, err := loadFamilies(testdataRoot)
	require.NoError(t, err)
	ls, err := calibrationSet(testdataRoot, 30000, "", 0)
	require.NoError(t, err)
	bySplit := map[split]map[string]bool{splitTrain: {}, splitHeld: {}}
	launches := map[split]int{}
	for _, l := range ls {
		f, s := fams.of(l)
		if s == splitTrain || s == splitHeld {
			bySplit[s][f] = true
			launches[s]++
		}
	}
	held, train := len(bySplit[splitHeld]), len(bySplit[splitTrain])
	t.Logf("families with calibration launches: %d training, %d held out; launches %d / %d", train, held, launches[splitTrain], launches[splitHeld])
	assert.GreaterOrEqual(t, float64(held)/float64(held+train), 0.30)
	assert.GreaterOrEqual(t, float64(launches[splitHeld])/float64(launches[splitHeld]+launches[splitTrain]), 0.20)

	ps, err := pairs(testdataRoot)
	require.NoError(t, err)
	pl, err := pairLaunches(testdataRoot, ps)
	require.NoError(t, err)
	require.NotEmpty(t, pl)
	for _, l := range pl {
		f, s := fams.of(l)
		assert.Equal(t, splitTrain, s, "%s (family %s) is compared by a calibration pair", l.Name(), f)
	}
}

func TestKernelKey(t *testing.T) {
	for _, c := range []struct{ corpus, mangled, want string }{
		{"apps", "_Z9adam_stepPfS_S_PKfjffffff", "apps:adam_step"},
		{"perf", "reduce_shared", "perf:reduce_shared"},
		{"nvcc", "_Z12matmul_tiledPfPKfS1_j", "nvcc:matmul_tiled"},
	} {
		assert.Equal(t, c.want, kernelKey(c.corpus, c.mangled))
	}
	fams, err := loadFamilies(testdataRoot)
	require.NoError(t, err)
	assert.Equal(t, splitHeld, fams.ofFormKernel("apps/graph.O3:_Z9bfs_blockPiPKjS1_jj"))
	assert.Equal(t, splitTrain, fams.ofFormKernel("perf/calib.O3:reduce_shfl"))
	assert.Equal(t, splitNone, fams.ofFormKernel("nvcc/none.O3:_Z7unknownv"))
	f, s := fams.of(&ncu.Launch{Corpus: publicCorpus, Case: "x"})
	assert.Equal(t, splitPublic, s)
	assert.Equal(t, "public:x", f)
}

// TestPublicConsultedFamiliesExist: every public family families.json says
// was consulted is a family of the public corpus's manifest, so the
// "never consulted" figure leaves out what it says it leaves out.
func TestPublicConsultedFamiliesExist(t *testing.T) {
	fams, err := loadFamilies(testdataRoot)
	require.NoError(t, err)
	require.NotEmpty(t, fams.consulted)
	known := map[string]bool{}
	for _, f := range fams.public {
		known[f] = true
	}
	for f := range fams.consulted {
		assert.True(t, known[f], "public_consulted names %s, which no public case is in", f)
	}
}
