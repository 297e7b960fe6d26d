package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ptxvm/ptxvm/ptx/demangle"
	"github.com/ptxvm/ptxvm/scheduler/internal/ncu"
)

// split is the side of the validation split a launch is on.
type split string

const (
	// splitTrain: the fits may use the launch, and its errors may guide
	// changes to the model.
	splitTrain split = "train"
	// splitHeld: a family no fit uses and no parameter is chosen by.
	splitHeld split = "held_out"
	// splitPublic: the public corpus (testdata/public), kernels nobody on
	// the project wrote; never fitted.
	splitPublic split = "public"
	// splitNone: a kernel testdata/families.json does not name. Such
	// launches are never fitted; the families test fails on any of them
	// in the calibration set.
	splitNone split = "unassigned"
)

// splits in the order reports print them.
var splits = []split{splitTrain, splitHeld, splitPublic, splitNone}

// publicCorpus is the folder of the public corpus under testdata.
const publicCorpus = ncu.PublicCorpus

// family is one entry of testdata/families.json.
type family struct {
	Name    string   `json:"name"`
	Split   split    `json:"split"`
	Why     string   `json:"why"`
	Moved   string   `json:"moved,omitempty"`
	Kernels []string `json:"kernels"`
}

// families says which family, and so which split, every corpus launch is
// in: testdata/families.json for the calibration corpora, the public
// corpus's manifest (each case's "family") for testdata/public.
type families struct {
	list     []family
	byKernel map[string]*family // "corpus:name"
	public   map[string]string  // public case → family
	// consulted: public families whose errors were looked at while the
	// model was changed (families.json's "public_consulted"); reports
	// give the public corpus's error without them too.
	consulted map[string]bool
}

// consultedFamily is one entry of families.json's "public_consulted".
type consultedFamily struct {
	Family string `json:"family"`
	Date   string `json:"date"`
	Why    string `json:"why"`
}

// loadFamilies reads testdata/families.json and, when it is there, the
// public corpus's manifest.
func loadFamilies(testdata string) (*families, error) {
	b, err := os.ReadFile(filepath.Join(testdata, "families.json"))
	if err != nil {
		return nil, err
	}
	var f struct {
		Families  []family          `json:"families"`
		Consulted []consultedFamily `json:"public_consulted"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("families.json: %w", err)
	}
	fs := &families{list: f.Families, byKernel: map[string]*family{}, public: map[string]string{}, consulted: map[string]bool{}}
	for _, c := range f.Consulted {
		if c.Family == "" || c.Why == "" {
			return nil, fmt.Errorf("families.json: public_consulted: an entry without its family or why")
		}
		fs.consulted[c.Family] = true
	}
	for i := range fs.list {
		fam := &fs.list[i]
		if fam.Split != splitTrain && fam.Split != splitHeld {
			return nil, fmt.Errorf("families.json: family %s: split %q (want train or held_out)", fam.Name, fam.Split)
		}
		for _, k := range fam.Kernels {
			if prev, dup := fs.byKernel[k]; dup {
				return nil, fmt.Errorf("families.json: kernel %s is in %s and %s", k, prev.Name, fam.Name)
			}
			fs.byKernel[k] = fam
		}
	}
	mb, err := os.ReadFile(filepath.Join(testdata, publicCorpus, "manifest.json"))
	if err == nil {
		var m struct {
			Cases []struct {
				Name     string   `json:"name"`
				Family   string   `json:"family"`
				Families []string `json:"families"`
			} `json:"cases"`
		}
		if err := json.Unmarshal(mb, &m); err != nil {
			return nil, fmt.Errorf("public manifest: %w", err)
		}
		for _, c := range m.Cases {
			f := c.Family
			if f == "" && len(c.Families) > 0 {
				f = c.Families[0]
			}
			fs.public[c.Name] = f
		}
	}
	return fs, nil
}

// kernelKey is "corpus:name", name the kernel's name in its CUDA source
// (the demangled name without parameters).
func kernelKey(corpus, mangled string) string {
	return corpus + ":" + demangle.Filter(mangled, demangle.NoParams)
}

// of returns a launch's family and split.
func (fs *families) of(l *ncu.Launch) (string, split) {
	return fs.ofKernel(l.Corpus, l.Case, l.Kernel)
}

// ofKernel is of by corpus, case and mangled kernel name.
func (fs *families) ofKernel(corpus, caseName, mangled string) (string, split) {
	if corpus == publicCorpus {
		f := fs.public[caseName]
		if f == "" {
			f = "public:" + caseName
		}
		return f, splitPublic
	}
	if fam := fs.byKernel[kernelKey(corpus, mangled)]; fam != nil {
		return fam.Name, fam.Split
	}
	return "", splitNone
}

// ofFormKernel is ofKernel for the form data's kernel names
// ("corpus/module.variant:mangled").
func (fs *families) ofFormKernel(k string) split {
	loc, mangled, _ := strings.Cut(k, ":")
	corpus, _, _ := strings.Cut(loc, "/")
	_, s := fs.ofKernel(corpus, "", mangled)
	return s
}

// heldOutShare is the fraction of the calibration corpora's families held
// out of every fit.
func (fs *families) heldOutShare() float64 {
	n := 0
	for _, f := range fs.list {
		if f.Split == splitHeld {
			n++
		}
	}
	return float64(n) / float64(len(fs.list))
}

// names lists the families of one split, sorted.
func (fs *families) names(s split) []string {
	var out []string
	for _, f := range fs.list {
		if f.Split == s {
			out = append(out, f.Name)
		}
	}
	sort.Strings(out)
	return out
}

// parseSplits reads a -split flag: comma-separated split names, "" for
// all.
func parseSplits(s string) (map[split]bool, error) {
	out := map[split]bool{}
	if s == "" {
		for _, x := range splits {
			out[x] = true
		}
		return out, nil
	}
	for _, x := range strings.Split(s, ",") {
		ok := false
		for _, y := range splits {
			if split(x) == y {
				out[y], ok = true, true
			}
		}
		if !ok {
			return nil, fmt.Errorf("-split %q: want train, held_out, public or unassigned", x)
		}
	}
	return out, nil
}
