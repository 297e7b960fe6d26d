package suite_test

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptxvm/ptxvm/scheduler/suite"
	"github.com/ptxvm/ptxvm/vm/spec/npy"
)

// vecaddCase writes a case folder: C = A + B over n elements, A = iota,
// B = 0.5, with the files given under expected/.
func vecaddCase(t *testing.T, root, name string, n, count int, extra string, files map[string][]byte) {
	t.Helper()
	dir := filepath.Join(root, name)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "expected"), 0o755))
	src, err := os.ReadFile(filepath.Join("..", "..", "vm", "spec", "testdata", "vecadd.ptx"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "vecadd.ptx"), src, 0o644))
	spec := fmt.Sprintf(`{"module": "vecadd.ptx", "kernel": "vecadd", "grid": [%d], "block": [128],
 "buffers": [{"name": "C", "type": "f32", "count": %d},
             {"name": "A", "type": "f32", "count": %d, "fill": {"kind": "iota"}},
             {"name": "B", "type": "f32", "count": %d, "fill": {"kind": "const", "value": 0.5}}],
 "args": [{"buffer": "C"}, {"buffer": "A"}, {"buffer": "B"}, {"s32": %d}], "outputs": ["C"]%s}`,
		(n+127)/128, count, count, count, n, extra)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "spec.json"), []byte(spec), 0o644))
	for f, b := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "expected", f), b, 0o644))
	}
}

// vecaddOut is what the GPU computes for vecaddCase (a float32 add each).
func vecaddOut(n int) []byte {
	b := make([]byte, 4*n)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(i)+0.5))
	}
	return b
}

func TestExpectedForms(t *testing.T) {
	root := t.TempDir()
	const big = 100000 // 400 KB: recorded as a digest
	out := vecaddOut(big)
	sum := sha256.Sum256(out)
	digest := hex.EncodeToString(sum[:])
	hdr, err := npy.Encode("f32", 256)
	require.NoError(t, err)
	wrong := append([]byte(nil), out[:4*256]...)
	wrong[4*7] ^= 1
	vecaddCase(t, root, "bin", 256, 256, "", map[string][]byte{"C.bin": out[:4*256]})
	vecaddCase(t, root, "npy", 256, 256, "", map[string][]byte{"C.npy": append(hdr, out[:4*256]...)})
	vecaddCase(t, root, "sha", big, big, "", map[string][]byte{"C.sha256": []byte(fmt.Sprintf("%s %d\n", digest, len(out)))})
	vecaddCase(t, root, "sha_wrong", big, big, "", map[string][]byte{"C.sha256": []byte("0" + digest[1:] + "\n")})
	vecaddCase(t, root, "bin_wrong", 256, 256, "", map[string][]byte{"C.bin": wrong})
	vecaddCase(t, root, "tolerated", 256, 256, `, "tolerance": {"ulp": 1}`, map[string][]byte{"C.bin": wrong})
	// The GPU faulted: n beyond the buffers.
	vecaddCase(t, root, "fault", 100000, 256, "", map[string][]byte{"ERROR": []byte("cudaErrorIllegalAddress\nan illegal memory access was encountered\n")})
	vecaddCase(t, root, "fault_missed", 256, 256, "", map[string][]byte{"ERROR": []byte("cudaErrorIllegalAddress\n")})
	vecaddCase(t, root, "missing", 256, 256, "", nil)

	cases, err := suite.Find(root)
	require.NoError(t, err)
	byName := map[string]*suite.Result{}
	for _, r := range suite.Run(context.Background(), cases, suite.Options{}, nil) {
		byName[filepath.Base(r.Name)] = r
	}
	for _, c := range []struct {
		name   string
		status suite.Status
		check  func(t *testing.T, r *suite.Result)
	}{
		{"bin", suite.Pass, nil},
		{"npy", suite.Pass, nil},
		{"sha", suite.Pass, func(t *testing.T, r *suite.Result) {
			require.NotNil(t, r.Outputs[0].Digest)
			assert.Equal(t, digest, r.Outputs[0].Digest.Got)
		}},
		{"sha_wrong", suite.Fail, func(t *testing.T, r *suite.Result) {
			assert.NotEqual(t, r.Outputs[0].Digest.Got, r.Outputs[0].Digest.Want)
		}},
		{"bin_wrong", suite.Fail, func(t *testing.T, r *suite.Result) { assert.Equal(t, 1, r.Outputs[0].Differ) }},
		{"tolerated", suite.Pass, func(t *testing.T, r *suite.Result) {
			assert.Equal(t, 1, r.Outputs[0].Tolerated)
			assert.Equal(t, map[string]int{"ulp": 1}, r.Outputs[0].Allowed)
		}},
		{"fault", suite.Pass, func(t *testing.T, r *suite.Result) {
			assert.Equal(t, "cudaErrorIllegalAddress", r.ExpectedError)
			assert.Contains(t, r.Error, "global")
		}},
		{"fault_missed", suite.Fail, func(t *testing.T, r *suite.Result) {
			assert.Equal(t, "the GPU failed (cudaErrorIllegalAddress); the emulator ran the launch to completion", r.Error)
		}},
		{"missing", suite.Error, func(t *testing.T, r *suite.Result) {
			assert.Equal(t, "expected/C.bin is missing (nor .npy or .sha256)", r.Error)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := byName[c.name]
			require.NotNil(t, r)
			require.Equal(t, c.status, r.Status, "%+v", r)
			if c.check != nil {
				c.check(t, r)
			}
		})
	}
}
