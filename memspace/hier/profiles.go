package hier

import (
	"embed"
	"fmt"
	"os"
	"path"
	"sort"
	"strings"
)

// The GPU profiles shipped with the package, one JSON file each.
//
//go:embed profiles/*.json
var profileFS embed.FS

// ProfileNames lists the embedded profiles (lower-case file names).
func ProfileNames() []string {
	ents, _ := profileFS.ReadDir("profiles")
	var names []string
	for _, e := range ents {
		names = append(names, strings.TrimSuffix(e.Name(), ".json"))
	}
	sort.Strings(names)
	return names
}

// Profile returns a fresh copy of the embedded profile name
// (case-insensitive).
func Profile(name string) (*Config, error) {
	data, err := profileFS.ReadFile(path.Join("profiles", strings.ToLower(name)+".json"))
	if err != nil {
		return nil, fmt.Errorf("no hierarchy profile %q (have %s)", name, strings.Join(ProfileNames(), ", "))
	}
	return ParseConfig(data)
}

// LoadConfig returns the embedded profile called nameOrFile, or else reads
// the JSON file of that name.
func LoadConfig(nameOrFile string) (*Config, error) {
	if c, err := Profile(nameOrFile); err == nil {
		return c, nil
	}
	data, err := os.ReadFile(nameOrFile)
	if err != nil {
		return nil, fmt.Errorf("hierarchy profile %q: not embedded (%s) and not a readable file: %w",
			nameOrFile, strings.Join(ProfileNames(), ", "), err)
	}
	c, err := ParseConfig(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", nameOrFile, err)
	}
	return c, nil
}
