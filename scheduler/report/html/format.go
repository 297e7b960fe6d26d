package html

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// comma prints v with thousands separators (integers) or up to two
// decimals.
func comma(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Sprint(v)
	}
	if v != math.Trunc(v) || math.Abs(v) >= 1e15 {
		s := strconv.FormatFloat(v, 'f', 2, 64)
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
		if i := strings.IndexByte(s, '.'); i >= 0 {
			return group(s[:i]) + s[i:]
		}
		return group(s)
	}
	return group(strconv.FormatInt(int64(v), 10))
}

// group puts commas between groups of three digits of an integer string.
func group(s string) string {
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// compact prints v in at most about five characters: 1.05M, 262k, 4, 2.5.
func compact(v float64) string {
	a := math.Abs(v)
	switch {
	case v == 0:
		return "0"
	case a >= 1e9:
		return trim(v/1e9, 3) + "G"
	case a >= 1e6:
		return trim(v/1e6, 3) + "M"
	case a >= 1e4:
		return trim(v/1e3, 3) + "k"
	case v == math.Trunc(v):
		return strconv.FormatInt(int64(v), 10)
	}
	return trim(v, 3)
}

// trim prints v with sig significant digits, without trailing zeros.
func trim(v float64, sig int) string {
	a := math.Abs(v)
	dec := sig - 1
	for p := 10.0; p <= a && dec > 0; p *= 10 {
		dec--
	}
	s := strconv.FormatFloat(v, 'f', dec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// bytesText prints a byte count: 4.19 MB (decimal units, as ncu prints
// DRAM bytes).
func bytesText(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e9:
		return trim(v/1e9, 3) + " GB"
	case a >= 1e6:
		return trim(v/1e6, 3) + " MB"
	case a >= 1e3:
		return trim(v/1e3, 3) + " kB"
	}
	return comma(v) + " B"
}

// ratioWords says how B compares with A: "16× fewer", "2.5× more",
// "the same".
func ratioWords(a, b float64, fewer, more string) string {
	switch {
	case a == b:
		return "the same"
	case a == 0:
		return "new in B"
	case b == 0:
		return "none in B"
	case b < a:
		return trim(a/b, 3) + "× " + fewer
	}
	return trim(b/a, 3) + "× " + more
}

// perRequest divides n by reqs, 0 when reqs is 0.
func perRequest(n, reqs uint64) float64 {
	if reqs == 0 {
		return 0
	}
	return float64(n) / float64(reqs)
}
