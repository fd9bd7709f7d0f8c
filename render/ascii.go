package render

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/hieropt/hieropt/state"
)

// ASCII draws a compact text map of each level over time, for terminals
// and CI logs: a row per slice of addresses (top = the top of the range,
// as in the SVG), a column per group of timesteps, and in each cell how
// full it is: ' ' empty, '.' up to a quarter, ':' up to half, '+' up to
// three quarters, '#' more.
func ASCII(w io.Writer, p *state.Problem, lay *state.Layout, width, rows int) error {
	if width <= 0 {
		width = 100
	}
	if rows <= 0 {
		rows = 8
	}
	T := p.Prog.Timesteps()
	cols := min(width, T)
	ymax := Scales(p, lay)
	bw := bufio.NewWriter(w)
	per := float64(T) / float64(cols) // timesteps per column
	fmt.Fprintf(bw, "%s on %s: %d timesteps, %.3g per column; cells ' ' empty . <25%% : <50%% + <75%% # full\n",
		p.Prog.Name, p.HW.Name, T, per)
	for l := range p.HW.Levels {
		fill := make([][]float64, rows)
		for r := range fill {
			fill[r] = make([]float64, cols)
		}
		rowBytes := ymax[l] / float64(rows)
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
				t0, t1 := float64(s.From), float64(to+1)
				a0, a1 := float64(s.Offset), float64(s.Offset+p.Foot(b, l))
				for c := int(t0 / per); c < cols && float64(c)*per < t1; c++ {
					ct := overlap(t0, t1, float64(c)*per, float64(c+1)*per) / per
					if ct <= 0 {
						continue
					}
					for r := int(a0 / rowBytes); r < rows && float64(r)*rowBytes < a1; r++ {
						ca := overlap(a0, a1, float64(r)*rowBytes, float64(r+1)*rowBytes) / rowBytes
						fill[r][c] += ct * ca
					}
				}
			}
		}
		lv := p.HW.Levels[l]
		fmt.Fprintf(bw, "\n%s (capacity %s, drawn to %s)\n", lv.Name, bytesLabel(lv.Capacity), bytesLabel(int64(ymax[l])))
		for r := rows - 1; r >= 0; r-- {
			label := ""
			if r == rows-1 {
				label = bytesLabel(int64(ymax[l]))
			}
			fmt.Fprintf(bw, "%9s |", label)
			for c := 0; c < cols; c++ {
				bw.WriteByte(shade(fill[r][c]))
			}
			bw.WriteString("|\n")
		}
		fmt.Fprintf(bw, "%9s +%s+\n", "0", strings.Repeat("-", cols))
		// Timestep labels under the first and last column and a middle one.
		axis := []byte(strings.Repeat(" ", cols+12))
		put := func(col int, text string) {
			for i := 0; i < len(text) && 11+col+i < len(axis); i++ {
				axis[11+col+i] = text[i]
			}
		}
		put(0, "0")
		mid := fmt.Sprint(T / 2)
		put(cols/2-len(mid)/2, mid)
		last := fmt.Sprint(T - 1)
		put(max(cols-len(last), 0), last)
		bw.WriteString(strings.TrimRight(string(axis), " "))
		bw.WriteString("\n")
	}
	return bw.Flush()
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
