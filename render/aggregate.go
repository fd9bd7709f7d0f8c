package render

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"strconv"

	"github.com/hieropt/hieropt/state"
	"github.com/hieropt/hieropt/workload"
)

// Aggregation. A diagram of a window with more timesteps than pixel
// columns and more than AggregateMinPlacements placements meeting it is
// not drawn a rectangle per placement, most of which would be narrower
// than a pixel: each panel is a picture of one pixel per column and
// address row, coloured by the kind of block that covers most of the
// pixel, as opaque as the pixel is covered (a copy in flight's reserved
// destination in grey), under a hover strip of aggColPx-pixel columns
// that name their timesteps, how many blocks they hold in the level, the
// most bytes busy there and the largest block. Transfers and reuse are
// not drawn; the report lists the transfers and 'hieropt export memmap'
// every placement.

// AggregateMinPlacements is the fewest placements meeting a window for its
// diagram to be aggregated (when the window also has more timesteps than
// the drawing has pixel columns).
const AggregateMinPlacements = 10000

// aggColPx is the width of a hover column of an aggregated panel.
const aggColPx = 4

// aggKinds orders the kinds' layers of the picture; the last is a copy in
// flight's reservation.
var aggKinds = []workload.Kind{workload.Input, workload.Activation, workload.Scratch, workload.Output, workload.Constant}

// segSpan returns the timesteps [from, to] segment i of block b is at its
// place (resident: the whole run).
func segSpan(p *state.Problem, b int, segs []state.Seg, i int) (int, int) {
	s := segs[i]
	if s.IsResident() {
		return 0, p.Prog.Timesteps() - 1
	}
	to := p.Block(b).Last
	if i+1 < len(segs) {
		to = int(segs[i+1].From) - 1
	}
	return int(s.From), to
}

// aggregated says whether d is drawn aggregated in g.
func aggregated(p *state.Problem, lay *state.Layout, g *geometry) bool {
	if g.t1-g.t0 <= int(g.width) {
		return false
	}
	n := 0
	for b, segs := range lay.Segs {
		for i := range segs {
			from, to := segSpan(p, b, segs, i)
			if _, _, ok := g.clip(from, to); ok {
				n++
			}
		}
	}
	return n > AggregateMinPlacements
}

// drawAggregated draws the placements of lay in g's panels as pictures.
func drawAggregated(bw *bufio.Writer, p *state.Problem, lay *state.Layout, g *geometry) error {
	W, H := int(g.width), int(math.Round(g.panelH))
	L := p.Levels()
	nk := len(aggKinds) + 1
	cover := make([][]float32, L) // [level][(k*H+row)*W+col]
	for l := range cover {
		cover[l] = make([]float32, nk*H*W)
	}
	kindIdx := map[workload.Kind]int{}
	for i, k := range aggKinds {
		kindIdx[k] = i
	}
	// The hover columns: blocks per level, the largest.
	cols := (W + aggColPx - 1) / aggColPx
	count := make([][]int, L)
	largest := make([][]int, L)
	for l := range count {
		count[l] = make([]int, cols)
		largest[l] = make([]int, cols)
		for c := range largest[l] {
			largest[l][c] = -1
		}
	}
	add := func(l, k int, x0, x1, y0, y1 float64) {
		// y: heights above the panel's bottom.
		buf := cover[l][k*H*W:]
		for c := max(int(x0), 0); c < W && float64(c) < x1; c++ {
			wx := overlap(x0, x1, float64(c), float64(c+1))
			if wx <= 0 {
				continue
			}
			for r := max(int(y0), 0); r < H && float64(r) < y1; r++ {
				wy := overlap(y0, y1, float64(r), float64(r+1))
				if wy > 0 {
					buf[r*W+c] += float32(wx * wy)
				}
			}
		}
	}
	for b, segs := range lay.Segs {
		blk := p.Block(b)
		for i, s := range segs {
			from, to := segSpan(p, b, segs, i)
			l := int(s.Level)
			ax := g.axes[l]
			h0, h1 := ax.height(s.Offset), ax.height(s.Offset+p.Foot(b, l))
			if h1-h0 < 0.3 {
				h1 = h0 + 0.3 // a sliver still shows
			}
			if a, z, ok := g.clip(from, to); ok {
				x0, x1 := g.x(a)-g.x0, g.x(z+1)-g.x0
				add(l, kindIdx[blk.Kind], x0, x1, h0, h1)
				for c := max(int(x0)/aggColPx, 0); c < cols && float64(c*aggColPx) < x1; c++ {
					count[l][c]++
					if j := largest[l][c]; j < 0 || blk.Size > p.Block(j).Size {
						largest[l][c] = b
					}
				}
			}
			if s.Lead > 0 {
				if a, z, ok := g.clip(int(s.Start()), int(s.From)-1); ok {
					add(l, nk-1, g.x(a)-g.x0, g.x(z+1)-g.x0, h0, h1)
				}
			}
		}
	}
	busy := BusyBytes(p, lay)
	colors := make([]color.NRGBA, nk)
	for i, k := range aggKinds {
		colors[i] = hexColor(kindColor[k])
	}
	colors[nk-1] = color.NRGBA{0x55, 0x55, 0x55, 0xff}
	img := image.NewNRGBA(image.Rect(0, 0, W, H))
	for l := range L {
		buf := cover[l]
		for r := range H {
			for c := range W {
				best, total := -1, float32(0)
				for k := range nk {
					v := buf[(k*H+r)*W+c]
					total += v
					if v > 0 && (best < 0 || v > buf[(best*H+r)*W+c]) {
						best = k
					}
				}
				px := color.NRGBA{}
				if best >= 0 {
					px = colors[best]
					px.A = uint8(math.Round(255 * math.Min(1, 0.25+0.75*float64(total))))
				}
				img.SetNRGBA(c, H-1-r, px) // row 0 of the picture is the top
			}
		}
		var pngBuf bytes.Buffer
		if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&pngBuf, img); err != nil {
			return err
		}
		top := g.panelY0[l]
		fmt.Fprintf(bw, `<image class="agg" x="%s" y="%s" width="%d" height="%d" preserveAspectRatio="none" style="image-rendering:pixelated" href="data:image/png;base64,%s"/>`+"\n",
			num(g.x0), num(top), W, H, base64.StdEncoding.EncodeToString(pngBuf.Bytes()))
		// The hover columns.
		bw.WriteString(`<g class="aggcols" fill="#000" fill-opacity="0">`)
		lv := p.HW.Levels[l].Name
		for c := range cols {
			a := g.t0 + int(float64(c*aggColPx)/g.dx)
			z := min(g.t0+int(math.Ceil(float64((c+1)*aggColPx)/g.dx))-1, g.t1-1)
			if a > z {
				continue
			}
			peak, at := int64(0), a
			for t := a; t <= z; t++ {
				if busy[l][t] > peak {
					peak, at = busy[l][t], t
				}
			}
			s := fmt.Sprintf("timesteps %d–%d (%s … %s) · %s: %d blocks, at most %s busy (timestep %d)", a, z, p.Prog.Ops[a].Name, p.Prog.Ops[z].Name,
				lv, count[l][c], Bytes(peak), at)
			if j := largest[l][c]; j >= 0 {
				s += fmt.Sprintf(" · largest %s (%s)", p.Block(j).Name, Bytes(p.Block(j).Size))
			}
			fmt.Fprintf(bw, `<rect x="%s" y="%s" width="%d" height="%s"><title>%s</title></rect>`,
				num(g.x0+float64(c*aggColPx)), num(top), aggColPx, num(g.panelH), esc(s))
		}
		bw.WriteString("</g>\n")
	}
	return nil
}

// hexColor reads "#RRGGBB".
func hexColor(s string) color.NRGBA {
	v, _ := strconv.ParseUint(s[1:], 16, 32)
	return color.NRGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 0xff}
}
