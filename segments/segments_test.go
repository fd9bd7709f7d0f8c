package segments_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hieropt/hieropt/internal/testprog"
	"github.com/hieropt/hieropt/segments"
	"github.com/hieropt/hieropt/workload"
)

// steps returns a program of n timesteps with one block alive throughout.
func steps(n int) *workload.Program {
	return testprog.New("p", n).Block("a", 8, "activation", 0, n-1).Program()
}

// endsAt lists the timesteps where ends is true.
func endsAt(ends []bool) []int {
	var out []int
	for t, e := range ends {
		if e {
			out = append(out, t)
		}
	}
	return out
}

// lengths returns the lengths of the segments that ends describes.
func lengths(ends []bool) []int {
	var out []int
	start := 0
	for t, e := range ends {
		if e {
			out = append(out, t-start+1)
			start = t + 1
		}
	}
	return out
}

func TestParse(t *testing.T) {
	cases := []struct {
		spec string
		want segments.Strategy
		name string
	}{
		{"every", segments.Fixed(1), "every"},
		{"fixed:1", segments.Fixed(1), "every"},
		{"fixed:4", segments.Fixed(4), "fixed:4"},
		{" fixed:4 ", segments.Fixed(4), "fixed:4"},
		{"at:7", segments.At{7}, "at:7"},
		{"at:1,3,7", segments.At{1, 3, 7}, "at:1,3,7"},
		{"at:2, 5", segments.At{2, 5}, "at:2,5"},
		{"at:0", segments.At{0}, "at:0"},
		{"auto", segments.Auto{}, "auto"},
	}
	for _, c := range cases {
		t.Run(c.spec, func(t *testing.T) {
			s, err := segments.Parse(c.spec)
			require.NoError(t, err)
			assert.Equal(t, c.want, s)
			assert.Equal(t, c.name, s.Name())
			// Parse(Name()) gives the strategy back.
			again, err := segments.Parse(s.Name())
			require.NoError(t, err)
			assert.Equal(t, s, again)
			assert.Equal(t, s.Name(), again.Name())
		})
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct{ spec, want string }{
		{"every:2", `segments "every:2": every takes no argument`},
		{"every:", `segments "every:": every takes no argument`},
		{"fixed", `segments "fixed": want fixed:N with N >= 1`},
		{"fixed:", `segments "fixed:": want fixed:N with N >= 1`},
		{"fixed:0", `segments "fixed:0": want fixed:N with N >= 1`},
		{"fixed:-3", `segments "fixed:-3": want fixed:N with N >= 1`},
		{"fixed:x", `segments "fixed:x": want fixed:N with N >= 1`},
		{"fixed:2.5", `segments "fixed:2.5": want fixed:N with N >= 1`},
		{"at", `segments "at": want at:t1,t2,... (timesteps that end segments)`},
		{"at:", `segments "at:": want at:t1,t2,... (timesteps that end segments)`},
		{"at:1,x", `segments "at:1,x": "x" is not a timestep`},
		{"at:1,,2", `segments "at:1,,2": "" is not a timestep`},
		{"at:-1", `segments "at:-1": "-1" is not a timestep`},
		{"at:-4", `segments "at:-4": "-4" is not a timestep`},
		// Issue 30 item 8: out of order and repeated timesteps were sorted
		// and kept silently; they are refused as a negative one is.
		{"at:5,3", `segments "at:5,3": timestep 3 comes after 5 (want increasing order)`},
		{"at:7,1,3", `segments "at:7,1,3": timestep 1 comes after 7 (want increasing order)`},
		{"at:0,0", `segments "at:0,0": timestep 0 is given twice (want each once, in increasing order)`},
		{"at:2,5,5", `segments "at:2,5,5": timestep 5 is given twice (want each once, in increasing order)`},
		{"auto:3", `segments "auto:3": auto takes no argument`},
		{"auto:", `segments "auto:": auto takes no argument`},
		{"", `segments "": unknown strategy (want every, fixed:N, at:t1,t2,... or auto)`},
		{"greedy", `segments "greedy": unknown strategy (want every, fixed:N, at:t1,t2,... or auto)`},
		{"Every", `segments "Every": unknown strategy (want every, fixed:N, at:t1,t2,... or auto)`},
	}
	for _, c := range cases {
		t.Run(c.spec, func(t *testing.T) {
			s, err := segments.Parse(c.spec)
			assert.Nil(t, s)
			assert.EqualError(t, err, c.want)
		})
	}
}

// TestAtValidate: the timesteps of an At against a program of T ops: each
// in [0, T-1], strictly increasing (issue 30 item 8: at:999 on a 64-op
// program was accepted and ignored).
func TestAtValidate(t *testing.T) {
	cases := []struct {
		at   segments.At
		T    int
		want string
	}{
		{segments.At{0, 5, 63}, 64, ""},
		{segments.At{}, 64, ""},
		{segments.At{999}, 0, ""}, // T unknown: only the order is checked
		{segments.At{999}, 64, "timestep 999 is past the program's last timestep, 63 (it has 64 ops)"},
		{segments.At{3, 64}, 64, "timestep 64 is past the program's last timestep, 63 (it has 64 ops)"},
		{segments.At{5, 3}, 64, "timestep 3 comes after 5 (want increasing order)"},
		{segments.At{4, 4}, 64, "timestep 4 is given twice (want each once, in increasing order)"},
		{segments.At{-4}, 64, "timestep -4 is negative"},
	}
	for _, c := range cases {
		err := c.at.Validate(c.T)
		if c.want == "" {
			assert.NoError(t, err, "%v", c.at)
		} else {
			assert.EqualError(t, err, c.want, "%v", c.at)
		}
	}
}

func TestKinds(t *testing.T) {
	// Every kind's spec parses once its argument is filled in, and the
	// docs are there for listings.
	fill := map[string]string{"every": "every", "fixed:N": "fixed:3", "at:t1,t2,...": "at:1,2", "auto": "auto"}
	kinds := segments.Kinds()
	require.Len(t, kinds, len(fill))
	for _, k := range kinds {
		spec, ok := fill[k.Spec]
		require.True(t, ok, k.Spec)
		assert.NotEmpty(t, k.Doc(), k.Spec)
		assert.Equal(t, strings.Split(k.Spec, ":")[0], k.Name())
		_, err := segments.Parse(spec)
		assert.NoError(t, err, spec)
	}
}

func TestFixedEnds(t *testing.T) {
	cases := []struct {
		n, T int
		want []int
	}{
		{1, 4, []int{0, 1, 2, 3}}, // every timestep
		{3, 8, []int{2, 5, 7}},    // every 3rd (2, 5), and the last
		{3, 9, []int{2, 5, 8}},    // 8 is both
		{4, 3, []int{2}},          // longer than the program: the last only
		{2, 1, []int{0}},          // one timestep
		{5, 12, []int{4, 9, 11}},  // 4, 9, then the last
		{1, 1, []int{0}},          // a single timestep, a single segment
		{100, 7, []int{6}},        // one segment
		{6, 12, []int{5, 11}},     // exact multiple
		{7, 13, []int{6, 12}},     // 6 and 13-1 = 12
		{2, 5, []int{1, 3, 4}},    // the last segment is shorter
		{10, 10, []int{9}},        // exactly the program
		{11, 10, []int{9}},        // one more than the program
		{4, 16, []int{3, 7, 11, 15}},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("fixed:%d/T=%d", c.n, c.T), func(t *testing.T) {
			ends := segments.Fixed(c.n).Ends(steps(c.T))
			require.Len(t, ends, c.T)
			assert.Equal(t, c.want, endsAt(ends))
			// Every segment is n long except maybe the last, shorter.
			ls := lengths(ends)
			for i, l := range ls {
				if i < len(ls)-1 {
					assert.Equal(t, c.n, l)
				} else {
					assert.LessOrEqual(t, l, c.n)
				}
			}
		})
	}
}

func TestAtEnds(t *testing.T) {
	prog := steps(6)
	cases := []struct {
		at   segments.At
		want []int
	}{
		{segments.At{1, 4}, []int{1, 4, 5}},     // and the last
		{segments.At{1, 4, 20}, []int{1, 4, 5}}, // 20 is past the end: ignored
		{segments.At{6, 7}, []int{5}},           // 6 = T is already out of range
		{segments.At{5}, []int{5}},              // the last, once
		{segments.At{0, 0, 3}, []int{0, 3, 5}},  // duplicates are harmless
		{segments.At{}, []int{5}},               // nothing given: one segment
		{nil, []int{5}},
	}
	for _, c := range cases {
		t.Run(c.at.Name(), func(t *testing.T) {
			ends := c.at.Ends(prog)
			require.Len(t, ends, 6)
			assert.Equal(t, c.want, endsAt(ends))
		})
	}
}

func TestLastTimestepAlwaysEnds(t *testing.T) {
	for T := 1; T <= 40; T++ {
		prog := steps(T)
		for _, s := range []segments.Strategy{segments.Fixed(1), segments.Fixed(3), segments.Fixed(50), segments.At{0}, segments.At{}, segments.Auto{}} {
			ends := s.Ends(prog)
			require.Len(t, ends, T, "%s T=%d", s.Name(), T)
			assert.True(t, ends[T-1], "%s T=%d", s.Name(), T)
		}
	}
}

// oneStepProgram has, at each timestep t, one activation of ws[t] bytes
// alive only there, so the working set is ws; and a large constant alive
// throughout, which the working set leaves out.
func oneStepProgram(ws []int64) *workload.Program {
	b := testprog.New("ws", len(ws))
	for t, w := range ws {
		b.Block(fmt.Sprintf("a%d", t), w, "activation", t, t)
	}
	b.Block("w", 1<<20, "constant", 0, len(ws)-1, testprog.Reads(len(ws)-1))
	return b.Program()
}

func TestWorkingSet(t *testing.T) {
	// Lifetimes over 5 timesteps:
	//   in   100 input       [0,1]
	//   x    40  activation  [0,3]
	//   s    7   scratch     [2,2]
	//   out  3   output      [3,4]
	//   w    1000 constant   [0,4]  left out
	//   b    5   constant    [2,3]  left out
	// t0: in + x = 140; t1: 140; t2: x + s = 47; t3: x + out = 43; t4: out = 3.
	prog := testprog.New("p", 5).
		Block("in", 100, "input", 0, 1).
		Block("x", 40, "activation", 0, 3).
		Block("s", 7, "scratch", 2, 2).
		Block("out", 3, "output", 3, 4).
		Block("w", 1000, "constant", 0, 4, testprog.Reads(4)).
		Block("b", 5, "constant", 2, 3, testprog.Reads(3)).
		Program()
	assert.Equal(t, []int64{140, 140, 47, 43, 3}, segments.WorkingSet(prog))

	// Constants only: zero everywhere.
	prog = testprog.New("p", 3).Block("w", 10, "constant", 0, 2, testprog.Reads(2)).Program()
	assert.Equal(t, []int64{0, 0, 0}, segments.WorkingSet(prog))

	assert.Equal(t, []int64{50, 30, 60}, segments.WorkingSet(oneStepProgram([]int64{50, 30, 60})))
}

func TestAutoEndsAtMinima(t *testing.T) {
	// ws:  t  0   1   2   3   4   5   6   7   8   9
	//         10  30  20  40  15  12  50  50  50  60
	// A minimum is no higher than the timestep before and lower than the
	// one after (t = 0 has no before, the last no after).
	//   t0: 10 < 30: a minimum, but the segment would be 0-(-1) = 1 long,
	//       under AutoMinLen = 2: no end.
	//   t2: 20 <= 30, 20 < 40: end (length 3). t4: 15 < 12? no.
	//   t5: 12 <= 15, 12 < 50: end (length 3).
	//   t6, t7: 50 < 50? no (a plateau). t8: 50 <= 50, 50 < 60: the
	//       plateau's last timestep: end (length 3).
	//   t9: the last timestep: always an end (length 1).
	ws := []int64{10, 30, 20, 40, 15, 12, 50, 50, 50, 60}
	prog := oneStepProgram(ws)
	require.Equal(t, ws, segments.WorkingSet(prog), "the constant is left out")
	ends := segments.Auto{}.Ends(prog)
	assert.Equal(t, []int{2, 5, 8, 9}, endsAt(ends))

	// A mirror: the working set falls, then rises.
	//   t  0   1   2   3   4   5
	//      60  50  40  30  40  50
	// t3 is the only minimum (30 <= 40, 30 < 40): end, length 4; then the
	// last (length 2).
	assert.Equal(t, []int{3, 5}, endsAt(segments.Auto{}.Ends(oneStepProgram([]int64{60, 50, 40, 30, 40, 50}))))

	// A flat working set: every timestep is a plateau; only the last one
	// of it (t == T-1) counts, and long stretches are cut at AutoMaxLen.
	flat := make([]int64, 20)
	for i := range flat {
		flat[i] = 7
	}
	// 15-(-1) = 16 = AutoMaxLen: end at 15; then 19, the last.
	assert.Equal(t, []int{15, 19}, endsAt(segments.Auto{}.Ends(oneStepProgram(flat))))
}

func TestAutoMaxLen(t *testing.T) {
	// A working set that only grows has no minimum after t0 (too short):
	// segments are cut every AutoMaxLen = 16 timesteps: ends at 15, 31,
	// and 39, the last.
	ws := make([]int64, 40)
	for i := range ws {
		ws[i] = int64(10 + i)
	}
	ends := segments.Auto{}.Ends(oneStepProgram(ws))
	assert.Equal(t, []int{15, 31, 39}, endsAt(ends))
	assert.Equal(t, []int{16, 16, 8}, lengths(ends))
	require.Equal(t, 16, segments.AutoMaxLen)
	require.Equal(t, 2, segments.AutoMinLen)
}

func TestAutoShortPrograms(t *testing.T) {
	// One timestep: one segment. Two: t0 is a minimum when lower than t1
	// but only 1 long: the last ends the single segment.
	assert.Equal(t, []int{0}, endsAt(segments.Auto{}.Ends(oneStepProgram([]int64{5}))))
	assert.Equal(t, []int{1}, endsAt(segments.Auto{}.Ends(oneStepProgram([]int64{5, 9}))))
	assert.Equal(t, []int{1}, endsAt(segments.Auto{}.Ends(oneStepProgram([]int64{9, 5}))))
	// 9 5 9: t1 is a minimum, 2 long: end; t2 the last.
	assert.Equal(t, []int{1, 2}, endsAt(segments.Auto{}.Ends(oneStepProgram([]int64{9, 5, 9}))))
}

// TestAutoOnShippedWorkloads: on every shipped workload, auto's segments
// are AutoMinLen to AutoMaxLen timesteps long, except that the last may be
// shorter (the final timestep always ends a segment), and each cut that is
// not forced by AutoMaxLen falls on a local minimum of the working set.
func TestAutoOnShippedWorkloads(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "workloads", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		prog, err := workload.ReadFile(f)
		require.NoError(t, err)
		t.Run(prog.Name, func(t *testing.T) {
			ends := segments.Auto{}.Ends(prog)
			T := prog.Timesteps()
			require.Len(t, ends, T)
			require.True(t, ends[T-1])
			ls := lengths(ends)
			sum := 0
			for i, l := range ls {
				sum += l
				assert.LessOrEqual(t, l, segments.AutoMaxLen, "segment %d", i)
				if i < len(ls)-1 {
					assert.GreaterOrEqual(t, l, segments.AutoMinLen, "segment %d", i)
				} else {
					assert.GreaterOrEqual(t, l, 1)
				}
			}
			assert.Equal(t, T, sum)
			ws := segments.WorkingSet(prog)
			last := -1
			for _, e := range endsAt(ends) {
				if e < T-1 && e-last < segments.AutoMaxLen {
					isMin := (e == 0 || ws[e] <= ws[e-1]) && ws[e] < ws[e+1]
					assert.True(t, isMin, "end %d is not a local minimum", e)
				}
				last = e
			}
			t.Logf("%d timesteps, %d segments, last %d", T, len(ls), ls[len(ls)-1])
		})
	}
}
