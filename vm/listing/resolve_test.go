package listing

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestResolve(t *testing.T) {
	names := []string{
		"_Z12matmul_naivePfPKfS1_j",
		"_Z12matmul_tiledPfPKfS1_j",
		"_Z5scalePfj",
		"_Z5scalePdj", // an overload
		"_ZN5outer5inner4fillIfLi16EEEvPNS0_4TileIT_XT0_EEES3_",
		"_ZN5outer5inner4fillIdLi4EEEvPNS0_4TileIT_XT0_EEES3_",
		"plain_c_kernel",
	}
	for _, c := range []struct{ want, got, err string }{
		{"_Z12matmul_tiledPfPKfS1_j", "_Z12matmul_tiledPfPKfS1_j", ""},
		{"matmul_tiled", "_Z12matmul_tiledPfPKfS1_j", ""},
		{"matmul_tiled(float*, float const*, float const*, unsigned int)", "_Z12matmul_tiledPfPKfS1_j", ""},
		{"matmul_tiled(float*,float const*,float const*,unsigned int)", "_Z12matmul_tiledPfPKfS1_j", ""},
		{"tiled", "_Z12matmul_tiledPfPKfS1_j", ""},
		{"naive", "_Z12matmul_naivePfPKfS1_j", ""},
		{"matmul", "", `"matmul" names 2 kernels`},
		{"scale", "", `"scale" names 2 kernels; give the signature or the mangled name:
  scale(float*, unsigned int)  (_Z5scalePfj)
  scale(double*, unsigned int)  (_Z5scalePdj)`},
		{"scale(double*, unsigned int)", "_Z5scalePdj", ""},
		{"outer::inner::fill<double, 4>", "_ZN5outer5inner4fillIdLi4EEEvPNS0_4TileIT_XT0_EEES3_", ""},
		{"fill<float, 16>", "_ZN5outer5inner4fillIfLi16EEEvPNS0_4TileIT_XT0_EEES3_", ""},
		{"inner::fill<float, 16>", "_ZN5outer5inner4fillIfLi16EEEvPNS0_4TileIT_XT0_EEES3_", ""},
		{"fill", "", `"fill" names 2 kernels`},
		{"plain_c_kernel", "plain_c_kernel", ""},
		{"plain", "plain_c_kernel", ""},
		{"transpose", "", `no kernel matches "transpose"; the module has:
  matmul_naive(float*, float const*, float const*, unsigned int)  (_Z12matmul_naivePfPKfS1_j)`},
	} {
		t.Run(c.want, func(t *testing.T) {
			got, err := Resolve(names, c.want)
			if c.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), c.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.got, got)
		})
	}
	_, err := Resolve(nil, "k")
	assert.ErrorContains(t, err, "no kernels")
}
