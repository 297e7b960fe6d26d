package timing

// Trace records a launch's timeline (filled in by trace_write.go).
type Trace struct {
	sms []*smTrace
}

type smTrace struct{}

func (t *Trace) forSM(i int) *smTrace {
	for len(t.sms) <= i {
		t.sms = append(t.sms, &smTrace{})
	}
	return t.sms[i]
}
func (t *Trace) finish(*Result)                       {}
func (t *smTrace) ctaStart(*cta, uint64)              {}
func (t *smTrace) ctaEnd(*cta, uint64)                {}
func (t *smTrace) warpEnd(*warp, uint64)              {}
func (t *smTrace) stall(*warp, Stall, uint64, uint64) {}
func (t *smTrace) issue(*warp, uint64)                {}
