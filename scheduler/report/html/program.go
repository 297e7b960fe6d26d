package html

import (
	"errors"
	"fmt"
	"html/template"
	"io"
	"math"
	"strings"

	"github.com/ptxvm/ptxvm/scheduler/program"
	"github.com/ptxvm/ptxvm/vm/spec"
)

// programView is one program's page data: its steps on a timeline of the
// engines they keep busy (copy engines, SMs, host), a table and the
// diagnosis.
type programView struct {
	Tag, From, GPU, Mode string
	Timed                bool
	Total                string
	Steps                []programStepView
	Shares               []program.Share
	Diagnosis            []string
	Timeline             template.HTML
}

type programStepView struct {
	Index                        int
	What, Engine, Bytes          string
	Start, Time, Share, Kind, GB string
}

// timeline geometry: the lanes' label column and the drawing's width.
const (
	ptlLabelW = 120
	ptlW      = 1000
	ptlLaneH  = 34
)

var ptlLanes = []struct {
	engine program.Engine
	label  string
}{{program.EngineCopy, "copy engines"}, {program.EngineSMs, "SMs"}, {program.EngineHost, "host"}}

// stepColour: copies by host memory, kernels, the rest (Okabe–Ito).
func stepColour(s program.Step) string {
	switch {
	case s.Kind == spec.StepLaunch:
		return "#0072b2"
	case s.Kind == spec.StepCopy && s.HostMemory == spec.HostPageable:
		return "#d55e00"
	case s.Kind == spec.StepCopy && s.Engine == program.EngineHost:
		return "#cc79a7"
	case s.Kind == spec.StepCopy:
		return "#009e73"
	case s.Kind == spec.StepPrefetch:
		return "#e69f00"
	}
	return "#999999"
}

// timelineSVG draws run's steps on one lane per engine, scaleUS wide (the
// longer program's time when two are compared).
func timelineSVG(run *program.Run, scaleUS float64) template.HTML {
	var b strings.Builder
	h := ptlLaneH*len(ptlLanes) + 26
	fmt.Fprintf(&b, `<svg class="timeline" viewBox="0 0 %d %d" width="100%%" role="img" aria-label="the program's steps over time">`, ptlLabelW+ptlW+50, h)
	for i, l := range ptlLanes {
		y := i * ptlLaneH
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end" class="tll">%s</text>`, ptlLabelW-8, y+ptlLaneH/2+4, l.label)
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#ddd"/>`, ptlLabelW, ptlLabelW+ptlW, y+ptlLaneH, y+ptlLaneH)
	}
	for _, s := range run.Steps {
		lane := 0
		for i, l := range ptlLanes {
			if l.engine == s.Engine {
				lane = i
			}
		}
		x := ptlLabelW + ptlW*s.StartUS/scaleUS
		w := math.Max(2, ptlW*s.TimeUS/scaleUS)
		y := lane*ptlLaneH + 5
		fmt.Fprintf(&b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s" rx="2"><title>%d: %s — %s</title></rect>`,
			x, y, w, ptlLaneH-10, stepColour(s), s.Index, template.HTMLEscapeString(s.What), program.US(s.TimeUS))
		if w > 60 {
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" class="tls">%d</text>`, x+4, y+16, s.Index)
		}
	}
	// A time axis: five ticks.
	ay := ptlLaneH*len(ptlLanes) + 16
	for i := 0; i <= 4; i++ {
		t := scaleUS * float64(i) / 4
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle" class="tla">%s</text>`, ptlLabelW+ptlW*float64(i)/4, ay, program.US(t))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

func newProgramView(run *program.Run, from, tag string, scaleUS float64) *programView {
	v := &programView{Tag: tag, From: from, GPU: run.GPU.Name, Mode: run.Mode, Timed: run.Timed, Total: program.US(run.TimeUS),
		Shares: run.Shares(), Diagnosis: run.Diagnose()}
	if scaleUS <= 0 {
		scaleUS = math.Max(run.TimeUS, 1e-3)
	}
	for _, s := range run.Steps {
		sv := programStepView{Index: s.Index, What: s.What, Engine: string(s.Engine), Kind: s.Kind, Start: program.US(s.StartUS), Time: "—"}
		if s.Kind == spec.StepLaunch {
			sv.What = "launch " + short(s.Kernel)
			if s.Migrated > 0 {
				sv.What += fmt.Sprintf(" (managed faults: %d)", s.Faults)
			}
		}
		if s.Bytes > 0 {
			sv.Bytes = program.BytesText(s.Bytes)
			if s.Timed && s.TimeUS > 0 {
				sv.GB = fmt.Sprintf("%.1f GB/s", float64(s.Bytes)/(s.TimeUS*1e3))
			}
		}
		if s.Timed {
			sv.Time = program.US(s.TimeUS)
			if run.TimeUS > 0 {
				sv.Share = fmt.Sprintf("%.1f%%", 100*s.TimeUS/run.TimeUS)
			}
		}
		v.Steps = append(v.Steps, sv)
	}
	if run.Timed {
		v.Timeline = timelineSVG(run, scaleUS)
	}
	return v
}

// programPage is the data of a program page (one program, or two).
type programPage struct {
	*page
	Progs []*programView
	Ratio string // B's time over A's, when two are compared
}

// WriteProgram renders a program's run as a self-contained HTML page: its
// steps on a timeline of the engines, a table of the steps, the time by
// kind of step and the diagnosis. from names the spec.
func WriteProgram(w io.Writer, run *program.Run, from string, opt Options) error {
	if run == nil {
		return errors.New("no program")
	}
	p, err := newPage(from+" — ptxrun report", opt)
	if err != nil {
		return err
	}
	pp := &programPage{page: p, Progs: []*programView{newProgramView(run, from, "", 0)}}
	return tmpl.ExecuteTemplate(w, "program", pp)
}

// WriteProgramCompare renders two programs' runs side by side, their
// timelines on one time scale.
func WriteProgramCompare(w io.Writer, a, b *program.Run, fromA, fromB string, opt Options) error {
	if a == nil || b == nil {
		return errors.New("no programs")
	}
	p, err := newPage(fromA+" vs "+fromB+" — ptxrun report", opt)
	if err != nil {
		return err
	}
	scale := math.Max(math.Max(a.TimeUS, b.TimeUS), 1e-3)
	pp := &programPage{page: p, Progs: []*programView{newProgramView(a, fromA, "A", scale), newProgramView(b, fromB, "B", scale)}}
	if a.Timed && b.Timed && a.TimeUS > 0 {
		pp.Ratio = fmt.Sprintf("%.2f", b.TimeUS/a.TimeUS)
	}
	return tmpl.ExecuteTemplate(w, "program", pp)
}
