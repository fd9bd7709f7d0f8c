package pack

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/hieropt/hieropt/inputerr"
)

// ReadCSV reads a problem in MiniMalloc's CSV format: a header naming at
// least the columns id, lower, upper and size (in any order; an optional
// align or alignment column sets Buffer.Align; other columns, such as offset,
// are ignored), then one buffer per line with the lifetime [lower, upper)
// half-open. The capacity is left zero: MiniMalloc keeps it in
// the file name (<name>.<capacity>.csv) or on the command line.
//
// Errors are *inputerr.Error values that name the file, the line and the
// rule, e.g. `CSV "a.csv": line 3: lower 5 >= upper 5`.
func ReadCSV(name string, r io.Reader) (*Problem, error) {
	doc := inputerr.Doc("CSV", name)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	line := 0
	col := map[string]int{}
	var ncol int
	p := &Problem{}
	seen := map[string]int{}
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if line == 1 {
			text = strings.TrimPrefix(text, "\ufeff")
		}
		if text == "" {
			continue
		}
		fields := strings.Split(text, ",")
		for i := range fields {
			fields[i] = strings.TrimSpace(fields[i])
		}
		if ncol == 0 {
			for i, f := range fields {
				col[strings.ToLower(f)] = i
			}
			var missing []string
			for _, want := range []string{"id", "lower", "upper", "size"} {
				if _, ok := col[want]; !ok {
					missing = append(missing, want)
				}
			}
			switch {
			case len(missing) == 4:
				return nil, inputerr.New(doc, fmt.Sprintf("line %d", line),
					"missing header: want id,lower,upper,size, got %s", quoteShort(text))
			case len(missing) > 0:
				return nil, inputerr.New(doc, fmt.Sprintf("line %d", line),
					"header lacks column %s (want id,lower,upper,size)", strings.Join(missing, ", "))
			}
			ncol = len(fields)
			continue
		}
		item := fmt.Sprintf("line %d", line)
		if len(fields) != ncol {
			return nil, inputerr.New(doc, item, "has %d fields, header has %d", len(fields), ncol)
		}
		var v [3]int64
		for k, c := range []string{"lower", "upper", "size"} {
			f := fields[col[c]]
			x, err := strconv.ParseInt(f, 10, 64)
			if err != nil {
				if errors.Is(err, strconv.ErrRange) {
					return nil, inputerr.New(doc, item, "%s %s is beyond int64 (at most %d)", c, quoteShort(f), int64(math.MaxInt64))
				}
				return nil, inputerr.New(doc, item, "%s %s is not an integer", c, quoteShort(f))
			}
			v[k] = x
		}
		id := fields[col["id"]]
		switch {
		case id == "":
			return nil, inputerr.New(doc, item, "id is empty")
		case v[0] < 0:
			return nil, inputerr.New(doc, item, "lower %d is negative", v[0])
		case v[0] >= v[1]:
			return nil, inputerr.New(doc, item, "lower %d >= upper %d", v[0], v[1])
		case v[2] <= 0:
			return nil, inputerr.New(doc, item, "size %d is not positive", v[2])
		}
		if prev, ok := seen[id]; ok {
			return nil, inputerr.New(doc, item, "id %q already used on line %d", id, prev)
		}
		seen[id] = line
		b := Buffer{ID: id, Lower: v[0], Upper: v[1], Size: v[2]}
		if k, ok := alignCol(col); ok && fields[k] != "" {
			a, err := strconv.ParseInt(fields[k], 10, 64)
			if err != nil || a < 0 {
				return nil, inputerr.New(doc, item, "alignment %q is not a non-negative integer", fields[k])
			}
			b.Align = a
		}
		p.Buffers = append(p.Buffers, b)
	}
	if err := sc.Err(); err != nil {
		e := inputerr.New(doc, fmt.Sprintf("line %d", line+1), "cannot read: %v", err)
		e.Err = err
		return nil, e
	}
	if ncol == 0 {
		return nil, inputerr.New(doc, "", "empty: no header id,lower,upper,size")
	}
	return p, nil
}

// quoteShort quotes s for an error message, cut to its first 40 bytes.
func quoteShort(s string) string {
	const most = 40
	if len(s) <= most {
		return strconv.Quote(s)
	}
	return strconv.Quote(s[:most]) + fmt.Sprintf(" (and %d more bytes)", len(s)-most)
}

// alignCol finds the optional alignment column, named align or alignment.
func alignCol(col map[string]int) (int, bool) {
	if k, ok := col["align"]; ok {
		return k, true
	}
	k, ok := col["alignment"]
	return k, ok
}

// WriteCSV writes the problem with its solution's offsets as
// id,lower,upper,size,offset. A nil solution writes the problem alone
// (id,lower,upper,size).
func WriteCSV(w io.Writer, p *Problem, s *Solution) error {
	if s != nil && len(s.Offsets) != len(p.Buffers) {
		return fmt.Errorf("pack: %d offsets for %d buffers", len(s.Offsets), len(p.Buffers))
	}
	bw := bufio.NewWriter(w)
	if s != nil {
		bw.WriteString("id,lower,upper,size,offset\n")
	} else {
		bw.WriteString("id,lower,upper,size\n")
	}
	for i, b := range p.Buffers {
		if s != nil {
			fmt.Fprintf(bw, "%s,%d,%d,%d,%d\n", b.ID, b.Lower, b.Upper, b.Size, s.Offsets[i])
		} else {
			fmt.Fprintf(bw, "%s,%d,%d,%d\n", b.ID, b.Lower, b.Upper, b.Size)
		}
	}
	return bw.Flush()
}
