package render

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/hieropt/hieropt/state"
)

// ASCII draws a compact text map of each level over time, for terminals
// and CI logs: a row per slice of addresses (top = the top of the range,
// as in the SVG: the addresses the plan uses, a row of '~' where empty
// addresses are cut out), a column per group of timesteps, and in each
// cell how full it is: ' ' empty, '.' up to a quarter, ':' up to half,
// '+' up to three quarters, '#' more. win, if not nil, maps only its
// timesteps.
func ASCII(w io.Writer, p *state.Problem, lay *state.Layout, width, rows int, win *Window) error {
	if width <= 0 {
		width = 100
	}
	if rows <= 0 {
		rows = 8
	}
	t0, t1, err := Options{Window: win}.window(p.Prog.Timesteps())
	if err != nil {
		return err
	}
	T := t1 - t0
	cols := min(width, T)
	ranges := rangesIn(p, t0, t1, []*state.Layout{lay})
	bw := bufio.NewWriter(w)
	per := float64(T) / float64(cols) // timesteps per column
	span := ""
	if T < p.Prog.Timesteps() {
		span = fmt.Sprintf(" [%d,%d] of %d", t0, t1-1, p.Prog.Timesteps())
	}
	fmt.Fprintf(bw, "%s on %s: %d timesteps%s, %.3g per column; cells ' ' empty . <25%% : <50%% + <75%% # full\n",
		p.Prog.Name, p.HW.Name, T, span, per)
	for l := range p.HW.Levels {
		r := ranges[l]
		nb := len(r.Bands)
		bandRows := asciiRows(r, max(rows, 2*nb-1)-(nb-1))
		fills := make([][][]float64, nb) // [band][row][col]
		for i := range fills {
			fills[i] = make([][]float64, bandRows[i])
			for k := range fills[i] {
				fills[i][k] = make([]float64, cols)
			}
		}
		for b, segs := range lay.Segs {
			blk := p.Block(b)
			for i, s := range segs {
				if int(s.Level) != l {
					continue
				}
				to := blk.Last
				if i+1 < len(segs) {
					to = int(segs[i+1].From) - 1
				}
				t0s, t1s := float64(int(s.From)-t0), float64(to+1-t0)
				a0, a1 := s.Offset, s.Offset+p.Foot(b, l)
				bi := 0
				for bi+1 < nb && a0 >= r.Bands[bi+1].Lo {
					bi++
				}
				band := r.Bands[bi]
				rowBytes := float64(band.Hi-band.Lo) / float64(bandRows[bi])
				fill := fills[bi]
				for c := max(int(t0s/per), 0); c < cols && float64(c)*per < t1s; c++ {
					ct := overlap(t0s, t1s, float64(c)*per, float64(c+1)*per) / per
					if ct <= 0 {
						continue
					}
					lo, hi := float64(a0-band.Lo), float64(a1-band.Lo)
					for k := int(lo / rowBytes); k < len(fill) && float64(k)*rowBytes < hi; k++ {
						ca := overlap(lo, hi, float64(k)*rowBytes, float64(k+1)*rowBytes) / rowBytes
						fill[k][c] += ct * ca
					}
				}
			}
		}
		lv := p.HW.Levels[l]
		above := ""
		if !r.CapacityShown {
			above = ", above the drawn range"
		}
		fmt.Fprintf(bw, "\n%s (capacity %s%s; drawn: %s)\n", lv.Name, bytesLabel(lv.Capacity), above, r.String())
		for bi := nb - 1; bi >= 0; bi-- {
			band := r.Bands[bi]
			for k := bandRows[bi] - 1; k >= 0; k-- {
				label := ""
				switch {
				case k == bandRows[bi]-1:
					label = addrLabel(band.Hi)
				case k == 0 && bi > 0:
					label = addrLabel(band.Lo)
				}
				fmt.Fprintf(bw, "%9s |", label)
				for c := 0; c < cols; c++ {
					bw.WriteByte(shade(fills[bi][k][c]))
				}
				bw.WriteString("|\n")
			}
			if bi > 0 {
				fmt.Fprintf(bw, "%9s ~%s~\n", "", strings.Repeat("~", cols))
			}
		}
		bottom := "0"
		if r.Bands[0].Lo > 0 {
			bottom = addrLabel(r.Bands[0].Lo)
		}
		fmt.Fprintf(bw, "%9s +%s+\n", bottom, strings.Repeat("-", cols))
		// Timestep labels under the first and last column and a middle one.
		axis := []byte(strings.Repeat(" ", cols+12))
		put := func(col int, text string) {
			for i := 0; i < len(text) && 11+col+i < len(axis); i++ {
				axis[11+col+i] = text[i]
			}
		}
		put(0, fmt.Sprint(t0))
		mid := fmt.Sprint(t0 + T/2)
		put(cols/2-len(mid)/2, mid)
		last := fmt.Sprint(t1 - 1)
		put(max(cols-len(last), 0), last)
		bw.WriteString(strings.TrimRight(string(axis), " "))
		bw.WriteString("\n")
	}
	return bw.Flush()
}

// asciiRows shares n rows among r's bands as the SVG shares its height,
// at least one each.
func asciiRows(r LevelRange, n int) []int {
	ax := newAddrAxis(r, float64(n), 0)
	out := make([]int, len(r.Bands))
	used := 0
	for i := range out {
		out[i] = max(1, int(math.Round(ax.y1[i]-ax.y0[i])))
		used += out[i]
	}
	// Give or take the rounding's difference from the tallest band.
	tall := 0
	for i := range out {
		if out[i] > out[tall] {
			tall = i
		}
	}
	out[tall] = max(1, out[tall]+n-used)
	return out
}

func overlap(a0, a1, b0, b1 float64) float64 {
	return max(0, min(a1, b1)-max(a0, b0))
}

func shade(f float64) byte {
	switch {
	case f <= 0.001:
		return ' '
	case f <= 0.25:
		return '.'
	case f <= 0.5:
		return ':'
	case f <= 0.75:
		return '+'
	}
	return '#'
}
