package hier

// fillTable holds an SM's L1 fills in flight by line (windowed mode): an
// open-addressed table with linear probing, its entries in one slice, so
// that a look-up reads one or two cache lines where a Go map of pointers
// read three (its control word, its slot, the fill) and allocated a fill
// per miss. Fills are dropped once they have arrived (SM.forgetArrived),
// so that it stays about as small as what is in flight.
type fillTable struct {
	slots []fill // len a power of two; key 0: empty
	n     int
}

// fill is an L1 line's sectors on their way from L2: the group whose miss
// fetched them and, once resolved, the cycle they arrive.
type fill struct {
	key   uint64 // line + 1
	group uint64
	ready uint64 // 0 until Resolve
	mask  uint8
}

// fillRef names a fill: the line and the group that fetched it (a later
// miss of the line in another group replaces the fill; this one is then
// gone), and once dated, when it arrives.
type fillRef struct {
	line, group, ready uint64
}

func (t *fillTable) home(line uint64) int {
	h := (line + 1) * 0x9E3779B97F4A7C15
	return int(h >> 32 & uint64(len(t.slots)-1))
}

// get returns line's fill, or nil. The pointer is good until the next put
// or del.
func (t *fillTable) get(line uint64) *fill {
	if t.n == 0 {
		return nil
	}
	k, m := line+1, len(t.slots)-1
	for i := t.home(line); ; i = (i + 1) & m {
		e := &t.slots[i]
		if e.key == k {
			return e
		}
		if e.key == 0 {
			return nil
		}
	}
}

// put returns line's fill, a new zero one (its key set) if it had none.
func (t *fillTable) put(line uint64) *fill {
	if 2*(t.n+1) > len(t.slots) {
		t.grow()
	}
	k, m := line+1, len(t.slots)-1
	for i := t.home(line); ; i = (i + 1) & m {
		e := &t.slots[i]
		if e.key == k {
			return e
		}
		if e.key == 0 {
			t.n++
			*e = fill{key: k}
			return e
		}
	}
}

// del removes line's fill, moving back the entries after it whose probe
// passed its slot.
func (t *fillTable) del(line uint64) {
	if t.n == 0 {
		return
	}
	k, m := line+1, len(t.slots)-1
	i := t.home(line)
	for ; t.slots[i].key != k; i = (i + 1) & m {
		if t.slots[i].key == 0 {
			return
		}
	}
	t.n--
	for j := (i + 1) & m; t.slots[j].key != 0; j = (j + 1) & m {
		h := t.home(t.slots[j].key - 1)
		// The entry at j may move to i if its home is not in (i, j].
		if (j-h)&m >= (j-i)&m {
			t.slots[i] = t.slots[j]
			i = j
		}
	}
	t.slots[i] = fill{}
}

// grow doubles the table (64 slots at first).
func (t *fillTable) grow() {
	old := t.slots
	t.slots = make([]fill, max(64, 2*len(old)))
	t.n = 0
	for i := range old {
		if e := &old[i]; e.key != 0 {
			*t.put(e.key - 1) = *e
		}
	}
}
