package sfu

import (
	"bytes"
	"compress/bzip2"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
)

// Residual coding (see testdata/sfu/gen/README.md, "File format").
//
// A residual is ord(gpu) - ord(prediction), where ord maps f32 bit patterns
// monotonically onto integers (+0 -> 0, -0 -> -1): the distance in units in
// the last place. A plane of n residuals is stored as n int8 codes, -128
// meaning "escape", followed by the escaped residuals as zigzag LEB128
// varints in order. A file is one or two planes (u64 datasets: the upper
// words against the predictor, then the lower words against zero) or, for
// the "rle" encoding, u32le nruns | one plane of nruns run values (against
// the prediction at each run's first index) | nruns LEB128 run lengths;
// the whole file compressed with zlib or bzip2.

func ord32(b uint32) int64 {
	if b&sign32 != 0 {
		return -int64(b&^sign32) - 1
	}
	return int64(b)
}

func unord32(o int64) uint32 {
	if o >= 0 {
		return uint32(o)
	}
	return uint32(-(o + 1)) | sign32
}

func decompress(codec string, z []byte) ([]byte, error) {
	var r io.Reader
	switch codec {
	case "zlib":
		zr, err := zlib.NewReader(bytes.NewReader(z))
		if err != nil {
			return nil, err
		}
		defer zr.Close()
		r = zr
	case "bz2":
		r = bzip2.NewReader(bytes.NewReader(z))
	default:
		return nil, fmt.Errorf("unknown codec %q", codec)
	}
	return io.ReadAll(r)
}

var errShort = errors.New("truncated data")

// plane is one decoded plane of residuals: codes plus the escaped values.
type plane struct {
	codes []int8
	esc   map[uint32]int64
}

func (p *plane) at(i int) int64 {
	c := p.codes[i]
	if c == -128 {
		return p.esc[uint32(i)]
	}
	return int64(c)
}

// readPlane parses n codes and their escapes from buf; returns the rest.
func readPlane(buf []byte, n int) (plane, []byte, error) {
	if len(buf) < n {
		return plane{}, nil, errShort
	}
	p := plane{codes: make([]int8, n), esc: map[uint32]int64{}}
	var escIdx []uint32
	for i, b := range buf[:n] {
		p.codes[i] = int8(b)
		if b == 0x80 {
			escIdx = append(escIdx, uint32(i))
		}
	}
	buf = buf[n:]
	for _, i := range escIdx {
		z, k := binary.Uvarint(buf)
		if k <= 0 {
			return plane{}, nil, errShort
		}
		buf = buf[k:]
		p.esc[i] = int64(z>>1) ^ -int64(z&1)
	}
	return p, buf, nil
}

// permute moves a plane from stream order into index order: stream
// position j holds index order[j].
func (p plane) permute(order []int32) plane {
	q := plane{codes: make([]int8, len(p.codes)), esc: make(map[uint32]int64, len(p.esc))}
	for j, i := range order {
		q.codes[i] = p.codes[j]
	}
	for j, v := range p.esc {
		q.esc[uint32(order[j])] = v
	}
	return q
}

// classOrder is sfuspec.class_order: indices sorted by class, stably.
// The classes (a reference function per input: most of a table's first-use
// time) are computed in parallel chunks, one per CPU; class must be safe
// for concurrent use.
func classOrder(n int, class func(i int) int) []int32 {
	cls := make([]uint8, n)
	workers := max(1, min(runtime.GOMAXPROCS(0), n>>16))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w * n / workers; i < (w+1)*n/workers; i++ {
				cls[i] = uint8(class(i))
			}
		})
	}
	wg.Wait()
	var count [nClasses + 1]int
	for _, c := range cls {
		count[c+1]++
	}
	for c := 1; c <= nClasses; c++ {
		count[c] += count[c-1]
	}
	order := make([]int32, n)
	for i, c := range cls {
		order[count[c]] = int32(i)
		count[c]++
	}
	return order
}

// rle is a decoded run-length table: run i covers [starts[i], starts[i+1]).
type rle struct {
	starts []uint32
	vals   []uint32
	n      int
}

func (r *rle) at(i int) uint32 {
	lo, hi := 0, len(r.starts)
	for hi-lo > 1 {
		m := (lo + hi) / 2
		if int(r.starts[m]) <= i {
			lo = m
		} else {
			hi = m
		}
	}
	return r.vals[lo]
}

// readRLE parses an "rle" file; pred gives the prediction at an index.
func readRLE(buf []byte, n int, pred func(i int) uint32) (*rle, error) {
	if len(buf) < 4 {
		return nil, errShort
	}
	nr := int(binary.LittleEndian.Uint32(buf))
	p, rest, err := readPlane(buf[4:], nr)
	if err != nil {
		return nil, err
	}
	r := &rle{starts: make([]uint32, nr), vals: make([]uint32, nr), n: n}
	pos := 0
	for i := 0; i < nr; i++ {
		l, k := binary.Uvarint(rest)
		if k <= 0 {
			return nil, errShort
		}
		rest = rest[k:]
		r.starts[i] = uint32(pos)
		r.vals[i] = unord32(ord32(pred(pos)) + p.at(i))
		pos += int(l)
	}
	if pos != n || len(rest) != 0 {
		return nil, fmt.Errorf("rle: runs cover %d of %d, %d bytes left", pos, n, len(rest))
	}
	return r, nil
}
