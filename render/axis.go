package render

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hieropt/hieropt/state"
)

// The address axis. A level is drawn to the addresses the plans use, not
// to its capacity: the addresses any placement covers are merged into
// ranges, and an empty stretch of at least AxisBreakShare of what would
// otherwise be drawn (the space above the highest address the plans reach
// included) is cut out and shown as a break mark. What remains are the
// level's bands, each rounded out to a power-of-two step so that its
// ticks read 16 MiB, 32 MiB and not 30.9 MiB; a band that ends within
// that rounding of the capacity ends at the capacity, drawn as a line.

// AxisBreakShare is the least share of the drawn address range that an
// empty stretch must have to be cut out of a level's axis.
const AxisBreakShare = 0.25

// axisMaxBreaks is the most empty stretches cut out between a level's
// bands (the one above the highest address is not counted).
const axisMaxBreaks = 2

// axisMinBandShare is the least share of a panel's height a band gets,
// so that a few blocks far up a big level stay visible.
const axisMinBandShare = 0.15

// Band is a range of addresses [Lo, Hi) of a level that a drawing shows.
type Band struct{ Lo, Hi int64 }

// LevelRange is how a level's addresses are drawn: its bands, bottom to
// top, with the empty stretches between them cut out (a break mark each).
type LevelRange struct {
	Bands    []Band
	Capacity int64
	// CapacityShown says whether the top band ends at the capacity (drawn
	// as a line); otherwise the capacity is far above the top band and a
	// break mark at the top of the panel says so.
	CapacityShown bool
}

// Top is the highest address drawn.
func (r LevelRange) Top() int64 { return r.Bands[len(r.Bands)-1].Hi }

// Ranges returns, per level, the address ranges a drawing of the layouts
// shows: those their placements use, the empty stretches of at least
// AxisBreakShare of the range cut out, each band rounded out to a
// power-of-two step (and to the capacity when that is close). A level no
// placement uses is drawn whole.
func Ranges(p *state.Problem, lays ...*state.Layout) []LevelRange {
	return rangesIn(p, 0, p.Prog.Timesteps(), lays)
}

// rangesIn is Ranges of the placements that meet timesteps [t0, t1) (a
// resident one meets every timestep).
func rangesIn(p *state.Problem, t0, t1 int, lays []*state.Layout) []LevelRange {
	used := make([][]Band, p.Levels())
	for _, lay := range lays {
		for b, segs := range lay.Segs {
			last := p.Block(b).Last
			for i, s := range segs {
				to := last
				if i+1 < len(segs) {
					to = int(segs[i+1].From) - 1
				}
				if !s.IsResident() && (to < t0 || int(s.Start()) >= t1) {
					continue
				}
				l := int(s.Level)
				used[l] = append(used[l], Band{s.Offset, s.Offset + p.Foot(b, l)})
			}
		}
	}
	out := make([]LevelRange, p.Levels())
	for l := range out {
		out[l] = levelRange(used[l], p.HW.Levels[l].Capacity)
	}
	return out
}

// levelRange builds a level's range from the address ranges its
// placements cover.
func levelRange(used []Band, capacity int64) LevelRange {
	r := LevelRange{Capacity: capacity}
	if len(used) == 0 {
		r.Bands, r.CapacityShown = []Band{{0, capacity}}, true
		return r
	}
	slices.SortFunc(used, func(a, b Band) int {
		if a.Lo != b.Lo {
			return cmpInt64(a.Lo, b.Lo)
		}
		return cmpInt64(a.Hi, b.Hi)
	})
	merged := []Band{used[0]}
	for _, u := range used[1:] {
		last := &merged[len(merged)-1]
		if u.Lo <= last.Hi {
			last.Hi = max(last.Hi, u.Hi)
			continue
		}
		merged = append(merged, u)
	}
	top := merged[len(merged)-1].Hi
	// The space above the highest address is cut out when it is at
	// least AxisBreakShare of the capacity.
	r.CapacityShown = float64(capacity-top) < AxisBreakShare*float64(capacity)
	drawn := top
	if r.CapacityShown {
		drawn = capacity
	}
	// The gaps: below the first range (from 0) and between ranges.
	type gap struct {
		lo, hi int64
	}
	var gaps []gap
	if merged[0].Lo > 0 {
		gaps = append(gaps, gap{0, merged[0].Lo})
	}
	for i := 1; i < len(merged); i++ {
		gaps = append(gaps, gap{merged[i-1].Hi, merged[i].Lo})
	}
	// The largest gaps first (ties: the lower one), each cut out while
	// it is at least AxisBreakShare of what is still drawn.
	slices.SortStableFunc(gaps, func(a, b gap) int { return cmpInt64(b.hi-b.lo, a.hi-a.lo) })
	var cuts []gap
	for _, g := range gaps {
		if len(cuts) == axisMaxBreaks || float64(g.hi-g.lo) < AxisBreakShare*float64(drawn) {
			break
		}
		cuts = append(cuts, g)
		drawn -= g.hi - g.lo
	}
	slices.SortFunc(cuts, func(a, b gap) int { return cmpInt64(a.lo, b.lo) })
	lo := int64(0)
	for _, c := range cuts {
		if c.lo > lo {
			r.Bands = append(r.Bands, Band{lo, c.lo})
		}
		lo = c.hi
	}
	r.Bands = append(r.Bands, Band{lo, top})
	if r.CapacityShown {
		r.Bands[len(r.Bands)-1].Hi = capacity
	}
	// Round each band out to a step of a power of two, a quarter of its
	// span or less, within the neighbouring bands and the capacity.
	for i := range r.Bands {
		b := &r.Bands[i]
		step := int64(1) << max(0, int(math.Floor(math.Log2(float64(max(b.Hi-b.Lo, 4))/4))))
		floor := int64(0)
		if i > 0 {
			floor = r.Bands[i-1].Hi
		}
		b.Lo = max(b.Lo/step*step, floor)
		ceil := capacity
		if i+1 < len(r.Bands) {
			ceil = r.Bands[i+1].Lo
		}
		b.Hi = min((b.Hi+step-1)/step*step, ceil)
		if i+1 == len(r.Bands) && !r.CapacityShown && capacity-b.Hi <= step {
			b.Hi, r.CapacityShown = capacity, true
		}
	}
	// Bands that the rounding made touch are one.
	bands := r.Bands[:1]
	for _, b := range r.Bands[1:] {
		if last := &bands[len(bands)-1]; b.Lo <= last.Hi {
			last.Hi = max(last.Hi, b.Hi)
			continue
		}
		bands = append(bands, b)
	}
	r.Bands = bands
	return r
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// String lists the bands: "0–128 MiB, 2041 MiB–2 GiB".
func (r LevelRange) String() string {
	var parts []string
	for _, b := range r.Bands {
		parts = append(parts, addrLabel(b.Lo)+"–"+addrLabel(b.Hi))
	}
	return strings.Join(parts, ", ")
}

// addrLabel prints an address in the largest binary unit that shows it
// exactly with at most one decimal (2041 MiB, not 2 GiB; 1.5 GiB) and in
// at most four digits, else as bytesLabel does.
func addrLabel(v int64) string {
	if v == 0 {
		return "0"
	}
	for k := 5; k >= 1; k-- {
		unit := int64(1) << (10 * k)
		if v >= unit && (v*10)%unit == 0 {
			return bytesLabel(v)
		}
		if k >= 2 && v >= unit && v%(unit>>10) == 0 && v/(unit>>10) < 10000 {
			// Exact in the unit below: say it there.
			return strconv.FormatInt(v/(unit>>10), 10) + " " + string("KMGTPE"[k-2]) + "iB"
		}
	}
	return bytesLabel(v)
}

// addrAxis maps a level's addresses to heights in a panel of height h:
// 0 at the bottom, each band a share of the height, a gap of brk between
// bands.
type addrAxis struct {
	r      LevelRange
	y0, y1 []float64 // per band: the heights of its bottom and top
}

// newAddrAxis lays the bands of r out on a height h, with gaps of brk
// between bands: each band's height in proportion to its span, at least
// axisMinBandShare of what the bands share when there are several.
func newAddrAxis(r LevelRange, h, brk float64) *addrAxis {
	n := len(r.Bands)
	room := h - brk*float64(n-1)
	w := make([]float64, n)
	total := 0.0
	for i, b := range r.Bands {
		total += float64(b.Hi - b.Lo)
		w[i] = float64(b.Hi - b.Lo)
	}
	if n > 1 {
		sum := 0.0
		for i := range w {
			w[i] = math.Max(w[i]/total, axisMinBandShare)
			sum += w[i]
		}
		total = sum
	}
	a := &addrAxis{r: r}
	y := 0.0
	for i := range w {
		a.y0 = append(a.y0, y)
		y += room * w[i] / total
		a.y1 = append(a.y1, y)
		y += brk
	}
	return a
}

// height is address v's height above the panel's bottom: in the band
// holding it, else at the top of the band below it.
func (a *addrAxis) height(v int64) float64 {
	bands := a.r.Bands
	for i, b := range bands {
		if v <= b.Hi || i+1 == len(bands) {
			if v < b.Lo {
				return a.y0[i]
			}
			return math.Min(a.y0[i]+(a.y1[i]-a.y0[i])*float64(v-b.Lo)/float64(b.Hi-b.Lo), a.y1[i])
		}
		if v < bands[i+1].Lo {
			return a.y1[i]
		}
	}
	return 0
}
