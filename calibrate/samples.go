package calibrate

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/hieropt/hieropt/inputerr"
)

// Directions of a sample, as in the profile's links.
const (
	In  = "in"  // writing bytes into the level
	Out = "out" // reading bytes out of the level
)

// Header is the first line of a samples file.
const Header = "level,direction,bytes,ns"

// Sample is one measurement: moving Bytes bytes into (In) or out of (Out)
// the memory level Level took NS nanoseconds.
type Sample struct {
	Level     string
	Direction string
	Bytes     int64
	NS        float64
}

// DocName returns how errors name a samples file.
func DocName(file string) string { return inputerr.Doc("samples", file) }

// WriteSamples writes samples as CSV: the Header, then one row per sample.
func WriteSamples(w io.Writer, samples []Sample) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(Header + "\n")
	cw := csv.NewWriter(bw)
	for _, s := range samples {
		if err := cw.Write([]string{s.Level, s.Direction, strconv.FormatInt(s.Bytes, 10), strconv.FormatFloat(s.NS, 'f', 3, 64)}); err != nil {
			return err
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return bw.Flush()
}

// ReadSamples reads a samples file written by WriteSamples (or by hand):
// the Header, then rows of level, direction (in or out), bytes (a whole
// number >= 0) and ns (a number >= 0). name names the file in errors, which
// are *inputerr.Error values naming the line and the rule broken.
func ReadSamples(name string, r io.Reader) ([]Sample, error) {
	doc := DocName(name)
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	lineErr := func(line int, rule string, args ...any) error {
		return inputerr.New(doc, fmt.Sprintf("line %d", line), rule, args...)
	}
	var out []Sample
	header := true
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, &inputerr.Error{Doc: doc, Item: fmt.Sprintf("line %d", pe.StartLine), Rule: "invalid CSV: " + pe.Err.Error(), Err: err}
			}
			return nil, &inputerr.Error{Doc: doc, Rule: "cannot read: " + err.Error(), Err: err}
		}
		line, _ := cr.FieldPos(0)
		for i := range rec {
			rec[i] = strings.TrimSpace(rec[i])
		}
		if header {
			header = false
			got := strings.Join(rec, ",")
			if line == 1 {
				got = strings.TrimPrefix(got, "\uFEFF")
			}
			if got != Header {
				return nil, lineErr(line, "missing header %q (got %q)", Header, got)
			}
			continue
		}
		if len(rec) != 4 {
			return nil, lineErr(line, "%d columns, want 4 (%s)", len(rec), Header)
		}
		s := Sample{Level: rec[0], Direction: rec[1]}
		if s.Level == "" {
			return nil, lineErr(line, "empty level name")
		}
		if s.Direction != In && s.Direction != Out {
			return nil, lineErr(line, "unknown direction %q: want %q or %q", s.Direction, In, Out)
		}
		b, err := strconv.ParseInt(rec[2], 10, 64)
		if errors.Is(err, strconv.ErrRange) {
			return nil, lineErr(line, "bytes %s does not fit in 64 bits", rec[2])
		}
		if err != nil {
			if f, ferr := strconv.ParseFloat(rec[2], 64); ferr == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
				if f < 0 {
					return nil, lineErr(line, "bytes %s is negative", rec[2])
				}
				return nil, lineErr(line, "bytes %q is not a whole number", rec[2])
			}
			return nil, lineErr(line, "bytes %q is not a number", rec[2])
		}
		if b < 0 {
			return nil, lineErr(line, "bytes %d is negative", b)
		}
		s.Bytes = b
		ns, err := strconv.ParseFloat(rec[3], 64)
		if err != nil || math.IsNaN(ns) || math.IsInf(ns, 0) {
			if err == nil || errors.Is(err, strconv.ErrRange) {
				return nil, lineErr(line, "ns %q is not a finite number", rec[3])
			}
			return nil, lineErr(line, "ns %q is not a number", rec[3])
		}
		if ns < 0 {
			return nil, lineErr(line, "ns %s is negative", rec[3])
		}
		s.NS = ns
		out = append(out, s)
	}
	if header {
		return nil, lineErr(1, "missing header %q (the file is empty)", Header)
	}
	if len(out) == 0 {
		return nil, inputerr.New(doc, "", "no samples after the header")
	}
	return out, nil
}
