package sasscost

import (
	"math"
)

// Problem is a least-squares fit of form costs: rows of form counts whose
// weighted sum should equal a measured count, with each form's cost drawn
// toward a prior.
type Problem struct {
	// Forms names the columns.
	Forms []string
	// Prior is each form's prior cost, Scale how far from it the data may
	// pull it at no more than the cost of one row's whole error (the
	// prior's weight is Lambda/Scale²).
	Prior, Scale []float64
	// Fixed marks the forms whose cost is known exactly (one machine
	// instruction whatever surrounds it): they keep their prior.
	Fixed  []bool
	Lambda float64
	Rows   []Row
}

// Row says that sum over j of X[j]·cost[Col[j]] should be Y, with weight
// W on the squared relative error.
type Row struct {
	Col []int
	X   []float64
	Y   float64
	W   float64
}

// Solve minimises Σ_rows W·((Σ X·cost − Y)/Y)² + Lambda·Σ_forms
// ((cost − Prior)/Scale)² over non-negative costs (coordinate descent on
// the quadratic, from the priors).
func (p *Problem) Solve(sweeps int) []float64 {
	n := len(p.Forms)
	s := append([]float64(nil), p.Prior...)
	// Columns: for each form the rows it appears in.
	type ent struct {
		row int
		a   float64
	}
	cols := make([][]ent, n)
	resid := make([]float64, len(p.Rows)) // Y' − A s, rows scaled by sqrt(W)/Y
	for i, r := range p.Rows {
		k := math.Sqrt(r.W) / r.Y
		resid[i] = math.Sqrt(r.W)
		for j, c := range r.Col {
			a := r.X[j] * k
			cols[c] = append(cols[c], ent{i, a})
			resid[i] -= a * s[c]
		}
	}
	for range sweeps {
		change := 0.0
		for j := 0; j < n; j++ {
			if j < len(p.Fixed) && p.Fixed[j] {
				continue
			}
			d := p.Lambda / (p.Scale[j] * p.Scale[j])
			num, den := d*p.Prior[j], d
			for _, e := range cols[j] {
				num += e.a * (resid[e.row] + e.a*s[j])
				den += e.a * e.a
			}
			v := max(0, num/den)
			if dv := v - s[j]; dv != 0 {
				for _, e := range cols[j] {
					resid[e.row] -= e.a * dv
				}
				change = max(change, math.Abs(dv))
				s[j] = v
			}
		}
		if change < 1e-7 {
			break
		}
	}
	return s
}
