package timing

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"strings"

	"github.com/ptxvm/ptxvm/scheduler/sasscost"
)

// Config is the timing section of a GPU profile: what the cycle loop needs
// beyond the SM limits and the memory hierarchy (whose latencies and
// bandwidths are the hierarchy section's, hier.Config.Latency and DRAM).
// All times are in SM cycles.
type Config struct {
	Name string `json:"name"`
	// ClockMHz is the SM clock gpu__time_duration is computed at.
	ClockMHz float64 `json:"clock_mhz"`
	// Scheduler is the warp scheduler's policy: "gto" (greedy then oldest:
	// the warp that issued last keeps issuing while it can, then the oldest
	// ready warp) or "lrr" (loose round robin).
	Scheduler string `json:"scheduler"`
	// SubPartitions is the number of warp schedulers per SM; warp slot s
	// belongs to sub-partition s mod SubPartitions.
	SubPartitions int `json:"sub_partitions"`
	// WindowCycles is how far SMs advance independently (in parallel on
	// host cores) before their L2/DRAM traffic is merged. It must not
	// exceed the shortest L2 round trip (L1 hit + L2 hit near), so that no
	// completion falls inside the window that made it.
	WindowCycles int `json:"window_cycles"`
	// SASS names the PTX-to-machine-code cost table (package sasscost).
	SASS string `json:"sass_table"`

	// LaunchCycles is the fixed cost of a launch as sm__cycles_elapsed
	// counts it (front end, first block dispatch, the final flush),
	// added to the cycles the SMs were busy.
	LaunchCycles int `json:"launch_cycles"`
	// CTALaunchCycles is the time from a block being dispatched to an SM
	// (at the start, or when a block on it finishes) to its warps' first
	// issue.
	CTALaunchCycles int `json:"cta_launch_cycles"`
	// CTARetireCycles is the time from a block's last warp exiting until
	// its resources are free for the next block.
	CTARetireCycles int `json:"cta_retire_cycles"`

	// Pipes are, per execution pipe (sasscost pipe names), the cycles a
	// warp instruction occupies it per sub-partition (the inverse of its
	// throughput) and the latency of its results.
	Pipes map[string]PipeConfig `json:"pipes"`
	// IssueCycles is the minimum cycles between two issues of one warp
	// (the compiler's smallest stall count).
	IssueCycles int `json:"issue_cycles"`
	// BranchCycles: after a branch or call a warp waits this long for its
	// target (branch_resolving).
	BranchCycles int `json:"branch_cycles"`
	// BarrierCycles: from the last warp's arrival at a barrier to the
	// release of the waiting warps.
	BarrierCycles int `json:"barrier_cycles"`
	// MembarCycles: how long a memory barrier holds its warp.
	MembarCycles int `json:"membar_cycles"`

	// MIOQueue, LSUQueue and TexQueue are the entries per sub-partition
	// of the queues in front of the shared MIO unit, the L1TEX's LSU path
	// (global and local) and its texture path; a warp whose instruction
	// finds its queue full stalls (mio_throttle, lg_throttle,
	// tex_throttle).
	MIOQueue int `json:"mio_queue"`
	LSUQueue int `json:"lsu_queue"`
	TexQueue int `json:"tex_queue"`
	// DataCycles is the cycles one wavefront occupies the SM's L1/shared
	// data path (shared wavefronts, global and local lines, constant
	// addresses); TexCycles the same for a texture request on the texture
	// path.
	DataCycles float64 `json:"data_cycles_per_wavefront"`
	TexCycles  float64 `json:"tex_cycles_per_request"`
}

// PipeConfig is one execution pipe's throughput and latency.
type PipeConfig struct {
	Cycles  float64 `json:"cycles"`
	Latency int     `json:"latency"`
}

// Schedulers.
const (
	GTO = "gto"
	LRR = "lrr"
)

//go:embed profiles/*.json
var profileFS embed.FS

// Profile returns the embedded timing section name ("h100", "gf100"), or
// else reads the JSON file of that name.
func Profile(nameOrFile string) (*Config, error) {
	data, err := profileFS.ReadFile(path.Join("profiles", strings.ToLower(nameOrFile)+".json"))
	if err != nil {
		data, err = os.ReadFile(nameOrFile)
		if err != nil {
			return nil, fmt.Errorf("timing profile %q: not embedded and not a readable file: %w", nameOrFile, err)
		}
	}
	return ParseConfig(data)
}

// ParseConfig reads a Config from JSON (unknown fields are errors) and
// validates it.
func ParseConfig(data []byte) (*Config, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	var c Config
	if err := d.Decode(&c); err != nil {
		return nil, fmt.Errorf("timing config: %w", err)
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// Validate checks that c describes a runnable timing model.
func (c *Config) Validate() error {
	e := func(field, format string, a ...any) error {
		return fmt.Errorf("timing config %q: %s: %s", c.Name, field, fmt.Sprintf(format, a...))
	}
	if c.ClockMHz <= 0 {
		return e("clock_mhz", "must be positive")
	}
	if c.Scheduler != GTO && c.Scheduler != LRR {
		return e("scheduler", "%q is neither %q nor %q", c.Scheduler, GTO, LRR)
	}
	if c.SubPartitions <= 0 || c.SubPartitions > 8 {
		return e("sub_partitions", "%d is not in 1..8", c.SubPartitions)
	}
	if c.WindowCycles <= 0 {
		return e("window_cycles", "must be positive")
	}
	for _, f := range []struct {
		n string
		v int
	}{{"launch_cycles", c.LaunchCycles}, {"cta_launch_cycles", c.CTALaunchCycles}, {"cta_retire_cycles", c.CTARetireCycles},
		{"branch_cycles", c.BranchCycles}, {"barrier_cycles", c.BarrierCycles}, {"membar_cycles", c.MembarCycles}} {
		if f.v < 0 {
			return e(f.n, "must not be negative")
		}
	}
	if c.IssueCycles < 1 {
		return e("issue_cycles", "must be at least 1")
	}
	for _, f := range []struct {
		n string
		v int
	}{{"mio_queue", c.MIOQueue}, {"lsu_queue", c.LSUQueue}, {"tex_queue", c.TexQueue}} {
		if f.v < 1 || f.v > maxQueue {
			return e(f.n, "%d is not in 1..%d", f.v, maxQueue)
		}
	}
	if c.DataCycles < 0 || c.TexCycles < 0 {
		return e("data_cycles_per_wavefront", "must not be negative")
	}
	for name, p := range c.Pipes {
		if _, ok := sasscost.ParsePipe(name); !ok {
			return e("pipes", "unknown pipe %q", name)
		}
		if p.Cycles < 0 || p.Latency < 0 {
			return e("pipes."+name, "negative cycles or latency")
		}
	}
	for p := sasscost.Pipe(1); p < sasscost.NumPipes; p++ {
		if _, ok := c.Pipes[p.String()]; !ok {
			return e("pipes", "no entry for pipe %q", p)
		}
	}
	if _, err := sasscost.Load(c.SASS); err != nil {
		return e("sass_table", "%v", err)
	}
	return nil
}

// maxQueue bounds the queues' depth (their rings are arrays).
const maxQueue = 64

// Marshal returns c as the JSON a profile file holds.
func (c *Config) Marshal() ([]byte, error) {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
