package html

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFormat(t *testing.T) {
	tests := []struct {
		v                    float64
		comma, compact, byts string
	}{
		{0, "0", "0", "0 B"},
		{4, "4", "4", "4 B"},
		{2.5, "2.5", "2.5", "2.5 B"},
		{1015808, "1,015,808", "1.02M", "1.02 MB"},
		{8192, "8,192", "8192", "8.19 kB"},
		{65536, "65,536", "65.5k", "65.5 kB"},
		{-1500, "-1,500", "-1500", "-1.5 kB"},
		{87.16, "87.16", "87.2", "87.16 B"},
		{4.2e9, "4,200,000,000", "4.2G", "4.2 GB"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.comma, comma(tt.v), "comma(%v)", tt.v)
		assert.Equal(t, tt.compact, compact(tt.v), "compact(%v)", tt.v)
		assert.Equal(t, tt.byts, bytesText(tt.v), "bytesText(%v)", tt.v)
	}
	for _, tt := range []struct {
		a, b float64
		want string
	}{
		{1048576, 65536, "16× fewer"}, {2, 4, "2× more"}, {3, 3, "the same"}, {0, 5, "new in B"}, {5, 0, "none in B"}, {524288, 811008, "1.55× more"},
	} {
		assert.Equal(t, tt.want, ratioWords(tt.a, tt.b, "fewer", "more"))
	}
}

func TestWbr(t *testing.T) {
	assert.Equal(t, "l1tex__<wbr>t_<wbr>sectors.<wbr>sum", string(wbr("l1tex__t_sectors.sum")))
	assert.Equal(t, "a&lt;b_<wbr>c", string(wbr("a<b_c")))
}

func TestNiceStep(t *testing.T) {
	for _, tt := range []struct{ raw, want float64 }{{0.3, 0.5}, {1, 1}, {7, 10}, {8, 10}, {2.2, 2.5}, {0, 1}} {
		assert.Equal(t, tt.want, niceStep(tt.raw), "niceStep(%v)", tt.raw)
	}
}
