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

// decompress inflates a file; size > 0 is the length it must have (the
// manifest's raw_bytes), read into one buffer of that size rather than a
// growing one.
func decompress(codec string, z []byte, size int) ([]byte, error) {
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
	if size <= 0 {
		return io.ReadAll(r)
	}
	buf := make([]byte, size)
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, fmt.Errorf("%d of %d bytes: %v", len(buf), size, err)
	}
	// read on to the end, where zlib checks its sum
	if k, err := r.Read(make([]byte, 1)); k != 0 || err != io.EOF {
		return nil, fmt.Errorf("more than %d bytes (%v)", size, err)
	}
	return buf, nil
}

var errShort = errors.New("truncated data")

// plane is one decoded plane of residuals: the int8 codes, nil when every
// one is zero (a slice of the decompressed file, not a copy), plus the
// escaped values.
type plane struct {
	codes []byte
	esc   map[uint32]int64
}

func (p *plane) at(i int) int64 {
	if p.codes == nil {
		return 0
	}
	c := int8(p.codes[i])
	if c == -128 {
		return p.esc[uint32(i)]
	}
	return int64(c)
}

// readPlane parses n codes and their escapes from buf; returns the rest.
// The plane's codes are buf[:n] itself.
func readPlane(buf []byte, n int) (plane, []byte, error) {
	if len(buf) < n {
		return plane{}, nil, errShort
	}
	p := plane{codes: buf[:n:n], esc: map[uint32]int64{}}
	rest := buf[n:]
	for i := 0; ; i++ {
		k := bytes.IndexByte(p.codes[i:], 0x80)
		if k < 0 {
			break
		}
		i += k
		z, k := binary.Uvarint(rest)
		if k <= 0 {
			return plane{}, nil, errShort
		}
		rest = rest[k:]
		p.esc[uint32(i)] = int64(z>>1) ^ -int64(z&1)
	}
	if allZero(p.codes) {
		p.codes = nil
	}
	return p, rest, nil
}

var zeroBlock [4096]byte

// allZero reports whether every byte of b is zero.
func allZero(b []byte) bool {
	for len(b) > 0 {
		k := min(len(b), len(zeroBlock))
		if !bytes.Equal(b[:k], zeroBlock[:k]) {
			return false
		}
		b = b[k:]
	}
	return true
}

// ungroup moves a class-grouped plane into index order. The stream holds
// the residuals of the indices of class 0 in index order, then those of
// class 1, ... (sfuspec.class_order: the indices sorted by class, stably).
// The classes (a reference function per input: most of a table's first-use
// time) are computed in parallel chunks, one per CPU, each counting its
// classes; each chunk then gathers its residuals from the sixteen class
// streams at the offsets the chunks before it leave. class must be safe for
// concurrent use and return 0 to nClasses-1.
func ungroup(p plane, class func(i int) int) plane {
	n := len(p.codes)
	return ungroupN(p, class, max(1, min(runtime.GOMAXPROCS(0), n>>16)))
}

func ungroupN(p plane, class func(i int) int, workers int) plane {
	if p.codes == nil {
		return p // all zero, in any order
	}
	n := len(p.codes)
	cls := make([]uint8, n)
	counts := make([][nClasses]int, workers)
	chunk := func(w int) (lo, hi int) { return w * n / workers, (w + 1) * n / workers }
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			lo, hi := chunk(w)
			cnt := &counts[w]
			for i := lo; i < hi; i++ {
				c := uint8(class(i)) & (nClasses - 1)
				cls[i] = c
				cnt[c]++
			}
		})
	}
	wg.Wait()
	// next[w][c]: the stream position of chunk w's first index of class c.
	next := make([][nClasses]int, workers)
	pos := 0
	for c := range nClasses {
		for w := range workers {
			next[w][c] = pos
			pos += counts[w][c]
		}
	}
	q := plane{codes: make([]byte, n), esc: make(map[uint32]int64, len(p.esc))}
	escs := make([][][2]uint32, workers) // (index, stream position) of escapes
	for w := range workers {
		wg.Go(func() {
			lo, hi := chunk(w)
			nx := &next[w]
			for i := lo; i < hi; i++ {
				c := cls[i]
				j := nx[c]
				nx[c]++
				q.codes[i] = p.codes[j]
				if p.codes[j] == 0x80 {
					escs[w] = append(escs[w], [2]uint32{uint32(i), uint32(j)})
				}
			}
		})
	}
	wg.Wait()
	for _, e := range escs {
		for _, ij := range e {
			q.esc[ij[0]] = p.esc[ij[1]]
		}
	}
	return q
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
