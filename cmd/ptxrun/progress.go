package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/term"
)

// isTerminal reports whether w is a terminal (progress is drawn only on
// one). Tests replace it.
var isTerminal = func(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Progress timing: nothing is drawn for runs shorter than progressDelay;
// the line is redrawn every progressEvery. Tests shorten both.
var (
	progressDelay = time.Second
	progressEvery = 250 * time.Millisecond
)

// progress draws "blocks 1200/5000 (24%), 410 blocks/s, ETA 9s" on one
// line of w while a run lasts, when w is a terminal, and erases it when the
// run ends. done counts what has finished of total.
type progress struct {
	w     io.Writer
	unit  string
	total uint64
	done  *atomic.Uint64
	start time.Time
	stop  chan struct{}
	wg    sync.WaitGroup
	mu    sync.Mutex // drawing; held while the caller prints (Pause)
	drawn bool
}

// startProgress starts drawing if w is a terminal; stop it with Stop.
func startProgress(w io.Writer, unit string, total uint64, done *atomic.Uint64) *progress {
	p := &progress{w: w, unit: unit, total: total, done: done, start: time.Now(), stop: make(chan struct{})}
	if !isTerminal(w) || total == 0 {
		return p
	}
	p.wg.Add(1)
	go p.loop()
	return p
}

func (p *progress) loop() {
	defer p.wg.Done()
	delay := time.NewTimer(progressDelay)
	defer delay.Stop()
	select {
	case <-p.stop:
		return
	case <-delay.C:
	}
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	for {
		p.draw()
		select {
		case <-p.stop:
			return
		case <-tick.C:
		}
	}
}

func (p *progress) draw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.drawn = true
	fmt.Fprintf(p.w, "\r%s\x1b[K", p.line(p.done.Load(), time.Since(p.start)))
}

// Pause erases the line and holds it until Resume, so that the caller can
// print whole lines (to stdout, which may be the same terminal).
func (p *progress) Pause() {
	p.mu.Lock()
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}

// Resume lets the line be drawn again (at the next tick).
func (p *progress) Resume() { p.mu.Unlock() }

// line is the text of the progress line after el with n done.
func (p *progress) line(n uint64, el time.Duration) string {
	s := fmt.Sprintf("%s %d/%d (%.0f%%)", p.unit, n, p.total, 100*float64(n)/float64(p.total))
	if n == 0 || el <= 0 {
		return s + ", starting"
	}
	rate := float64(n) / el.Seconds()
	eta := time.Duration(float64(p.total-min(n, p.total)) / rate * float64(time.Second))
	return fmt.Sprintf("%s, %s %s/s, ETA %s", s, compact(rate), p.unit, roundDuration(eta))
}

// Stop ends the display and erases the line.
func (p *progress) Stop() {
	select {
	case <-p.stop:
		return
	default:
	}
	close(p.stop)
	p.wg.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}

func compact(r float64) string {
	switch {
	case r >= 1e6:
		return fmt.Sprintf("%.1fM", r/1e6)
	case r >= 1e4:
		return fmt.Sprintf("%.0fk", r/1e3)
	case r >= 100:
		return fmt.Sprintf("%.0f", r)
	}
	return fmt.Sprintf("%.1f", r)
}

func roundDuration(d time.Duration) time.Duration {
	switch {
	case d >= time.Hour:
		return d.Round(time.Minute)
	case d >= time.Minute:
		return d.Round(time.Second)
	}
	return d.Round(100 * time.Millisecond)
}
