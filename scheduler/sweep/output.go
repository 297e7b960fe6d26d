package sweep

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Record is one line of a sweep's output as it was written.
type Record struct {
	Line   int
	Input  json.RawMessage
	Status string
	// Raw is the line's bytes, without its newline.
	Raw []byte
}

// ReadOutput reads the results of an output file, in the file's order. A
// last line without its newline is a write that was cut short: it is left
// out, and complete is the length of the lines before it. A file that
// does not exist has no results.
func ReadOutput(path string) (recs []Record, complete int64, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	if i := bytes.LastIndexByte(data, '\n'); i+1 < len(data) {
		data = data[:i+1]
	}
	seen := map[int]int{}
	for n, line := range bytes.SplitAfter(data, []byte("\n")) {
		raw := bytes.TrimSuffix(line, []byte("\n"))
		if len(raw) == 0 {
			continue
		}
		var r struct {
			Line   int             `json:"line"`
			Input  json.RawMessage `json:"input"`
			Status string          `json:"status"`
		}
		if err := json.Unmarshal(raw, &r); err != nil || r.Line < 1 || len(r.Input) == 0 || r.Status == "" {
			return nil, 0, fmt.Errorf("%s:%d: not a sweep result (a JSON object with line, input and status): is %s the output of a sweep?", path, n+1, path)
		}
		if prev, ok := seen[r.Line]; ok {
			return nil, 0, fmt.Errorf("%s:%d: a second result for input line %d (the first is on line %d): the file was written by two runs at once, or edited", path, n+1, r.Line, prev)
		}
		seen[r.Line] = n + 1
		recs = append(recs, Record{Line: r.Line, Input: r.Input, Status: r.Status, Raw: append([]byte(nil), raw...)})
	}
	return recs, int64(len(data)), nil
}

// Output is a sweep's output file, open for a run to append its results.
type Output struct {
	path string
	f    *os.File
	done map[int]Record
	// Kept is how many results of earlier runs the file holds.
	Kept int
}

// OpenOutput opens (or creates) the output of a run of the entries
// todo, out of the sweep's entries all. The results already there (from
// an earlier run that was stopped, or that finished) must be for lines of
// todo with the same input; they are kept and their lines not run again,
// except the errors with retryErrors. A last line cut short is removed.
func OpenOutput(path string, all, todo []Entry, retryErrors bool) (*Output, error) {
	recs, complete, err := ReadOutput(path)
	if err != nil {
		return nil, err
	}
	byLine := map[int]*Entry{}
	for i := range all {
		byLine[all[i].Line] = &all[i]
	}
	mine := map[int]bool{}
	for _, e := range todo {
		mine[e.Line] = true
	}
	o := &Output{path: path, done: map[int]Record{}}
	dropped := false
	for _, r := range recs {
		e := byLine[r.Line]
		switch {
		case e == nil:
			return nil, fmt.Errorf("%s holds a result for input line %d, which is not a launch of this sweep: the input changed since, or %s is another sweep's output (name another output, or remove it to start again)", path, r.Line, path)
		case !sameJSON(e.Input, r.Input):
			return nil, fmt.Errorf("%s holds a result for input line %d as it read %s; it now reads %s: the input changed since (name another output, or remove it to start again)", path, r.Line, r.Input, e.Input)
		case !mine[r.Line]:
			return nil, fmt.Errorf("%s holds a result for input line %d, which is not in this run's shard: was it written with another --shard? (give each shard its own output)", path, r.Line)
		case retryErrors && r.Status == StatusError:
			dropped = true
			continue
		}
		o.done[r.Line] = r
	}
	o.Kept = len(o.done)
	if dropped {
		// Rewrite without the results to be run again, so that the file
		// never holds two results for a line.
		if err := o.rewrite(); err != nil {
			return nil, err
		}
	} else if fi, err := os.Stat(path); err == nil && fi.Size() != complete {
		if err := os.Truncate(path, complete); err != nil {
			return nil, err
		}
	}
	o.f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	return o, nil
}

// Done reports whether line has a result.
func (o *Output) Done(line int) bool {
	_, ok := o.done[line]
	return ok
}

// Append writes r to the end of the file, one line in one write.
func (o *Output) Append(r *Result) error {
	raw, err := Encode(r)
	if err != nil {
		return err
	}
	if _, err := o.f.Write(append(raw, '\n')); err != nil {
		return err
	}
	o.done[r.Line] = Record{Line: r.Line, Input: r.Input, Status: r.Status, Raw: raw}
	return nil
}

// Finish closes the file, rewritten in input order: what one
// uninterrupted run of the whole shard writes.
func (o *Output) Finish() error {
	if err := o.f.Close(); err != nil {
		return err
	}
	return o.rewrite()
}

// Close closes the file as it is (a run that was stopped: the results are
// in the order they finished, and a rerun goes on from them).
func (o *Output) Close() error { return o.f.Close() }

// Records returns the results in line order.
func (o *Output) Records() []Record {
	recs := make([]Record, 0, len(o.done))
	for _, r := range o.done {
		recs = append(recs, r)
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].Line < recs[j].Line })
	return recs
}

func (o *Output) rewrite() error { return WriteRecords(o.path, o.Records()) }

// Encode is a result's line (without its newline). HTML characters are
// left as they are, so that the input is echoed as given.
func Encode(r *Result) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// WriteRecords writes records to path, one a line, replacing the file
// whole: written beside it, then renamed over it.
func WriteRecords(path string, recs []Record) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	var b bytes.Buffer
	for _, r := range recs {
		b.Write(r.Raw)
		b.WriteByte('\n')
	}
	if _, err := tmp.Write(b.Bytes()); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Merge reads the outputs of a sweep's shards and returns their results
// in line order. A line may have results in two files only if they are
// the same bytes. A file whose last line is cut short is refused: its
// shard was stopped, and a rerun finishes it.
func Merge(paths []string) ([]Record, error) {
	byLine := map[int]Record{}
	from := map[int]string{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		if len(data) > 0 && data[len(data)-1] != '\n' {
			return nil, fmt.Errorf("%s: its last line is cut short: its shard was stopped while writing; rerun that shard with the same output to finish it", p)
		}
		recs, _, err := ReadOutput(p)
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			if q, ok := byLine[r.Line]; ok {
				if !bytes.Equal(q.Raw, r.Raw) {
					return nil, fmt.Errorf("input line %d has two different results, in %s and in %s: were the shards run with different inputs, flags or ptxrun versions?", r.Line, from[r.Line], p)
				}
				continue
			}
			byLine[r.Line], from[r.Line] = r, p
		}
	}
	recs := make([]Record, 0, len(byLine))
	for _, r := range byLine {
		recs = append(recs, r)
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].Line < recs[j].Line })
	return recs, nil
}

// Check reports how records (in line order) fall short of the sweep's
// entries: lines with no result, results for lines that are not entries
// or whose input differs.
func Check(recs []Record, entries []Entry) error {
	have := map[int]Record{}
	for _, r := range recs {
		have[r.Line] = r
	}
	var missing []string
	for _, e := range entries {
		r, ok := have[e.Line]
		if !ok {
			missing = append(missing, fmt.Sprint(e.Line))
			continue
		}
		if !sameJSON(e.Input, r.Input) {
			return fmt.Errorf("the result for input line %d is for %s; the line now reads %s: the input changed since the shards ran", e.Line, r.Input, e.Input)
		}
		delete(have, e.Line)
	}
	for _, r := range recs {
		if _, ok := have[r.Line]; ok {
			return fmt.Errorf("a result for input line %d, which is not a launch of this sweep: the input changed since the shards ran", r.Line)
		}
	}
	if len(missing) > 0 {
		list := missing
		if len(list) > 20 {
			list = append(list[:20:20], "...")
		}
		return fmt.Errorf("%d of %d lines have no result (input lines %s): a shard is missing or was stopped; run it (again, with the same output) and merge again", len(missing), len(entries), strings.Join(list, ", "))
	}
	return nil
}

// sameJSON reports whether two compact JSON texts are the same, HTML
// escapes aside.
func sameJSON(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var x, y bytes.Buffer
	if json.Compact(&x, a) != nil || json.Compact(&y, b) != nil {
		return false
	}
	var xe, ye bytes.Buffer
	json.HTMLEscape(&xe, x.Bytes())
	json.HTMLEscape(&ye, y.Bytes())
	return bytes.Equal(xe.Bytes(), ye.Bytes())
}
