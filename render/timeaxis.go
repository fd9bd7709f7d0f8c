package render

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hieropt/hieropt/workload"
)

// The time axis names what runs when. A short window (at most
// width/OpLabelMinPx timesteps) has its ops' names; a longer one its
// groups: runs of consecutive ops whose names share a prefix that ends at
// a separator ("h.12.", "layer3.", "s4.b2."). Names are split at '.' and
// '/'; when no op name of the window has either, as in torch.fx's names
// (h_12_attn_c_attn), at '_'. At depth d an op's key is its name's first
// d parts, when the name has more than d parts; consecutive ops with one
// key form a run, ops without a key (matmul, add_3) and runs of one op
// do not break a run around them. The depth is the coarsest one with at
// least timeGroupsMin groups in the window; a group spans from its first
// op to the next group's. Labels are placed left to right and one that
// would overlap the one before is left out (its group keeps its tick and
// its tooltip).

// OpLabelMinPx is the least width per timestep at which a drawing names
// every op rather than groups of ops.
const OpLabelMinPx = 40

const (
	// timeGroupsMin is the fewest groups that make a depth worth using.
	timeGroupsMin = 4
	// timeLabelChars is the most characters of a label; a longer one
	// keeps its end ("…layer_0_").
	timeLabelChars = 16
	// timeLabelCharW is the width of a label's character (font-size 10):
	// each label is drawn with textLength = its characters times this,
	// so that its box is known.
	timeLabelCharW = 5.6
	// timeLabelGap is the least space between two labels.
	timeLabelGap = 6.0
	// timeLabelMaxDepth bounds the depths tried.
	timeLabelMaxDepth = 8
)

// timeSpan is a label's span of timesteps [T0, T1) and its text.
type timeSpan struct {
	T0, T1 int
	Text   string
	Title  string
}

// timeSpans returns the spans the axis of window [t0, t1) names: its ops
// when there is room (or no groups), else its groups; group says which.
func timeSpans(prog *workload.Program, t0, t1 int, width float64) (spans []timeSpan, group bool) {
	if float64(t1-t0)*OpLabelMinPx > width {
		if gs := opGroups(prog, t0, t1); len(gs) > 0 {
			return gs, true
		}
	}
	for t := t0; t < t1; t++ {
		name := prog.Ops[t].Name
		spans = append(spans, timeSpan{T0: t, T1: t + 1, Text: name, Title: name})
	}
	return spans, false
}

// nameSeps returns the separators op names of the window are split at.
func nameSeps(prog *workload.Program, t0, t1 int) string {
	for t := t0; t < t1; t++ {
		if strings.ContainsAny(prog.Ops[t].Name, "./") {
			return "./"
		}
	}
	return "_"
}

// nameKey returns the first d parts of name (with the separator after
// them) when name has more than d parts, else "".
func nameKey(name, seps string, d int) string {
	n := 0
	for i := 0; i < len(name); i++ {
		if strings.IndexByte(seps, name[i]) >= 0 && i+1 < len(name) {
			n++
			if n == d {
				return name[:i+1]
			}
		}
	}
	return ""
}

// opGroups returns the groups of the window at the coarsest depth with at
// least timeGroupsMin of them, or nil.
func opGroups(prog *workload.Program, t0, t1 int) []timeSpan {
	seps := nameSeps(prog, t0, t1)
	for d := 1; d <= timeLabelMaxDepth; d++ {
		type run struct {
			key    string
			t0, tn int // first op, last op with the key
			n      int
		}
		var runs []run
		found := false
		for t := t0; t < t1; t++ {
			k := nameKey(prog.Ops[t].Name, seps, d)
			if k == "" {
				continue
			}
			found = true
			if len(runs) > 0 && runs[len(runs)-1].key == k {
				runs[len(runs)-1].tn, runs[len(runs)-1].n = t, runs[len(runs)-1].n+1
				continue
			}
			runs = append(runs, run{k, t, t, 1})
		}
		if !found {
			break
		}
		// Runs of one op do not break the runs around them.
		var kept []run
		for _, r := range runs {
			if r.n < 2 {
				continue
			}
			if len(kept) > 0 && kept[len(kept)-1].key == r.key {
				kept[len(kept)-1].tn, kept[len(kept)-1].n = r.tn, kept[len(kept)-1].n+r.n
				continue
			}
			kept = append(kept, r)
		}
		if len(kept) < timeGroupsMin {
			continue
		}
		spans := make([]timeSpan, len(kept))
		for i, r := range kept {
			end := t1
			if i+1 < len(kept) {
				end = kept[i+1].t0
			}
			spans[i] = timeSpan{T0: r.t0, T1: end, Text: shortLabel(r.key, seps), Title: groupTitle(prog, r.key, r.t0, end)}
		}
		return spans
	}
	return nil
}

// shortLabel cuts a label longer than timeLabelChars to its last parts.
func shortLabel(s, seps string) string {
	if utf8.RuneCountInString(s) <= timeLabelChars {
		return s
	}
	r := []rune(s)
	cut := r[len(r)-timeLabelChars+1:]
	// Start after a separator when one is in the first half.
	for i := 0; i < len(cut)/2; i++ {
		if strings.ContainsRune(seps, cut[i]) {
			cut = cut[i+1:]
			break
		}
	}
	return "…" + string(cut)
}

func groupTitle(prog *workload.Program, key string, t0, t1 int) string {
	if t1-t0 == 1 {
		return key + ": timestep " + strconv.Itoa(t0) + " (" + prog.Ops[t0].Name + ")"
	}
	return key + ": timesteps " + strconv.Itoa(t0) + "–" + strconv.Itoa(t1-1) + " (" + prog.Ops[t0].Name + " … " + prog.Ops[t1-1].Name + ")"
}

// placedLabel is a label placed on the axis: its box is [X-W/2, X+W/2].
type placedLabel struct {
	X, W float64
	Text string
}

// placeLabels places the spans' labels centred on their spans (x maps a
// timestep to a pixel column), left to right, leaving out one that would
// overlap the one before or stick out of [left, right]; a label too long
// for the widest gap is cut to fit.
func placeLabels(spans []timeSpan, x func(int) float64, left, right float64) []placedLabel {
	var out []placedLabel
	prevEnd := left - timeLabelGap
	for _, s := range spans {
		text := s.Text
		if utf8.RuneCountInString(text) > timeLabelChars {
			text = string([]rune(text)[:timeLabelChars-1]) + "…"
		}
		w := float64(utf8.RuneCountInString(text)) * timeLabelCharW
		c := (x(s.T0) + x(s.T1)) / 2
		// Near the ends a label slides inward rather than go out.
		c = min(max(c, left+w/2), right-w/2)
		if c-w/2 < prevEnd+timeLabelGap || c+w/2 > right+0.01 {
			continue
		}
		out = append(out, placedLabel{X: c, W: w, Text: text})
		prevEnd = c + w/2
	}
	return out
}
