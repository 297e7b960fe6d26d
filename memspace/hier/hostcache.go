package hier

// hostLines is what the host remembers of the lines the GPU has written in
// part in mapped memory: a set-associative array of line numbers whose
// replacement is pseudo-random (a fixed xorshift sequence, so that runs
// repeat). The host must merge a partial write into its copy of the line;
// when the line is no longer in its cache that costs a trip to its DRAM
// (HostLinkConfig.HostWriteCacheBytes, WriteMissCycles).
type hostLines struct {
	tags []uint64 // line+1 per way, set after set; 0: empty
	sets uint64
	rnd  uint64
}

const hostLineWays = 16

// newHostLines returns the array for capacity bytes of lineBytes lines, or
// nil when it holds less than one set.
func newHostLines(capacity int64, lineBytes int) *hostLines {
	sets := uint64(capacity) / uint64(lineBytes) / hostLineWays
	if sets == 0 {
		return nil
	}
	return &hostLines{tags: make([]uint64, sets*hostLineWays), sets: sets, rnd: 0x9E3779B97F4A7C15}
}

// find returns line's slot when the array holds it, else nil.
func (h *hostLines) find(line uint64) *uint64 {
	set := h.tags[line%h.sets*hostLineWays:][:hostLineWays]
	for i := range set {
		if set[i] == line+1 {
			return &set[i]
		}
	}
	return nil
}

// touch reports whether line is held, and holds it from now on: in an
// empty way of its set, or else in one drawn at random.
func (h *hostLines) touch(line uint64) bool {
	if h.find(line) != nil {
		return true
	}
	set := h.tags[line%h.sets*hostLineWays:][:hostLineWays]
	for i, t := range set {
		if t == 0 {
			set[i] = line + 1
			return false
		}
	}
	h.rnd ^= h.rnd << 13
	h.rnd ^= h.rnd >> 7
	h.rnd ^= h.rnd << 17
	set[h.rnd%hostLineWays] = line + 1
	return false
}
