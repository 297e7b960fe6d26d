package ptx

import (
	"fmt"
	"io"
	"sort"
)

// Error is an error at a position in a PTX source: the project's one
// positioned-error type. The parser's messages say what was expected and
// what was found; package vm reports what it cannot lower (unknown
// registers, unsupported instructions, bad layouts) with the same type.
type Error struct {
	Pos Pos
	Msg string
}

// Error prints file:line:col: message (file: message when the error has no
// line, such as one about the module as a whole).
func (e Error) Error() string {
	switch {
	case e.Pos.Line > 0:
		return e.Pos.String() + ": " + e.Msg
	case e.Pos.Filename != "":
		return e.Pos.Filename + ": " + e.Msg
	}
	return e.Msg
}

// ErrorList is a list of *Errors, as go/scanner's. The zero value is an
// empty list ready to use.
type ErrorList []*Error

// Add adds an Error with the given position and message.
func (p *ErrorList) Add(pos Pos, msg string) { *p = append(*p, &Error{Pos: pos, Msg: msg}) }

// Reset resets the list to no errors.
func (p *ErrorList) Reset() { *p = (*p)[0:0] }

func (p ErrorList) Len() int      { return len(p) }
func (p ErrorList) Swap(i, j int) { p[i], p[j] = p[j], p[i] }

func (p ErrorList) Less(i, j int) bool {
	e, f := &p[i].Pos, &p[j].Pos
	if e.Filename != f.Filename {
		return e.Filename < f.Filename
	}
	if e.Line != f.Line {
		return e.Line < f.Line
	}
	if e.Column != f.Column {
		return e.Column < f.Column
	}
	return p[i].Msg < p[j].Msg
}

// Sort sorts the list by file, line, column and message.
func (p ErrorList) Sort() { sort.Sort(p) }

// RemoveMultiples sorts the list and keeps the first error of each line.
func (p *ErrorList) RemoveMultiples() {
	sort.Sort(p)
	var last Pos
	i := 0
	for _, e := range *p {
		if e.Pos.Filename != last.Filename || e.Pos.Line != last.Line {
			last = e.Pos
			(*p)[i] = e
			i++
		}
	}
	*p = (*p)[0:i]
}

// Error prints the first error and how many more there are.
func (p ErrorList) Error() string {
	switch len(p) {
	case 0:
		return "no errors"
	case 1:
		return p[0].Error()
	}
	return fmt.Sprintf("%s (and %d more errors)", p[0], len(p)-1)
}

// Err returns an error equivalent to this list, or nil if it is empty.
func (p ErrorList) Err() error {
	if len(p) == 0 {
		return nil
	}
	return p
}

// PrintError writes each error of an ErrorList on its own line to w; any
// other error is written as is.
func PrintError(w io.Writer, err error) {
	if list, ok := err.(ErrorList); ok {
		for _, e := range list {
			fmt.Fprintf(w, "%s\n", e)
		}
	} else if err != nil {
		fmt.Fprintf(w, "%s\n", err)
	}
}
