package minimalloccli

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/hieropt/hieropt/inputerr"
)

// gap is a span [lower, upper) of a buffer's lifespan in which it is absent
// or, with a window, occupies only [window[0], window[1]) of its size.
type gap struct {
	lower, upper int64
	window       *[2]int64
}

// buffer is one row of a MiniMalloc CSV, as MiniMalloc's reader keeps it.
type buffer struct {
	id                 string
	lower, upper, size int64
	align              int64 // 1 when the file has no alignment column
	hint               int64 // -1: none
	gaps               []gap
	line               int
}

// readCSV reads a problem as MiniMalloc's FromCsv (src/converter.cc) does:
// a header naming the columns, in any order, then one buffer per line,
// split at every comma (no quoting). The columns: id (or buffer,
// buffer_id), lower (or start, begin), upper (or end: then every upper is
// inclusive and read as upper+1, gaps' too), size, and the optional
// alignment, hint and gaps (space-separated lower-upper, each with an
// optional @lower:upper window); other columns are ignored. Lines end at
// "\n" ("\r\n" is accepted too); MiniMalloc stops at the first empty line,
// and so does readCSV, but records after it are an error here, where
// MiniMalloc drops them silently.
//
// Where hieropt is stricter, it says so: an offset column (MiniMalloc's
// fixed offsets, which hieropt's packer cannot honour), lower >= upper, a
// negative size and an alignment below 1 are errors. Errors are
// *inputerr.Error values naming the file, the line and the rule.
func readCSV(name string, r io.Reader) ([]buffer, error) {
	doc := inputerr.Doc("CSV", name)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 64*1024*1024)
	var (
		col    map[string]int
		ncol   int
		addend int64
		bufs   []buffer
		endAt  int // the line of the empty line that ended the records
	)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSuffix(sc.Text(), "\r")
		if line == 1 {
			text = strings.TrimPrefix(text, "\ufeff")
		}
		item := fmt.Sprintf("line %d", line)
		if endAt > 0 {
			if text != "" {
				return nil, inputerr.New(doc, item, "a record after the empty line %d (MiniMalloc stops reading at an empty line and would drop it)", endAt)
			}
			continue
		}
		if text == "" {
			endAt = line
			continue
		}
		fields := strings.Split(text, ",")
		if col == nil {
			var err error
			if col, addend, err = readHeader(fields); err != nil {
				return nil, inputerr.New(doc, item, "%v", err)
			}
			ncol = len(fields)
			continue
		}
		if len(fields) != ncol {
			return nil, inputerr.New(doc, item, "has %d fields, the header %d", len(fields), ncol)
		}
		b, err := readRecord(fields, col, addend)
		if err != nil {
			return nil, inputerr.New(doc, item, "%v", err)
		}
		b.line = line
		bufs = append(bufs, b)
	}
	if err := sc.Err(); err != nil {
		e := inputerr.New(doc, "", "cannot read: %v", err)
		e.Err = err
		return nil, e
	}
	if col == nil {
		return nil, inputerr.New(doc, "", "empty: no header such as id,lower,upper,size")
	}
	return bufs, nil
}

// readHeader maps the column names, MiniMalloc's aliases resolved, to
// their indices; addend is 1 when the upper column is "end" (inclusive).
func readHeader(fields []string) (map[string]int, int64, error) {
	col := map[string]int{}
	var addend int64
	for i, f := range fields {
		name := strings.TrimSpace(f)
		switch name {
		case "begin", "start":
			name = "lower"
		case "buffer", "buffer_id":
			name = "id"
		case "end":
			name, addend = "upper", 1
		}
		if _, dup := col[name]; dup {
			return nil, 0, fmt.Errorf("column %q given twice (MiniMalloc: duplicate column names)", name)
		}
		col[name] = i
	}
	var missing []string
	for _, want := range []string{"id", "lower", "upper", "size"} {
		if _, ok := col[want]; !ok {
			missing = append(missing, want)
		}
	}
	if len(missing) > 0 {
		return nil, 0, fmt.Errorf("header lacks column %s (want id,lower,upper,size)", strings.Join(missing, ", "))
	}
	if _, ok := col["offset"]; ok {
		return nil, 0, fmt.Errorf("column offset (MiniMalloc's fixed offsets) is not supported: hieropt's packer places every buffer")
	}
	return col, addend, nil
}

// readRecord reads one buffer.
func readRecord(fields []string, col map[string]int, addend int64) (buffer, error) {
	b := buffer{id: fields[col["id"]], align: 1, hint: -1}
	for _, c := range []struct {
		name string
		dst  *int64
	}{{"lower", &b.lower}, {"upper", &b.upper}, {"size", &b.size}} {
		v, ok := atoi(fields[col[c.name]])
		if !ok {
			return b, fmt.Errorf("%s %q is not an integer", c.name, fields[col[c.name]])
		}
		*c.dst = v
	}
	if addend == 1 {
		if b.upper == 1<<63-1 {
			return b, fmt.Errorf("end %d is beyond int64 once made exclusive", b.upper)
		}
		b.upper++
	}
	if k, ok := col["alignment"]; ok {
		a, ok := atoi(fields[k])
		if !ok {
			return b, fmt.Errorf("alignment %q is not an integer", fields[k])
		}
		b.align = a
	}
	if k, ok := col["hint"]; ok {
		h, ok := atoi(fields[k])
		if !ok {
			return b, fmt.Errorf("hint %q is not an integer", fields[k])
		}
		if h >= 0 {
			b.hint = h
		}
	}
	if k, ok := col["gaps"]; ok {
		for _, g := range strings.Split(fields[k], " ") {
			if g == "" {
				continue
			}
			gp, err := readGap(g, addend)
			if err != nil {
				return b, err
			}
			b.gaps = append(b.gaps, gp)
		}
	}
	switch {
	case b.lower >= b.upper:
		return b, fmt.Errorf("lower %d >= upper %d: the buffer is never alive", b.lower, b.upper)
	case b.size < 0:
		return b, fmt.Errorf("size %d is negative", b.size)
	case b.align < 1:
		return b, fmt.Errorf("alignment %d is below 1", b.align)
	}
	return b, nil
}

// readGap reads lower-upper[@wlower:wupper].
func readGap(s string, addend int64) (gap, error) {
	bad := fmt.Errorf("gap %q is not lower-upper or lower-upper@lower:upper", s)
	span, win, hasWin := strings.Cut(s, "@")
	lo, hi, ok := strings.Cut(span, "-")
	if !ok || strings.Contains(hi, "-") {
		return gap{}, bad
	}
	var g gap
	var ok1, ok2 bool
	g.lower, ok1 = atoi(lo)
	g.upper, ok2 = atoi(hi)
	if !ok1 || !ok2 {
		return gap{}, bad
	}
	g.upper += addend
	if hasWin {
		wl, wu, ok := strings.Cut(win, ":")
		if !ok || strings.Contains(wu, ":") {
			return gap{}, bad
		}
		var w [2]int64
		w[0], ok1 = atoi(wl)
		w[1], ok2 = atoi(wu)
		if !ok1 || !ok2 {
			return gap{}, bad
		}
		g.window = &w
	}
	return g, nil
}

// atoi parses an int64 as Abseil's SimpleAtoi: optional sign, decimal
// digits, surrounded by any ASCII space.
func atoi(s string) (int64, bool) {
	v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	return v, err == nil
}

// writeCSV writes the solution as MiniMalloc's ToCsv (src/converter.cc)
// writes it, byte for byte: the header id,lower,upper,size, then
// alignment if a buffer's is not 1, hint if a buffer has one, gaps if a
// buffer has some, then offset; one line per buffer in input order, every
// line ended by "\n"; upper is exclusive (an input's inclusive end comes
// back as end+1 under the name upper), a buffer without a hint has -1, a
// gap is lower-upper[@lower:upper] and a buffer's gaps are joined by
// spaces.
func writeCSV(w io.Writer, bufs []buffer, offsets []int64) error {
	if len(offsets) != len(bufs) {
		return fmt.Errorf("minimalloc: %d offsets for %d buffers", len(offsets), len(bufs))
	}
	var withAlign, withHint, withGaps bool
	for _, b := range bufs {
		withAlign = withAlign || b.align != 1
		withHint = withHint || b.hint >= 0
		withGaps = withGaps || len(b.gaps) > 0
	}
	bw := bufio.NewWriter(w)
	bw.WriteString("id,lower,upper,size")
	if withAlign {
		bw.WriteString(",alignment")
	}
	if withHint {
		bw.WriteString(",hint")
	}
	if withGaps {
		bw.WriteString(",gaps")
	}
	bw.WriteString(",offset\n")
	for i, b := range bufs {
		fmt.Fprintf(bw, "%s,%d,%d,%d", b.id, b.lower, b.upper, b.size)
		if withAlign {
			fmt.Fprintf(bw, ",%d", b.align)
		}
		if withHint {
			fmt.Fprintf(bw, ",%d", b.hint)
		}
		if withGaps {
			bw.WriteByte(',')
			for k, g := range b.gaps {
				if k > 0 {
					bw.WriteByte(' ')
				}
				fmt.Fprintf(bw, "%d-%d", g.lower, g.upper)
				if g.window != nil {
					fmt.Fprintf(bw, "@%d:%d", g.window[0], g.window[1])
				}
			}
		}
		fmt.Fprintf(bw, ",%d\n", offsets[i])
	}
	return bw.Flush()
}
