package spec

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ptxvm/ptxvm/memspace"
	"github.com/ptxvm/ptxvm/vm/compare"
	"github.com/ptxvm/ptxvm/vm/spec/npy"
)

// IsNpy reports whether a file name is a NumPy .npy file (by extension);
// any other name is a raw little-endian array.
func IsNpy(name string) bool { return strings.EqualFold(filepath.Ext(name), ".npy") }

// arrayData checks that data (a whole .bin or .npy file) holds count
// elements of typ and returns the array's bytes.
func arrayData(file, typ string, count uint64, data []byte) ([]byte, error) {
	n := count * uint64(compare.ElemSize(typ))
	if IsNpy(file) {
		h, err := npy.Parse(data)
		if err != nil {
			return nil, fmt.Errorf("file %s: %w", file, err)
		}
		if err := h.Check("file "+file, typ, count); err != nil {
			return nil, err
		}
		data = data[h.DataOffset:]
		if uint64(len(data)) != n {
			return nil, fmt.Errorf("file %s: %d bytes of data after the header; %d × %s needs %d", file, len(data), count, typ, n)
		}
		return data, nil
	}
	if uint64(len(data)) != n {
		return nil, fmt.Errorf("file %s has %d bytes; %d × %s needs %d", file, len(data), count, typ, n)
	}
	return data, nil
}

// initialBytes returns the contents a buffer or symbol starts with: from
// its fill rule or its file, or nil (zeros).
func (s *Spec) initialBytes(b Buffer) ([]byte, error) {
	switch {
	case b.Fill != nil:
		data, err := b.Fill.Bytes(b.Type, b.Count)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", b.Name, err)
		}
		return data, nil
	case b.File != "":
		raw, err := os.ReadFile(s.resolve(b.File))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", b.Name, err)
		}
		data, err := arrayData(b.File, b.Type, b.Count, raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", b.Name, err)
		}
		return data, nil
	}
	return nil, nil
}

// fillBuffer writes a buffer's initial contents into its allocation. A
// large file is mapped, not read: the allocation reads its pages from the
// mapping until the kernel writes them.
func (s *Spec) fillBuffer(b Buffer, a *memspace.Allocation) error {
	if b.File != "" && b.Fill == nil && a.Sparse() {
		raw, err := mapFile(s.resolve(b.File), a)
		if err != nil {
			return fmt.Errorf("buffer %s: %w", b.Name, err)
		}
		data, err := arrayData(b.File, b.Type, b.Count, raw)
		if err != nil {
			return fmt.Errorf("buffer %s: %w", b.Name, err)
		}
		return a.SetInit(data)
	}
	data, err := s.initialBytes(b)
	if err != nil || data == nil {
		if err != nil {
			return fmt.Errorf("buffer %w", err)
		}
		return nil
	}
	if err := a.WriteAt(data, 0); err != nil {
		return fmt.Errorf("buffer %s: %w", b.Name, err)
	}
	return nil
}
