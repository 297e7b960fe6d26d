package timing

// SpanKind says what a span a Trace recorded stands for.
type SpanKind uint8

// Span kinds.
const (
	// SpanBlock is a block's residence on an SM, from its start to its
	// retirement; Slot is its block slot.
	SpanBlock SpanKind = iota
	// SpanWarp is a warp's lifetime (sampled SMs only); Slot is its warp
	// slot.
	SpanWarp
	// SpanStall is a wait of a warp, inside its warp's span: Reason and the
	// instruction it waited to issue.
	SpanStall
)

// Span is one span of a recorded timeline, for views other than the Chrome
// Trace Event file (the HTML report draws its timeline from them).
type Span struct {
	Kind     SpanKind
	SM, Slot int
	// Start and Cycles are in SM cycles from the launch's start.
	Start, Cycles uint64
	// Reason and Inst (an index into Result.Insts, -1 if none) of a stall.
	Reason Stall
	Inst   int32
}

// Spans calls f with every span the trace recorded, SM by SM (the spans of
// one SM in no particular order). The trace must have recorded a run.
func (t *Trace) Spans(f func(Span)) {
	for _, st := range t.sms {
		if st == nil {
			continue
		}
		for i := range st.ev {
			e := &st.ev[i]
			s := Span{SM: st.id, Start: e.ts, Cycles: e.dur, Inst: -1}
			switch {
			case e.stall:
				s.Kind, s.Slot, s.Inst = SpanStall, int(e.tid-1000), e.inst
				s.Reason = stallByName(e.name)
			case e.tid >= 1000:
				s.Kind, s.Slot = SpanWarp, int(e.tid-1000)
			default:
				s.Kind, s.Slot = SpanBlock, int(e.tid-1)
			}
			f(s)
		}
	}
}

// Recorded reports whether the trace holds a finished run.
func (t *Trace) Recorded() bool { return t.res != nil }

func stallByName(name string) Stall {
	for s := Stall(0); s < NumStalls; s++ {
		if stallNames[s] == name {
			return s
		}
	}
	return NumStalls
}

// StallsCut reports whether the trace stopped recording an SM's stalls
// when it ran out of its share of MaxEvents, and if so the cycle its last
// recorded stall ended at: later stalls of that SM are missing (blocks and
// warps are still recorded).
func (t *Trace) StallsCut(sm int) (uint64, bool) {
	if t.dropped() == 0 || sm < 0 || sm >= len(t.sms) || t.sms[sm] == nil || !t.sms[sm].warps || t.sms[sm].budget() {
		return 0, false
	}
	var last uint64
	for i := range t.sms[sm].ev {
		if e := &t.sms[sm].ev[i]; e.stall {
			last = max(last, e.ts+e.dur)
		}
	}
	return last, true
}
