package vm

// RunCTAs runs the blocks of indices (linear, x fastest) to completion
// together, as an SM holds several blocks at once: every warp of every
// resident block runs quantum warp instructions in turn (blocks in the
// order given, warps in order), until all are done. A warp that waits at a
// barrier gives its turn away. Each block is retired once done.
//
// The functional result is RunCTA's for kernels whose blocks do not race
// with one another; what changes is the order in which the blocks' memory
// accesses reach the SM's Observer: interleaved as the GPU's warp
// schedulers interleave them, rather than one warp after another. A small
// quantum interleaves finely and costs more host time (each turn is a call
// into the interpreter). quantum < 1 means 1.
func (s *SM) RunCTAs(indices []int, quantum int) error {
	quantum = max(1, quantum)
	l := s.l
	active := make([]*CTA, 0, len(indices))
	defer func() {
		for _, c := range active {
			s.Retire(c)
		}
	}()
	watch := s.Observer != nil
	s.fault = nil
	for _, i := range indices {
		c, err := s.Admit(i)
		if err != nil {
			return err
		}
		for _, w := range c.warps {
			w.watch = watch
		}
		active = append(active, c)
	}
	for len(active) > 0 {
		progress := false
		n := 0
		for _, c := range active {
			running, ran, err := s.turn(c, quantum)
			if err != nil {
				return err
			}
			progress = progress || ran
			if running == 0 {
				s.Retire(c)
				continue
			}
			active[n] = c
			n++
		}
		active = active[:n]
		if l.stop.Load() {
			return errStopped
		}
		if len(active) > 0 && !progress {
			// Every warp of every resident block waits at a barrier that
			// cannot complete: report the first block.
			return s.faulted(active[0].Deadlock())
		}
	}
	return s.faulted(nil)
}
