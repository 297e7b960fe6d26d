package warpsimd

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPCsMatchLoops holds Fill32, Min32 and Eq32 to the plain lane loops
// on random PCs, a few values repeated (lanes at one PC), and the extremes
// (noPC is math.MaxInt32).
func TestPCsMatchLoops(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	vals := []int32{0, 1, -1, 5, math.MaxInt32, math.MinInt32}
	for i := range 20000 {
		var p [32]int32
		for l := range p {
			switch i % 3 {
			case 0:
				p[l] = r.Int32() - math.MaxInt32/2
			case 1:
				p[l] = vals[r.IntN(len(vals))]
			default:
				p[l] = int32(r.IntN(4))
			}
		}
		v := p[r.IntN(32)]
		if i%7 == 0 {
			v = vals[r.IntN(len(vals))]
		}
		assert.Equal(t, min32Go(&p), Min32(&p), "Min32 %v", p)
		assert.Equal(t, eq32Go(&p, v), Eq32(&p, v), "Eq32 %v, %d", p, v)
		q := p
		Fill32(&q, v)
		for l := range q {
			if q[l] != v {
				t.Fatalf("Fill32(%d): lane %d holds %d", v, l, q[l])
			}
		}
	}
}
