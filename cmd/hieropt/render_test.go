package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRender(t *testing.T) {
	dir := t.TempDir()
	before, after := filepath.Join(dir, "before.json"), filepath.Join(dir, "after.json")
	// The seed model's plans (one placement per block in the initializer's).
	args := []string{"--workload", "resnet50-int8", "--hw", seedHW("ethos-u55")}
	r := runCLI(t, "", append([]string{"optimize", "--no-search", "-q", "-o", before}, args...)...)
	require.Equal(t, exitOK, r.code, r.stderr)
	r = runCLI(t, "", append([]string{"optimize", "-q", "--ascii", "-o", after}, args...)...)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stderr, "SRAM (capacity 4 MiB; drawn: 0–4 MiB)", "--ascii prints the map")

	// As the help's example: the plan, --compare the initial plan. The
	// reference (--compare) is drawn on the left, as in the report.
	svg := filepath.Join(dir, "both.svg")
	r = runCLI(t, "", append([]string{"render", after, "--compare", before, "-o", svg}, args...)...)
	require.Equal(t, exitOK, r.code, r.stderr)
	data, err := os.ReadFile(svg)
	require.NoError(t, err)
	c := wellFormedXML(t, data)
	assert.Equal(t, 2*459, c["rect.pl"], "459 blocks placed once each, in two plans")
	assert.Equal(t, 4, c["g.panel"])
	titles := regexp.MustCompile(`<text x="([0-9.]+)" y="\d+" font-size="14" font-weight="bold">([^<]*)(?:<title>[^<]*</title>)?</text>`).FindAllStringSubmatch(string(data), -1)
	require.Len(t, titles, 2)
	assert.True(t, strings.HasPrefix(titles[0][2], "before.json (initializer): cost 88667567.00 cycles"), titles[0][2])
	assert.True(t, strings.HasPrefix(titles[1][2], "after.json (search: "), titles[1][2])
	x0, err := strconv.ParseFloat(titles[0][1], 64)
	require.NoError(t, err)
	x1, err := strconv.ParseFloat(titles[1][1], 64)
	require.NoError(t, err)
	assert.Less(t, x0, x1, "the reference is on the left")
	// Both panels fit a 1400 px window (issue 19: the pair was 2148 px).
	wh := regexp.MustCompile(`^<svg [^>]*width="([0-9.]+)"`).FindSubmatch(data)
	require.NotNil(t, wh)
	width, err := strconv.ParseFloat(string(wh[1]), 64)
	require.NoError(t, err)
	assert.LessOrEqual(t, width, 1400.0, "the --compare drawing's width")
	assert.Greater(t, width, 1300.0, "the width used")
	h := runCLI(t, "", "render", "--help")
	assert.Contains(t, h.stdout, "render --workload resnet50-int8 --hw ethos-u55 optimized.json --compare initial.json")
	assert.Contains(t, h.stdout, "--compare REF draws the reference plan REF (say the initial plan) on\nthe left")

	r = runCLI(t, "", append([]string{"render", after, "--ascii", "--width", "40"}, args...)...)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Equal(t, 2, strings.Count(r.stdout, "(capacity "))

	// Bad input: one line, the right exit code, no file.
	bad := filepath.Join(dir, "bad.svg")
	r = runCLI(t, "", "render", "--workload", "resnet18-int8", "--hw", seedHW("ethos-u55"), after, "-o", bad)
	assert.Equal(t, exitInput, r.code)
	assert.Equal(t, `hieropt: plan "`+after+`": plan is for workload "resnet50-int8", not "resnet18-int8"`+"\n", r.stderr)
	data, err = os.ReadFile(after)
	require.NoError(t, err)
	unknown := filepath.Join(dir, "unknown.json")
	require.NoError(t, os.WriteFile(unknown, []byte(strings.Replace(string(data), `"level":"SRAM"`, `"level":"L9"`, 1)), 0o644))
	r = runCLI(t, "", append([]string{"render", unknown, "-o", bad}, args...)...)
	assert.Equal(t, exitInput, r.code)
	assert.Regexp(t, `^hieropt: plan ".*unknown.json": placements\[\d+\]: level "L9" is not in hardware profile "ethos-u55-seed003"\n$`, r.stderr)
	broken := filepath.Join(dir, "broken.json")
	require.NoError(t, os.WriteFile(broken, []byte(strings.Replace(string(data), `"final": `, `"final": 1`, 1)), 0o644))
	r = runCLI(t, "", append([]string{"render", broken, "-o", bad}, args...)...)
	assert.Equal(t, exitFailed, r.code)
	assert.Contains(t, r.stderr, "is invalid (1 violation; run verify for all): rule 6: cost.final")
	assert.NoFileExists(t, bad)
}

// wellFormedXML parses an SVG as XML and counts elements by class.
func wellFormedXML(t *testing.T, data []byte) map[string]int {
	t.Helper()
	classes := map[string]int{}
	dec := xml.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return classes
		}
		require.NoError(t, err)
		if e, ok := tok.(xml.StartElement); ok {
			for _, a := range e.Attr {
				if a.Name.Local == "class" {
					for _, c := range strings.Fields(a.Value) {
						classes[e.Name.Local+"."+c]++
					}
				}
			}
		}
	}
}
