package vm

import (
	"errors"
	"fmt"
)

// Probe runs the blocks given (linear indices), one after another on an SM
// of their own, functionally, and returns the warp instructions they
// executed (PTX instructions, as Stats.Inst counts them), leaving the
// launch and its device's memory as they were before: a caller looks at
// what some of a launch's blocks do before it runs the launch (the timing
// model's automatic sampling estimates the launch's size so). The memory
// is restored through a checkpoint (memspace.Checkpoint), so the blocks'
// stores and atomics are undone, and their instructions are not counted
// against the launch's budget (MaxInst).
//
// At most budget warp instructions run (0: no limit): ran is how many of
// the blocks finished, len(blocks) unless the budget ran out first (not an
// error; inst is then a little past budget). A block that faults or
// deadlocks ends the probe with its error. Launches with clusters of more
// than one block are refused (their blocks do not run alone), as is a
// launch that was stopped.
func (l *Launch) Probe(blocks []int, budget int64) (inst int64, ran int, err error) {
	if l.ClusterSize() > 1 {
		return 0, 0, fmt.Errorf("kernel %s: a launch with clusters is not probed", l.Kernel.Name)
	}
	if l.Module == nil || l.Module.dev == nil {
		return 0, 0, fmt.Errorf("kernel %s: the launch has no device", l.Kernel.Name)
	}
	if l.stop.Load() {
		return 0, 0, errStopped
	}
	cp := l.Module.dev.Mem.Checkpoint()
	before, maxInst := l.instTotal.Load(), l.MaxInst
	l.MaxInst = 0
	if budget > 0 {
		l.MaxInst = before + budget
	}
	defer func() {
		cp.Rollback()
		l.instTotal.Store(before)
		l.MaxInst = maxInst
		l.stop.Store(false)
	}()
	s := l.NewSM(0)
	for _, b := range blocks {
		err := s.RunCTA(b)
		inst = l.instTotal.Load() - before
		if errors.Is(err, ErrBudget) {
			return inst, ran, nil
		}
		if err != nil {
			return inst, ran, err
		}
		ran++
	}
	return inst, ran, nil
}
