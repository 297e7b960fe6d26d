package vm

import "unsafe"

// FrameForTest returns the register file and predicates of the frame the
// warp runs next (after returns from calls are settled): the live storage,
// for tests that inspect or poison it.
func (w *Warp) FrameForTest() (regs []uint64, preds []uint32) {
	f := w.resume()
	if f == nil {
		f = w.top()
	}
	if len(f.regs) == 0 {
		return nil, f.preds
	}
	return unsafe.Slice(&f.regs[0][0], 32*len(f.regs)), f.preds
}

// CarryReg is the register index of the carry flag.
const CarryReg = int(ccReg / 32)

// WithoutLayout gives every register a slot of its own (layout.go) in
// kernels lowered until the returned function is called: for tests that
// inspect or poison the register file by register index (FrameForTest).
func WithoutLayout() (restore func()) {
	noLayout = true
	return func() { noLayout = false }
}

// WithoutContraction turns lowering's mul + add contraction off until the
// returned function is called: for measuring which results depend on it.
func WithoutContraction() (restore func()) {
	noContraction = true
	return func() { noContraction = false }
}

// ComputedApproximations makes the computed approximations stand in for the
// SFU tables until the returned function is called: for tests that check
// which registers instructions use, not their values.
func ComputedApproximations() (restore func()) {
	computedOnly = true
	return func() { computedOnly = false }
}

// LayoutSlots returns the frame slots f's registers take and how many
// registers it has (layout.go).
func (f *Func) LayoutSlots() (slots, regs int) {
	return f.frameLayout().slots, len(f.init)
}

// ChainPlansForTest returns how many FuseLdLdFmaChain plans the identity
// layout and the frame layout of f hold for its code as it is, and the
// instructions each plan of the frame layout runs.
func ChainPlansForTest(f *Func) (ident int, lens []int) {
	for _, p := range f.ident.chains {
		if p.code == &f.Code[0] {
			ident++
		}
	}
	for _, p := range f.frameLayout().chains {
		if p.code == &f.Code[0] {
			lens = append(lens, int(p.n))
		}
	}
	return ident, lens
}

// WithoutRuns turns full-warp runs (exec_run.go) off in kernels lowered
// until the returned function is called: every instruction steps through
// runFrame, for tests that compare the two.
func WithoutRuns() (restore func()) {
	noRuns = true
	return func() { noRuns = false }
}

// RunMarks returns how many instructions of f are marked FuseRun and how
// many its frame layout's run table covers.
func RunMarks(f *Func) (marked, covered int) {
	for pc := range f.Code {
		if f.Code[pc].Fuse == FuseRun {
			marked++
		}
	}
	for _, o := range f.frameLayout().runs {
		if o.K != runNone {
			covered++
		}
	}
	return marked, covered
}

// WithoutRunKernels makes runs execute every form in Go (as on a host
// without AVX2) until the returned function is called.
func WithoutRunKernels() (restore func()) {
	noRunKernels = true
	return func() { noRunKernels = false }
}

// WithoutStepOne makes Step run every instruction through the interpreter
// loop (runFrame) until the returned function is called, for tests that
// compare its single-instruction path (step_one.go) with it.
func WithoutStepOne() (restore func()) {
	stepOneOff = true
	return func() { stepOneOff = false }
}

// NextGeneral is Next without its fast first test.
func (w *Warp) NextGeneral() (*InstInfo, uint32) { return w.nextGeneral() }
