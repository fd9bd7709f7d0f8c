// Package hw is the memory hierarchy a plan targets: the hardware profile of
// FORMATS.md section 2 ("hieropt.hw/v1").
//
// A Profile lists its levels fastest (highest) first. Each level has a
// capacity, an alignment, and the latency and bandwidth of writing data into
// it and reading data out of it: moving d bytes across one side costs
// latency + d/bandwidth time units. The additions of the timeline model
// (FORMATS.md section 6.1) are optional: the cost model plans on the
// profile use (CostModel), the compute unit (Compute), the copy engine
// (DMA) and read-only levels (Level.ReadOnly, which bind under every
// model).
//
// A Profile is plain data: built in code, or read from a YAML file by
// Parse or ReadFile, which match keys exactly (a key that differs from a
// field only in case is an error naming the field; other unknown keys are
// ignored, as the format requires). Validate checks every rule of the
// format. The built-in profiles are package profiles.
package hw

import (
	"fmt"
	"math"

	"github.com/hieropt/hieropt/inputerr"
)

// Format is the value of the "format" field of a profile document.
const Format = "hieropt.hw/v1"

// Time units a profile may use.
const (
	Cycle = "cycle"
	NS    = "ns"
)

// Units is a time unit as a plural noun for reports: "cycles", "ns".
func Units(unit string) string {
	if unit == NS {
		return unit
	}
	return unit + "s"
}

// Link is one side of a level: the cost of moving d bytes across it is
// Latency + d/Bandwidth time units.
type Link struct {
	Latency   float64 // time units, > 0
	Bandwidth float64 // bytes per time unit, > 0
}

// Time returns the time to move d bytes across the link.
func (l Link) Time(d int64) float64 { return l.Latency + float64(d)/l.Bandwidth }

// Level is one software-managed memory.
type Level struct {
	Name      string
	Capacity  int64 // bytes, > 0
	Alignment int64 // bytes, > 0: offsets are multiples, footprints rounded up
	In        Link  // writing into the level
	Out       Link  // reading out of the level
	// ReadOnly says that the level holds constants only (FORMATS.md 6.1,
	// rule 7: under every cost model, no other block is placed in it), as
	// the flash of a microcontroller. Profile key read_only; false when
	// absent.
	ReadOnly bool
}

// Compute is the compute unit of the timeline model (FORMATS.md 6.1): an
// op with m MACs computes for OpOverhead + m/MACsPerUnit time units.
type Compute struct {
	MACsPerUnit float64 // MACs retired per time unit, finite and > 0
	OpOverhead  float64 // time units every op costs besides its MACs, finite and >= 0
}

// DMA is the copy engine of the timeline model (FORMATS.md 6.1).
type DMA struct {
	// Channels is how many copies can run at once (profile key
	// dma.channels, an integer >= 1). 0, the zero value, means the
	// format's default, 1 (Profile.Channels).
	Channels int
}

// Profile is a memory hierarchy, fastest level first.
type Profile struct {
	Name        string
	Description string
	TimeUnit    string
	// CostModel names the cost model of plans on this profile unless the
	// user names another (profile key cost_model); "" names none, and the
	// default model applies. Any non-empty name is a valid profile: whether
	// a model of that name exists is the planner's check.
	CostModel string
	// Compute is the compute unit (profile key compute); nil when the
	// profile has none, and ops then cost no compute time (FORMATS.md 6.4).
	Compute *Compute
	// DMA is the copy engine (profile key dma); its zero value is the
	// default, one channel.
	DMA    DMA
	Levels []Level
}

// Channels returns the number of DMA channels: DMA.Channels, or the
// default 1 when it is 0.
func (p *Profile) Channels() int { return max(1, p.DMA.Channels) }

// LevelIndex returns the index of the level named name.
func (p *Profile) LevelIndex(name string) (int, bool) {
	for i := range p.Levels {
		if p.Levels[i].Name == name {
			return i, true
		}
	}
	return 0, false
}

// LevelNames returns the level names, fastest first.
func (p *Profile) LevelNames() []string {
	out := make([]string, len(p.Levels))
	for i := range p.Levels {
		out[i] = p.Levels[i].Name
	}
	return out
}

// DocName returns how errors name the profile document in file.
func DocName(file string) string { return inputerr.Doc("hardware profile", file) }

// LevelItem names level i for error messages.
func (p *Profile) LevelItem(i int) string {
	if i < len(p.Levels) && p.Levels[i].Name != "" {
		return fmt.Sprintf("level %q", p.Levels[i].Name)
	}
	return fmt.Sprintf("level %d", i)
}

// MaxCapacity is the largest capacity of a level, 2^60 bytes (1 EiB). The
// planners compute offsets in int64 by sums of an offset, a footprint and
// an alignment, each at most the capacity for a block the level holds (its
// effective alignment is at most its footprint): an offset rounded up to an
// alignment, plus a footprint, rounded up again stays below 4 * 2^60 =
// 2^62, with room to spare, where larger levels could overflow (a level of
// 2^63-1 bytes aligned to 2^62 did). FORMATS.md section 2.
const MaxCapacity = 1 << 60

// Validate checks every rule of FORMATS.md section 2. doc names the document
// in errors.
func (p *Profile) Validate(doc string) error {
	if p.Name == "" {
		return inputerr.New(doc, "", "missing required field \"name\"")
	}
	if p.TimeUnit != Cycle && p.TimeUnit != NS {
		return inputerr.New(doc, "", "time_unit %q: want %q or %q", p.TimeUnit, Cycle, NS)
	}
	if err := p.validateTimeline(doc); err != nil {
		return err
	}
	if len(p.Levels) == 0 {
		return inputerr.New(doc, "", "\"levels\" is empty: a profile needs at least one level")
	}
	seen := make(map[string]int, len(p.Levels))
	for i := range p.Levels {
		l := &p.Levels[i]
		item := p.LevelItem(i)
		if l.Name == "" {
			return inputerr.New(doc, item, "missing required field \"name\"")
		}
		if j, dup := seen[l.Name]; dup {
			return inputerr.New(doc, item, "duplicate level name (also level %d)", j)
		}
		seen[l.Name] = i
		if l.Capacity <= 0 {
			return inputerr.New(doc, item, "capacity %d: must be > 0 bytes", l.Capacity)
		}
		if l.Capacity > MaxCapacity {
			return inputerr.New(doc, item, "capacity %d: must be at most 2^60 = %d bytes (1 EiB: offsets are 64-bit integers, FORMATS.md section 2)", l.Capacity, int64(MaxCapacity))
		}
		if l.Alignment <= 0 {
			return inputerr.New(doc, item, "alignment %d: must be > 0 bytes", l.Alignment)
		}
		if l.Alignment > l.Capacity {
			return inputerr.New(doc, item, "alignment %d is larger than the capacity %d", l.Alignment, l.Capacity)
		}
		for _, side := range []struct {
			name string
			link Link
		}{{"in", l.In}, {"out", l.Out}} {
			if err := checkPositive(side.link.Latency); err != nil {
				return inputerr.New(doc, item, "%s.latency %v: %v", side.name, side.link.Latency, err)
			}
			if err := checkPositive(side.link.Bandwidth); err != nil {
				return inputerr.New(doc, item, "%s.bandwidth %v: %v", side.name, side.link.Bandwidth, err)
			}
		}
	}
	return nil
}

// validateTimeline checks the fields of FORMATS.md 6.1 that are not a
// level's: cost_model, compute and dma.
func (p *Profile) validateTimeline(doc string) error {
	if c := p.Compute; c != nil {
		if err := checkPositive(c.MACsPerUnit); err != nil {
			return inputerr.New(doc, "", "compute.macs_per_unit %v: %v", c.MACsPerUnit, err)
		}
		if err := checkNonNegative(c.OpOverhead); err != nil {
			return inputerr.New(doc, "", "compute.op_overhead %v: %v", c.OpOverhead, err)
		}
	}
	if p.DMA.Channels < 0 {
		return inputerr.New(doc, "", "dma.channels %d: must be an integer >= 1 (0 in code means the default, 1)", p.DMA.Channels)
	}
	return nil
}

func checkNonNegative(v float64) error {
	switch {
	case math.IsNaN(v):
		return fmt.Errorf("must be a number, not NaN")
	case math.IsInf(v, 0):
		return fmt.Errorf("must be finite")
	case v < 0:
		return fmt.Errorf("must be >= 0")
	}
	return nil
}

func checkPositive(v float64) error {
	switch {
	case math.IsNaN(v):
		return fmt.Errorf("must be a number, not NaN")
	case math.IsInf(v, 0):
		return fmt.Errorf("must be finite")
	case v <= 0:
		return fmt.Errorf("must be > 0")
	}
	return nil
}
