package timing

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strconv"
)

// Trace records a timed launch's timeline for Chrome's trace viewer and
// Perfetto (Chrome Trace Event JSON, written by WriteJSON): a process per
// SM; on each SM a track per block slot with the blocks that ran there, and
// for the SMs it samples a track per warp slot with each warp's lifetime
// and, nested in it, the spans in which it stalled (reason, the
// instruction it waited to issue and its source line). Barrier waits are
// stall spans named "barrier".
//
// Large launches stay readable and the file small: warps are traced on
// the first SampleSMs SMs only, stall spans shorter than MinStall cycles
// are left out, and once MaxEvents events are recorded no more stall spans
// are (TruncatedStalls counts them).
type Trace struct {
	// SampleSMs is how many SMs (the lowest-numbered) get warp tracks
	// (0: 4).
	SampleSMs int
	// MinStall is the shortest stall span recorded, in cycles (0: 16).
	MinStall uint64
	// MaxEvents bounds the events recorded (0: 300,000, about 40 MB).
	MaxEvents int

	// TruncatedStalls counts the stall spans dropped by MaxEvents.
	TruncatedStalls int

	sms    []*smTrace
	res    *Result
	clock  float64
	events int
	kernel string
}

// event is one complete ("X") event.
type event struct {
	tid       int32
	ts, dur   uint64
	name      string
	inst      int32 // instruction id for args, or -1
	stall     bool
	blockName string
}

type smTrace struct {
	t       *Trace
	id      int
	warps   bool // this SM's warps are traced
	ev      []event
	slots   []bool // block slots in use
	ctaSlot map[*cta]int
	n       int
	// dropped counts the stall spans this SM left out (per SM: the SMs of
	// different workers advance at once).
	dropped int
}

func (t *Trace) defaults() {
	if t.SampleSMs == 0 {
		t.SampleSMs = 4
	}
	if t.MinStall == 0 {
		t.MinStall = 16
	}
	if t.MaxEvents == 0 {
		t.MaxEvents = 300000
	}
}

func (t *Trace) forSM(i int) *smTrace {
	t.defaults()
	for len(t.sms) <= i {
		t.sms = append(t.sms, nil)
	}
	st := &smTrace{t: t, id: i, warps: i < t.SampleSMs, ctaSlot: map[*cta]int{}}
	t.sms[i] = st
	return st
}

// budget says whether a per-SM share of MaxEvents is left.
func (st *smTrace) budget() bool {
	return st.n < st.t.MaxEvents/max(1, min(len(st.t.sms), st.t.SampleSMs+1))
}

func (st *smTrace) add(e event) {
	st.ev = append(st.ev, e)
	st.n++
}

func blockName(b *cta) string {
	id := b.c.ID()
	return fmt.Sprintf("block (%d,%d,%d)", id[0], id[1], id[2])
}

func (st *smTrace) ctaStart(b *cta, at uint64) {
	slot := 0
	for slot < len(st.slots) && st.slots[slot] {
		slot++
	}
	if slot == len(st.slots) {
		st.slots = append(st.slots, false)
	}
	st.slots[slot] = true
	st.ctaSlot[b] = slot
}

func (st *smTrace) ctaEnd(b *cta, at uint64) {
	slot := st.ctaSlot[b]
	delete(st.ctaSlot, b)
	st.slots[slot] = false
	st.add(event{tid: int32(1 + slot), ts: b.start, dur: at - b.start, name: blockName(b), inst: -1})
}

func (st *smTrace) warpEnd(w *warp, at uint64) {
	if !st.warps {
		return
	}
	st.add(event{tid: int32(1000 + w.w.Slot()), ts: w.start, dur: at - w.start,
		name: fmt.Sprintf("%s warp %d", blockName(w.cta), w.w.ID()), inst: -1})
}

func (st *smTrace) stall(w *warp, why Stall, from, to uint64) {
	if !st.warps || to-from < st.t.MinStall || why == Selected || why == NotSelected {
		return
	}
	if !st.budget() {
		st.dropped++
		return
	}
	st.add(event{tid: int32(1000 + w.w.Slot()), ts: from, dur: to - from, name: why.String(), inst: w.waitID, stall: true})
}

func (st *smTrace) issue(*warp, uint64) {}

func (t *Trace) finish(r *Result) {
	t.res = r
	t.clock = r.ClockMHz
	t.TruncatedStalls = t.dropped()
}

// dropped is the stall spans the SMs left out.
func (t *Trace) dropped() int {
	n := 0
	for _, st := range t.sms {
		if st != nil {
			n += st.dropped
		}
	}
	return n
}

// WriteJSON writes the trace as Chrome Trace Event JSON: times in
// microseconds at the profile's clock, one process per SM, events sorted
// by track and time (a span's children after it).
func (t *Trace) WriteJSON(w io.Writer) error {
	if t.res == nil {
		return fmt.Errorf("trace: no timed run recorded it")
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	// Times in microseconds to the picosecond; a span's duration is the
	// difference of its rounded ends, so that adjacent spans stay adjacent.
	round := func(c uint64) float64 { return math.Round(float64(c)/t.clock*1e6) / 1e6 }
	us := func(c uint64) string { return strconv.FormatFloat(round(c), 'f', 6, 64) }
	dur := func(ts, d uint64) string { return strconv.FormatFloat(round(ts+d)-round(ts), 'f', 6, 64) }
	first := true
	sep := func() {
		if !first {
			bw.WriteString(",\n")
		}
		first = false
	}
	bw.WriteString(`{"displayTimeUnit":"ns","otherData":{"clock_mhz":`)
	bw.WriteString(strconv.FormatFloat(t.clock, 'f', -1, 64))
	fmt.Fprintf(bw, `,"cycles":%d,"sampled_sms":%d,"min_stall_cycles":%d,"truncated_stalls":%d},"traceEvents":[`+"\n",
		t.res.Cycles, t.SampleSMs, t.MinStall, t.TruncatedStalls)
	for _, st := range t.sms {
		if st == nil || len(st.ev) == 0 {
			continue
		}
		sep()
		fmt.Fprintf(bw, `{"name":"process_name","ph":"M","pid":%d,"tid":0,"args":{"name":"SM %d"}}`, st.id, st.id)
		sep()
		fmt.Fprintf(bw, `{"name":"process_sort_index","ph":"M","pid":%d,"tid":0,"args":{"sort_index":%d}}`, st.id, st.id)
		tids := map[int32]bool{}
		for _, e := range st.ev {
			tids[e.tid] = true
		}
		var ts []int
		for x := range tids {
			ts = append(ts, int(x))
		}
		sort.Ints(ts)
		for _, x := range ts {
			name := fmt.Sprintf("block slot %d", x-1)
			if x >= 1000 {
				name = fmt.Sprintf("warp slot %d", x-1000)
			}
			sep()
			fmt.Fprintf(bw, `{"name":"thread_name","ph":"M","pid":%d,"tid":%d,"args":{"name":%q}}`, st.id, x, name)
		}
		ev := st.ev
		sort.SliceStable(ev, func(i, j int) bool {
			a, b := &ev[i], &ev[j]
			if a.tid != b.tid {
				return a.tid < b.tid
			}
			if a.ts != b.ts {
				return a.ts < b.ts
			}
			return a.dur > b.dur
		})
		for _, e := range ev {
			sep()
			fmt.Fprintf(bw, `{"name":%q,"ph":"X","pid":%d,"tid":%d,"ts":%s,"dur":%s`, e.name, st.id, e.tid, us(e.ts), dur(e.ts, e.dur))
			if e.stall {
				bw.WriteString(`,"cat":"stall"`)
			} else if e.tid >= 1000 {
				bw.WriteString(`,"cat":"warp"`)
			} else {
				bw.WriteString(`,"cat":"block"`)
			}
			fmt.Fprintf(bw, `,"args":{"cycle":%d,"cycles":%d`, e.ts, e.dur)
			if e.inst >= 0 && int(e.inst) < len(t.res.Insts) {
				in := t.res.Insts[e.inst]
				fmt.Fprintf(bw, `,"waiting_to_issue":%q,"ptx_line":%d`, in.Form, in.Info.Line)
				if loc, ok := in.Info.Source(); ok {
					fmt.Fprintf(bw, `,"source":"%s:%d"`, filepath.Base(loc.File), loc.Line)
				}
			}
			bw.WriteString("}}")
		}
	}
	bw.WriteString("\n]}\n")
	return bw.Flush()
}
