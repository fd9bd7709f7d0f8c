package calibrate

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/hieropt/hieropt/hw"
	"github.com/hieropt/hieropt/inputerr"
)

// DefaultAlignment is the alignment of every level of a fitted profile
// without a base: the cache-line size.
const DefaultAlignment = 64

// DefaultName names a fitted profile when no name is given.
const DefaultName = "calibrated"

// Profile builds a hardware profile (time_unit ns) from fits: each level
// needs an In and an Out fit. With a base profile, the levels are the
// base's, in its order, with its capacities and alignments, and their names
// must match the fitted levels one for one. Without, the levels are in the
// order of the fits (LevelOrder first), with the capacities of this
// machine's caches (ReadCaches; DRAMCapacity for DRAM) and alignment 64.
// The description says how the profile was made, with R² per level, and
// names samplesFile, the file the fits came from ("" names none), wrapped
// at 96 columns. The profile passes hw.Profile.Validate.
func Profile(fits []LinkFit, base *hw.Profile, name, samplesFile string) (*hw.Profile, error) {
	return buildProfile(fits, base, name, samplesFile, ReadCaches())
}

type levelFits struct{ in, out *LinkFit }

func buildProfile(fits []LinkFit, base *hw.Profile, name, samplesFile string, caches Caches) (*hw.Profile, error) {
	if name == "" {
		name = DefaultName
	}
	byLevel := map[string]*levelFits{}
	var order []string
	for i := range fits {
		f := &fits[i]
		lf := byLevel[f.Level]
		if lf == nil {
			lf = &levelFits{}
			byLevel[f.Level] = lf
			order = append(order, f.Level)
		}
		switch f.Direction {
		case In:
			lf.in = f
		case Out:
			lf.out = f
		default:
			return nil, inputerr.New("samples", fmt.Sprintf("level %q", f.Level), "unknown direction %q: want %q or %q", f.Direction, In, Out)
		}
	}
	if len(order) == 0 {
		return nil, inputerr.New("samples", "", "no fits: nothing to build a profile from")
	}
	for _, l := range order {
		lf := byLevel[l]
		for _, side := range []struct {
			dir string
			f   *LinkFit
		}{{In, lf.in}, {Out, lf.out}} {
			if side.f == nil {
				return nil, inputerr.New("samples", fmt.Sprintf("level %q", l), "no %q samples: a profile needs both directions of every level", side.dir)
			}
		}
	}
	p := &hw.Profile{Name: name, TimeUnit: hw.NS}
	var capNote string
	if base != nil {
		doc := hw.DocName(base.Name)
		for _, bl := range base.Levels {
			lf := byLevel[bl.Name]
			if lf == nil {
				return nil, inputerr.New(doc, fmt.Sprintf("level %q", bl.Name), "no samples for this level (the samples have %s): the base's level names must match", strings.Join(order, ", "))
			}
			p.Levels = append(p.Levels, hw.Level{Name: bl.Name, Capacity: bl.Capacity, Alignment: bl.Alignment,
				In: link(lf.in), Out: link(lf.out), ReadOnly: bl.ReadOnly})
		}
		for _, l := range order {
			if _, ok := base.LevelIndex(l); !ok {
				return nil, inputerr.New(doc, "", "has no level %q (it has %s): the base's level names must match the samples'", l, strings.Join(base.LevelNames(), ", "))
			}
		}
		capNote = fmt.Sprintf("Capacities and alignments are those of the base profile %q.", base.Name) + fromBase(p, base)
	} else {
		var parts []string
		for _, l := range orderLevels(order) {
			c, ok := caches.Capacity(l)
			if !ok {
				return nil, inputerr.New("samples", fmt.Sprintf("level %q", l), "no capacity known for this level (calibrate knows %s): give a base profile that has it", strings.Join(LevelOrder, ", "))
			}
			lf := byLevel[l]
			p.Levels = append(p.Levels, hw.Level{Name: l, Capacity: c, Alignment: DefaultAlignment, In: link(lf.in), Out: link(lf.out)})
			src := "fallback"
			switch l {
			case "L1", "L2", "L3":
				if caches.FromSys[l[1]-'1'] {
					src = "/sys"
				}
			case "DRAM":
				src = "assumed"
			}
			parts = append(parts, fmt.Sprintf("%s %s (%s)", l, fmtSize(c), src))
		}
		capNote = "Capacities: " + strings.Join(parts, ", ") + "; alignment 64 B (the cache line)."
	}
	p.Description = describe(p, byLevel, samplesFile, capNote)
	if err := p.Validate(hw.DocName(name)); err != nil {
		return nil, err
	}
	return p, nil
}

// fromBase gives p what the base says of the hardware besides its links:
// read-only levels (set by the caller), the cost model, the DMA channels,
// and the compute unit where the base's time unit is p's (ns: a compute
// rate in cycles cannot be converted without the clock). It returns the
// sentence the description adds, "" when the base has none of them.
func fromBase(p, base *hw.Profile) string {
	var took, dropped []string
	for _, l := range base.Levels {
		if l.ReadOnly {
			took = append(took, "read_only levels")
			break
		}
	}
	if base.CostModel != "" {
		p.CostModel = base.CostModel
		took = append(took, "the cost model")
	}
	if base.DMA.Channels != 0 {
		p.DMA = base.DMA
		took = append(took, "the DMA channels")
	}
	if base.Compute != nil {
		if base.TimeUnit == p.TimeUnit {
			c := *base.Compute
			p.Compute = &c
			took = append(took, "the compute unit")
		} else {
			dropped = append(dropped, fmt.Sprintf("Its compute unit is not: it is in %s, and this profile in %s.", hw.Units(base.TimeUnit), hw.Units(p.TimeUnit)))
		}
	}
	var out string
	if len(took) > 0 {
		out = fmt.Sprintf(" So are its %s.", strings.Join(took, ", "))
	}
	for _, d := range dropped {
		out += " " + d
	}
	return out
}

func link(f *LinkFit) hw.Link {
	return hw.Link{Latency: round5(f.Latency), Bandwidth: round5(f.Bandwidth)}
}

func describe(p *hw.Profile, byLevel map[string]*levelFits, samplesFile, capNote string) string {
	var b strings.Builder
	src := "measured samples"
	if samplesFile != "" {
		src = fmt.Sprintf("the samples file %q", samplesFile)
	}
	total := 0
	for _, lf := range byLevel {
		total += lf.in.N + lf.out.N
	}
	fmt.Fprintf(&b, "Fitted by hieropt tune from %s (%d samples): per level and direction, "+
		"time = latency + bytes/bandwidth by least squares weighted by 1/time²; "+
		"latency in ns, bandwidth in bytes per ns (GB/s).", src, total)
	var r2 []string
	var poor []string
	for _, l := range p.Levels {
		lf := byLevel[l.Name]
		r2 = append(r2, fmt.Sprintf("%s in %.4f out %.4f", l.Name, lf.in.R2, lf.out.R2))
		for _, f := range []*LinkFit{lf.in, lf.out} {
			if f.Poor {
				poor = append(poor, fmt.Sprintf("%s %s (%s)", f.Level, f.Direction, strings.Join(f.Warnings, "; ")))
			}
		}
	}
	fmt.Fprintf(&b, " R² per level: %s.", strings.Join(r2, "; "))
	if len(poor) > 0 {
		fmt.Fprintf(&b, " Poor fits: %s.", strings.Join(poor, "; "))
	}
	b.WriteString(" " + capNote)
	return strings.Join(wrap(b.String(), 96), "\n")
}

// round5 rounds to 5 significant digits.
func round5(v float64) float64 {
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 5, 64), 64)
	if err != nil {
		return v
	}
	return r
}

func fmtSize(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

// WriteProfile writes p as a YAML document of FORMATS.md section 2
// (hieropt.hw/v1), the description wrapped as a literal block, with the
// fields of section 6.1 that p has (cost_model, compute, dma, read_only):
// hw.Parse reads back p exactly.
func WriteProfile(w io.Writer, p *hw.Profile) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "format: %s\n", hw.Format)
	fmt.Fprintf(bw, "name: %s\n", yamlString(p.Name))
	if d := p.Description; d != "" {
		if literalOK(d) {
			bw.WriteString("description: |-\n")
			for _, line := range strings.Split(d, "\n") {
				if line == "" {
					bw.WriteString("\n")
					continue
				}
				bw.WriteString("  " + line + "\n")
			}
		} else {
			b, _ := json.Marshal(d)
			fmt.Fprintf(bw, "description: %s\n", b)
		}
	}
	fmt.Fprintf(bw, "time_unit: %s\n", p.TimeUnit)
	if p.CostModel != "" {
		fmt.Fprintf(bw, "cost_model: %s\n", yamlString(p.CostModel))
	}
	if c := p.Compute; c != nil {
		fmt.Fprintf(bw, "compute: {macs_per_unit: %s, op_overhead: %s}\n", fmtNum(c.MACsPerUnit), fmtNum(c.OpOverhead))
	}
	if p.DMA.Channels != 0 {
		fmt.Fprintf(bw, "dma: {channels: %d}\n", p.DMA.Channels)
	}
	bw.WriteString("levels:\n")
	for _, l := range p.Levels {
		fmt.Fprintf(bw, "  - name: %s\n", yamlString(l.Name))
		fmt.Fprintf(bw, "    capacity: %d\n", l.Capacity)
		fmt.Fprintf(bw, "    alignment: %d\n", l.Alignment)
		fmt.Fprintf(bw, "    in:  {latency: %s, bandwidth: %s}\n", fmtNum(l.In.Latency), fmtNum(l.In.Bandwidth))
		fmt.Fprintf(bw, "    out: {latency: %s, bandwidth: %s}\n", fmtNum(l.Out.Latency), fmtNum(l.Out.Bandwidth))
		if l.ReadOnly {
			bw.WriteString("    read_only: true\n")
		}
	}
	return bw.Flush()
}

// plainName matches the strings written without quotes.
var plainName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.-]*$`)

// yamlString writes s plain when it is a simple name that YAML cannot take
// for anything but a string, else as a double-quoted scalar (JSON's escapes
// are YAML's).
func yamlString(s string) string {
	switch strings.ToLower(s) {
	case "y", "n", "yes", "no", "on", "off", "true", "false", "null":
	default:
		if plainName.MatchString(s) {
			return s
		}
	}
	b, _ := json.Marshal(s)
	return string(b)
}

// fmtNum writes a number without an exponent, so that every YAML reader
// takes it for a number.
func fmtNum(v float64) string {
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// literalOK reports whether s can be written as a literal block scalar
// ("|-") and read back unchanged: printable, no line starting with a space
// or a tab (the block's indentation is fixed by its lines), no trailing
// newline (which "|-" strips).
func literalOK(s string) bool {
	if strings.HasSuffix(s, "\n") {
		return false
	}
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t") || strings.HasSuffix(line, " ") {
			return false
		}
		for _, r := range line {
			if !unicode.IsPrint(r) {
				return false
			}
		}
	}
	return true
}

// wrap breaks a line at spaces so that lines are at most width bytes where
// possible, collapsing runs of spaces.
func wrap(line string, width int) []string {
	words := strings.Fields(line)
	if len(words) == 0 {
		return []string{""}
	}
	var out []string
	cur := words[0]
	for _, w := range words[1:] {
		if len(cur)+1+len(w) > width {
			out = append(out, cur)
			cur = w
			continue
		}
		cur += " " + w
	}
	return append(out, cur)
}
