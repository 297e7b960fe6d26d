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
	blocks := make([]Placed, len(indices))
	for i, x := range indices {
		blocks[i] = Placed{SM: s, Index: x}
	}
	return RunPlaced(blocks, quantum)
}

// Placed is a block (its linear index) and the SM it runs on.
type Placed struct {
	SM    *SM
	Index int
}

// RunPlaced runs blocks on the SMs given, all together, as RunCTAs runs
// blocks of one SM: every warp of every block takes turns of quantum
// instructions, in the order of blocks. The SMs belong to the calling
// goroutine. It is how the blocks of a cluster run: placed on SMs of their
// own, they wait at one another's barrier.cluster and read one another's
// shared memory. Every block given must belong to one launch.
func RunPlaced(blocks []Placed, quantum int) error {
	quantum = max(1, quantum)
	if len(blocks) == 0 {
		return nil
	}
	l := blocks[0].SM.l
	active := make([]*CTA, 0, len(blocks))
	defer func() {
		for _, c := range active {
			if c.sm != nil { // not retired already
				c.sm.Retire(c)
			}
		}
	}()
	for _, b := range blocks {
		b.SM.fault = nil
	}
	for _, b := range blocks {
		c, err := b.SM.Admit(b.Index)
		if err != nil {
			return err
		}
		watch := b.SM.Observer != nil
		for _, w := range c.warps {
			w.watch = watch
		}
		active = append(active, c)
	}
	for len(active) > 0 {
		progress := false
		n := 0
		for _, c := range active {
			s := c.sm
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
			return placedFault(blocks, active[0].Deadlock())
		}
	}
	return placedFault(blocks, nil)
}

// placedFault is the error a run of blocks ends with: the first fault an
// SM's OnFault went on after, else err.
func placedFault(blocks []Placed, err error) error {
	for _, b := range blocks {
		if ft := b.SM.fault; ft != nil {
			for _, o := range blocks {
				o.SM.fault = nil
			}
			return ft
		}
	}
	return err
}
