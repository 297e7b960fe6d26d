package npy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Magic starts every .npy file.
const Magic = "\x93NUMPY"

// descrs maps the element types of launch specs to NumPy's type strings
// (little-endian). bf16 has no NumPy type: its raw bits are uint16, as the
// GPU runner stores them.
var descrs = map[string]string{
	"u8": "|u1", "s8": "|i1", "u16": "<u2", "s16": "<i2", "u32": "<u4", "s32": "<i4",
	"u64": "<u8", "s64": "<i8", "f16": "<f2", "f32": "<f4", "f64": "<f8", "bf16": "<u2",
}

// maxElements bounds an array's elements (and each dimension), so that
// Count cannot overflow.
const maxElements = 1 << 40

// Header is what a .npy file says about its array.
type Header struct {
	Descr   string   // NumPy type string, e.g. "<f4"
	Fortran bool     // fortran_order
	Shape   []uint64 // () for a scalar
	// DataOffset is where the array's bytes start in the file.
	DataOffset int
}

// Count is the number of elements.
func (h *Header) Count() uint64 {
	n := uint64(1)
	for _, d := range h.Shape {
		n *= d
	}
	return n
}

// Describe names a NumPy type string for a person ("float32").
func Describe(descr string) string {
	names := map[string]string{"|u1": "uint8", "|i1": "int8", "<u2": "uint16", "<i2": "int16", "<u4": "uint32",
		"<i4": "int32", "<u8": "uint64", "<i8": "int64", "<f2": "float16", "<f4": "float32", "<f8": "float64", "|b1": "bool"}
	if n, ok := names[descr]; ok {
		return n
	}
	if len(descr) > 1 && descr[0] == '>' {
		return "big-endian " + descr[1:]
	}
	return descr
}

// Parse reads the header at the start of data (at least the whole header).
func Parse(data []byte) (*Header, error) {
	if len(data) < 10 || string(data[:6]) != Magic {
		return nil, errors.New("not a .npy file (no \\x93NUMPY magic)")
	}
	major := data[6]
	var hlen, start int
	switch major {
	case 1:
		hlen, start = int(binary.LittleEndian.Uint16(data[8:])), 10
	case 2, 3:
		if len(data) < 12 {
			return nil, errors.New("truncated .npy header")
		}
		hlen, start = int(binary.LittleEndian.Uint32(data[8:])), 12
	default:
		return nil, fmt.Errorf(".npy format version %d.%d is not supported", major, data[7])
	}
	if hlen > 1<<20 || start+hlen > len(data) {
		return nil, errors.New("truncated .npy header")
	}
	h, err := parseDict(string(data[start : start+hlen]))
	if err != nil {
		return nil, fmt.Errorf(".npy header: %w", err)
	}
	h.DataOffset = start + hlen
	n := uint64(1)
	for _, d := range h.Shape {
		if d != 0 && n > maxElements/d {
			return nil, fmt.Errorf(".npy shape %v holds more than 2^40 elements", h.Shape)
		}
		n *= d
	}
	if h.Fortran {
		big := 0
		for _, d := range h.Shape {
			if d > 1 {
				big++
			}
		}
		if big > 1 {
			return nil, errors.New(".npy array is in Fortran order; save it in C order (numpy.ascontiguousarray)")
		}
	}
	return h, nil
}

// parseDict reads {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }.
func parseDict(s string) (*Header, error) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "{") || !strings.HasSuffix(s, "}") {
		return nil, errors.New("not a dictionary")
	}
	s = strings.TrimSpace(s[1 : len(s)-1])
	h := &Header{}
	seen := map[string]bool{}
	for s != "" {
		key, rest, err := pyString(s)
		if err != nil {
			return nil, err
		}
		rest = strings.TrimSpace(rest)
		if !strings.HasPrefix(rest, ":") {
			return nil, fmt.Errorf("expected ':' after %q", key)
		}
		rest = strings.TrimSpace(rest[1:])
		switch key {
		case "descr":
			h.Descr, rest, err = pyString(rest)
		case "fortran_order":
			switch {
			case strings.HasPrefix(rest, "True"):
				h.Fortran, rest = true, rest[4:]
			case strings.HasPrefix(rest, "False"):
				rest = rest[5:]
			default:
				err = errors.New("fortran_order is not True or False")
			}
		case "shape":
			h.Shape, rest, err = pyTuple(rest)
		default:
			return nil, fmt.Errorf("unknown key %q", key)
		}
		if err != nil {
			return nil, err
		}
		seen[key] = true
		rest = strings.TrimSpace(rest)
		if strings.HasPrefix(rest, ",") {
			rest = strings.TrimSpace(rest[1:])
		} else if rest != "" {
			return nil, fmt.Errorf("expected ',' after %q", key)
		}
		s = rest
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if !seen[k] {
			return nil, fmt.Errorf("no %q", k)
		}
	}
	return h, nil
}

func pyString(s string) (string, string, error) {
	if s == "" || s[0] != '\'' && s[0] != '"' {
		return "", "", errors.New("expected a quoted string")
	}
	end := strings.IndexByte(s[1:], s[0])
	if end < 0 {
		return "", "", errors.New("unterminated string")
	}
	return s[1 : 1+end], s[2+end:], nil
}

func pyTuple(s string) ([]uint64, string, error) {
	if !strings.HasPrefix(s, "(") {
		return nil, "", errors.New("shape is not a tuple")
	}
	end := strings.IndexByte(s, ')')
	if end < 0 {
		return nil, "", errors.New("unterminated shape")
	}
	shape := []uint64{}
	for _, f := range strings.Split(s[1:end], ",") {
		f = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(f), "L"))
		if f == "" {
			continue
		}
		v, err := strconv.ParseUint(f, 10, 64)
		if err != nil || v > maxElements {
			return nil, "", fmt.Errorf("bad dimension %q", f)
		}
		shape = append(shape, v)
	}
	return shape, s[end+1:], nil
}

// Check reports whether h holds count elements of the launch-spec type
// typ, and if not, what is wrong (for a file named name).
func (h *Header) Check(name, typ string, count uint64) error {
	want, ok := descrs[typ]
	if !ok {
		return fmt.Errorf("%s: type %s has no .npy equivalent", name, typ)
	}
	if h.Descr != want {
		return fmt.Errorf("%s holds %s; the buffer is %s (NumPy %s)", name, Describe(h.Descr), typ, Describe(want))
	}
	if n := h.Count(); n != count {
		return fmt.Errorf("%s holds %d elements (shape %v); the buffer has %d", name, n, h.Shape, count)
	}
	return nil
}

// Encode returns the .npy header (version 1.0) for a one-dimensional array
// of count elements of the launch-spec type typ.
func Encode(typ string, count uint64) ([]byte, error) {
	d, ok := descrs[typ]
	if !ok {
		return nil, fmt.Errorf("type %s has no .npy equivalent", typ)
	}
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }", d, count)
	// Pad with spaces so that the data starts on a 64-byte boundary; the
	// header ends in a newline.
	total := 10 + len(dict) + 1
	pad := (64 - total%64) % 64
	var b bytes.Buffer
	b.WriteString(Magic)
	b.Write([]byte{1, 0})
	_ = binary.Write(&b, binary.LittleEndian, uint16(len(dict)+pad+1))
	b.WriteString(dict)
	b.WriteString(strings.Repeat(" ", pad))
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// TypeOf returns the launch-spec type a NumPy type string stands for
// ("" if none).
func TypeOf(descr string) string {
	for _, t := range []string{"u8", "s8", "u16", "s16", "u32", "s32", "u64", "s64", "f16", "f32", "f64"} {
		if descrs[t] == descr {
			return t
		}
	}
	return ""
}
