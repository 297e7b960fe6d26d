package gpu

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/ptxvm/ptxvm/memspace/hier"
)

// Profile describes one GPU: its SMs and what limits how many blocks an SM
// holds, the limits of a launch, its memory hierarchy and (for the timing
// model) its pipes and latencies. It is data: the profiles shipped with the
// binary are JSON files (profiles/*.json), and a user may edit a copy and
// pass it as a file.
//
// Units: bytes unless a name says otherwise; clocks in MHz.
type Profile struct {
	// Name is the short name ptxrun takes (--gpu h100); Description the
	// product.
	Name        string `json:"name"`
	Description string `json:"description"`
	// ComputeCap is the compute capability, "major.minor".
	ComputeCap string `json:"compute_capability"`
	// SMs is the number of streaming multiprocessors.
	SMs int `json:"sms"`
	// ClockMHz is the SM clock the timing model converts cycles with.
	ClockMHz int `json:"clock_mhz"`
	// DeviceMemory is the device memory a program may allocate.
	DeviceMemory int64 `json:"device_memory_bytes"`

	SM     SMLimits     `json:"sm"`
	Launch LaunchLimits `json:"launch"`
	// Memory is the memory hierarchy: caches, banks, coalescing rules, L2
	// and DRAM (its "sms" and "name" may be left out: they are the
	// profile's).
	Memory hier.Config `json:"memory"`
	// Timing is the timing model's section (issue 9 defines its fields; a
	// profile that leaves it out gets the model's defaults).
	Timing Timing `json:"timing"`
	// Host is what copies, memsets and managed memory's migrations cost
	// outside kernels (host.go); absent: programs' copies are not timed.
	Host Host `json:"host,omitempty"`
}

// SMLimits are what one SM holds: the limits the occupancy calculator
// divides by.
type SMLimits struct {
	// SubPartitions is the number of warp schedulers (SM sub-partitions).
	SubPartitions int `json:"sub_partitions"`
	MaxWarps      int `json:"max_warps"`
	MaxBlocks     int `json:"max_blocks"`
	// Registers is the 32-bit register file of the SM. RegisterFileParts is
	// how many equal parts it is split in (H100: one per sub-partition; a
	// warp's registers come from one part); RegAllocUnit the granularity,
	// in registers, that a warp's registers are allocated in (H100: 256,
	// i.e. 8 per thread); MaxRegsPerThread the most a thread may have.
	Registers         int `json:"registers"`
	RegisterFileParts int `json:"register_file_parts"`
	RegAllocUnit      int `json:"register_alloc_unit"`
	MaxRegsPerThread  int `json:"max_registers_per_thread"`
	// Shared is the most shared memory an SM can give its blocks (the
	// largest carveout); SharedAllocUnit the granularity of a block's
	// allocation. The carveouts and the per-block reserve of the driver are
	// in the memory section (l1.shared_carveouts_kib,
	// l1.reserved_shared_per_cta).
	Shared          int `json:"shared_bytes"`
	SharedAllocUnit int `json:"shared_alloc_unit"`
	// Barriers is the number of hardware barriers of an SM, shared by its
	// resident blocks (each block needs as many as it uses); 0: no limit.
	Barriers int `json:"barriers"`
}

// LaunchLimits are the limits of one launch.
type LaunchLimits struct {
	MaxThreadsPerBlock int `json:"max_threads_per_block"`
	// MaxBlockDim and MaxGridDim are the largest block and grid dimensions
	// (x, y, z).
	MaxBlockDim [3]int `json:"max_block_dim"`
	MaxGridDim  [3]int `json:"max_grid_dim"`
	// MaxSharedPerBlock is the most shared memory (static + dynamic) a
	// block may use, with the opt-in attribute above 48 KiB.
	MaxSharedPerBlock int `json:"max_shared_per_block"`
	// ConstBytes is the constant memory of a module.
	ConstBytes int `json:"const_bytes"`
}

// The GPU profiles shipped with the binary, one JSON file each.
//
//go:embed profiles/*.json
var profileFS embed.FS

// Names lists the embedded profiles (lower-case file names).
func Names() []string {
	ents, _ := profileFS.ReadDir("profiles")
	var names []string
	for _, e := range ents {
		names = append(names, strings.TrimSuffix(e.Name(), ".json"))
	}
	sort.Strings(names)
	return names
}

// Lookup returns a fresh copy of the embedded profile name
// (case-insensitive).
func Lookup(name string) (*Profile, error) {
	data, err := profileFS.ReadFile(path.Join("profiles", strings.ToLower(name)+".json"))
	if err != nil || name == "" || strings.ContainsAny(name, "/\\") {
		return nil, fmt.Errorf("unknown GPU %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	p, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("embedded profile %s: %w", name, err)
	}
	return p, nil
}

// MustLookup is Lookup for the embedded profiles, which are tested to
// parse.
func MustLookup(name string) *Profile {
	p, err := Lookup(name)
	if err != nil {
		panic(err)
	}
	return p
}

// Load returns the embedded profile called nameOrFile or, when there is
// none, reads the JSON file of that name.
func Load(nameOrFile string) (*Profile, error) {
	if p, err := Lookup(nameOrFile); err == nil {
		return p, nil
	}
	data, err := os.ReadFile(nameOrFile)
	if err != nil {
		if os.IsNotExist(err) && !strings.ContainsAny(nameOrFile, "/\\.") {
			return nil, fmt.Errorf("unknown GPU %q (known: %s; or give a profile file)", nameOrFile, strings.Join(Names(), ", "))
		}
		return nil, fmt.Errorf("GPU profile %q: not one of %s and not a readable file: %w", nameOrFile, strings.Join(Names(), ", "), err)
	}
	p, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", nameOrFile, err)
	}
	return p, nil
}

// Parse reads a profile from JSON (unknown fields are errors, so that a
// misspelt field is not silently ignored) and validates it.
//
// A profile may name an embedded profile as its base ("base": "h100") and
// hold only what differs from it: its objects are merged into the base's
// key by key, any other value replaces the base's (profiles/h200.json is
// the H100's with the H200's memory).
func Parse(data []byte) (*Profile, error) {
	data, err := withBase(data, 0)
	if err != nil {
		return nil, err
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	var p Profile
	if err := d.Decode(&p); err != nil {
		return nil, fmt.Errorf("GPU profile: %w", err)
	}
	if p.Memory.Name == "" {
		p.Memory.Name = p.Name
	}
	if p.Memory.SMs == 0 {
		p.Memory.SMs = p.SMs
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &p, nil
}

// Validate checks that p describes a GPU the emulator can model.
func (p *Profile) Validate() error {
	e := func(field, format string, a ...any) error {
		return fmt.Errorf("GPU profile %q: %s: %s", p.Name, field, fmt.Sprintf(format, a...))
	}
	if p.Name == "" {
		return e("name", "missing")
	}
	var major, minor int
	if n, err := fmt.Sscanf(p.ComputeCap, "%d.%d", &major, &minor); n != 2 || err != nil || major < 1 {
		return e("compute_capability", "%q is not major.minor", p.ComputeCap)
	}
	type pos struct {
		f string
		v int
	}
	s, l := &p.SM, &p.Launch
	for _, c := range []pos{
		{"sms", p.SMs}, {"clock_mhz", p.ClockMHz},
		{"sm.sub_partitions", s.SubPartitions}, {"sm.max_warps", s.MaxWarps}, {"sm.max_blocks", s.MaxBlocks},
		{"sm.registers", s.Registers}, {"sm.register_file_parts", s.RegisterFileParts},
		{"sm.register_alloc_unit", s.RegAllocUnit}, {"sm.max_registers_per_thread", s.MaxRegsPerThread},
		{"sm.shared_bytes", s.Shared}, {"sm.shared_alloc_unit", s.SharedAllocUnit},
		{"launch.max_threads_per_block", l.MaxThreadsPerBlock},
		{"launch.max_block_dim[0]", l.MaxBlockDim[0]}, {"launch.max_block_dim[1]", l.MaxBlockDim[1]}, {"launch.max_block_dim[2]", l.MaxBlockDim[2]},
		{"launch.max_grid_dim[0]", l.MaxGridDim[0]}, {"launch.max_grid_dim[1]", l.MaxGridDim[1]}, {"launch.max_grid_dim[2]", l.MaxGridDim[2]},
		{"launch.max_shared_per_block", l.MaxSharedPerBlock}, {"launch.const_bytes", l.ConstBytes},
	} {
		if c.v <= 0 {
			return e(c.f, "must be positive (got %d)", c.v)
		}
	}
	if p.DeviceMemory <= 0 {
		return e("device_memory_bytes", "must be positive (got %d)", p.DeviceMemory)
	}
	if s.Barriers < 0 {
		return e("sm.barriers", "must not be negative (got %d)", s.Barriers)
	}
	if s.MaxWarps%s.SubPartitions != 0 {
		return e("sm.max_warps", "%d warps do not divide among %d sub-partitions", s.MaxWarps, s.SubPartitions)
	}
	if s.Registers%s.RegisterFileParts != 0 {
		return e("sm.registers", "%d registers do not divide into %d parts", s.Registers, s.RegisterFileParts)
	}
	if l.MaxThreadsPerBlock > 32*s.MaxWarps {
		return e("launch.max_threads_per_block", "%d threads do not fit on one SM of %d warps", l.MaxThreadsPerBlock, s.MaxWarps)
	}
	if l.MaxSharedPerBlock > s.Shared {
		return e("launch.max_shared_per_block", "%d bytes exceed the SM's %d", l.MaxSharedPerBlock, s.Shared)
	}
	m := &p.Memory
	if m.Name != p.Name {
		return e("memory.name", "%q is not the profile's name %q (leave it out)", m.Name, p.Name)
	}
	if m.SMs != p.SMs {
		return e("memory.sms", "%d is not the profile's %d SMs (leave it out)", m.SMs, p.SMs)
	}
	if err := m.Validate(); err != nil {
		return fmt.Errorf("GPU profile %q: memory: %w", p.Name, err)
	}
	if top := m.L1.SharedCarveoutsKiB[len(m.L1.SharedCarveoutsKiB)-1] << 10; top != s.Shared {
		return e("sm.shared_bytes", "%d is not the largest carveout of memory.l1.shared_carveouts_kib (%d)", s.Shared, top)
	}
	if err := p.Host.validate(); err != nil {
		return fmt.Errorf("GPU profile %q: %w", p.Name, err)
	}
	return nil
}

// MarshalIndent returns p as the JSON a profile file holds.
func (p *Profile) MarshalIndent() ([]byte, error) {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// MaxThreadsPerSM is the most threads an SM holds.
func (p *Profile) MaxThreadsPerSM() int { return 32 * p.SM.MaxWarps }

// withBase returns data merged into the embedded profile its "base" names,
// or data itself when it names none; depth counts the bases followed.
func withBase(data []byte, depth int) ([]byte, error) {
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return data, nil // not an object: the strict decoder says why
	}
	raw, ok := top["base"]
	if !ok {
		return data, nil
	}
	var name string
	if err := json.Unmarshal(raw, &name); err != nil {
		return nil, fmt.Errorf("GPU profile: base: want the name of an embedded profile (%s)", strings.Join(Names(), ", "))
	}
	if depth >= 4 {
		return nil, fmt.Errorf("GPU profile: base %q: more than 4 bases in a chain", name)
	}
	b, err := profileFS.ReadFile(path.Join("profiles", strings.ToLower(name)+".json"))
	if err != nil || name == "" || strings.ContainsAny(name, "/\\") {
		return nil, fmt.Errorf("GPU profile: base %q is not an embedded profile (%s)", name, strings.Join(Names(), ", "))
	}
	if b, err = withBase(b, depth+1); err != nil {
		return nil, err
	}
	var base, over map[string]any
	dec := func(b []byte, v *map[string]any) error {
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber() // 64-bit sizes stay exact
		return d.Decode(v)
	}
	if err := dec(b, &base); err != nil {
		return nil, fmt.Errorf("embedded profile %s: %w", name, err)
	}
	if err := dec(data, &over); err != nil {
		return nil, fmt.Errorf("GPU profile: %w", err)
	}
	delete(over, "base")
	merge(base, over)
	return json.Marshal(base)
}

// merge writes over into dst: objects key by key, other values whole.
func merge(dst, over map[string]any) {
	for k, v := range over {
		if o, ok := v.(map[string]any); ok {
			if d, ok := dst[k].(map[string]any); ok {
				merge(d, o)
				continue
			}
		}
		dst[k] = v
	}
}
