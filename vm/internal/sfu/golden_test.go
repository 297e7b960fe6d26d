package sfu

import (
	"encoding/json"
	"os"
	"sort"
	"testing"
)

// TestGolden checks the Go mirror of sfuspec.py (references, classes, input
// recipes) against values the Python side computed (testdata/golden.json,
// written by testdata/sfu/gen/golden.py). It needs no GPU data.
func TestGolden(t *testing.T) {
	b, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Refs []struct {
			Fn    string   `json:"fn"`
			Ftz   bool     `json:"ftz"`
			X     []uint64 `json:"x"`
			Pred  []uint32 `json:"pred"`
			Class []int    `json:"class"`
		} `json:"refs"`
		Recipes []struct {
			Type    string   `json:"type"`
			Segment segment  `json:"segment"`
			SHA256  string   `json:"sha256"`
			First   []uint64 `json:"first"`
		} `json:"recipes"`
	}
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	for _, r := range g.Refs {
		bad := 0
		for i, x := range r.X {
			if got := refPredict(r.Fn, x, r.Ftz); got != r.Pred[i] {
				if bad++; bad <= 5 {
					t.Errorf("refPredict(%s, %#x, ftz=%v) = %#08x, Python %#08x", r.Fn, x, r.Ftz, got, r.Pred[i])
				}
			}
			if r.Class != nil {
				if got := refClass(r.Fn, uint32(x), r.Ftz); got != r.Class[i] {
					if bad++; bad <= 5 {
						t.Errorf("refClass(%s, %#x, ftz=%v) = %d, Python %d", r.Fn, x, r.Ftz, got, r.Class[i])
					}
				}
			}
		}
	}
	for _, r := range g.Recipes {
		s := r.Segment
		if err := s.prepare(); err != nil {
			t.Fatal(err)
		}
		d := &Dataset{Name: s.Kind, Type: r.Type, N: s.Count, Segments: []segment{s}}
		in := d.inputs()
		for i, want := range r.First {
			if in[i] != want {
				t.Errorf("%s %+v: input %d = %#x, Python %#x", r.Type, s, i, in[i], want)
			}
		}
		if got := sumOf(in, d.width()); got != r.SHA256 {
			t.Errorf("%s segment %s/%s: inputs sha256 differs from Python", r.Type, s.Kind, s.Mode)
		}
		for i := 0; i < len(in); i += 97 {
			if d.inputAt(i) != in[i] {
				t.Errorf("%s: inputAt(%d) differs from inputs()", s.Kind, i)
			}
		}
	}
}

// TestCodec round-trips the residual planes and the class grouping.
func TestCodec(t *testing.T) {
	for _, v := range []uint32{0, 1, 0x7F7FFFFF, 0x7F800000, 0x7FFFFFFF, sign32, sign32 | 1, 0xFFFFFFFF} {
		if unord32(ord32(v)) != v {
			t.Errorf("ord32 round trip of %#x", v)
		}
	}
	if ord32(sign32) != -1 || ord32(0) != 0 || ord32(sign32|1) != -2 {
		t.Error("ord32 is not monotone around zero")
	}
	// a plane: codes 0, -128 (escape 300), 5, -128 (escape -1<<40)
	buf := []byte{0x00, 0x80, 0x05, 0x80}
	buf = append(buf, 0xD8, 0x04)                         // zigzag(300) = 600
	buf = append(buf, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x3F) // zigzag(-2^40) = 2^41-1
	p, rest, err := readPlane(buf, 4)
	if err != nil || len(rest) != 0 {
		t.Fatal(err, rest)
	}
	want := []int64{0, 300, 5, -1 << 40}
	for i, w := range want {
		if p.at(i) != w {
			t.Errorf("plane[%d] = %d, want %d", i, p.at(i), w)
		}
	}
	// a class-grouped stream: classes [3 0 3 1 0 15] by index put indices
	// 1 4 3 0 2 5 in that order (a stable sort by class)
	cls := []int{3, 0, 3, 1, 0, 15}
	p6, _, err := readPlane(append([]byte{0x00, 0x80, 0x05, 0x80, 0x07, 0x09}, buf[4:]...), 6)
	if err != nil {
		t.Fatal(err)
	}
	want6 := []int64{0, 300, 5, -1 << 40, 7, 9}
	for _, workers := range []int{1, 2, 3} {
		q := ungroupN(p6, func(i int) int { return cls[i] }, workers)
		for j, i := range []int{1, 4, 3, 0, 2, 5} {
			if q.at(i) != want6[j] {
				t.Errorf("%d workers: ungrouped[%d] = %d, want %d", workers, i, q.at(i), want6[j])
			}
		}
	}
	// a larger one against a stable sort, chunked unevenly
	rng := uint32(1)
	n := 1000
	cls = make([]int, n)
	stream := make([]byte, n)
	for i := range cls {
		rng = rng*1664525 + 1013904223
		cls[i] = int(rng >> 28)
		stream[i] = byte(rng >> 8 & 0x7F)
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return cls[order[a]] < cls[order[b]] })
	pn, _, _ := readPlane(stream, n)
	for _, workers := range []int{1, 2, 7} {
		q := ungroupN(pn, func(i int) int { return cls[i] }, workers)
		for j, i := range order {
			if q.at(i) != int64(stream[j]) {
				t.Fatalf("%d workers: ungrouped[%d] = %d, want %d", workers, i, q.at(i), stream[j])
			}
		}
	}
}

func TestSplitmix(t *testing.T) {
	// splitmix64 with seed 0: the reference generator's first outputs
	if got := splitmix64(0, 0); got != 0xE220A8397B1DCDAF {
		t.Errorf("splitmix64(0, 0) = %#x", got)
	}
	if got := splitmix64(0, 1); got != 0x6E789E6AA1B965F4 {
		t.Errorf("splitmix64(0, 1) = %#x", got)
	}
}
