package main

import (
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hieropt/hieropt/docs"
)

func newFormatsCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "formats [SECTION]",
		Short: "Print the file formats (workload, profile, plan, cost, CSV, timeline, TFLM): FORMATS.md",
		Long: `formats prints FORMATS.md, the specification of the files hieropt reads and
writes (workloads, hardware profiles, plans, MiniMalloc CSV, TFLite Micro
plans) and of the rules a plan must follow, as built into this binary. Help
texts that cite "FORMATS.md section N" or "rule N" refer to it.

With SECTION (a section number such as 3 or 6.2) it prints that section
alone, with its subsections.`,
		Example: `  hieropt formats
  hieropt formats 3
  hieropt formats 6.2`,
		Args: maxArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				_, err := io.WriteString(a.stdout, docs.Formats)
				return err
			}
			s, err := formatsSection(docs.Formats, args[0])
			if err != nil {
				return err
			}
			_, err = io.WriteString(a.stdout, s)
			return err
		},
	}
}

// formatsSection returns the section of doc numbered num ("3", "6.2"): its
// heading line up to the next heading of the same or a higher level.
func formatsSection(doc, num string) (string, error) {
	lines := strings.SplitAfter(doc, "\n")
	start, level := -1, 0
	var out strings.Builder
	var sections []string
	for i, l := range lines {
		hashes := len(l) - len(strings.TrimLeft(l, "#"))
		if hashes < 2 || !strings.HasPrefix(l[hashes:], " ") {
			if start >= 0 {
				out.WriteString(l)
			}
			continue
		}
		n, _, _ := strings.Cut(strings.TrimSpace(l[hashes:]), " ")
		n = strings.TrimSuffix(n, ".")
		if start >= 0 && hashes <= level {
			break
		}
		if start < 0 {
			sections = append(sections, n)
			if n == num || n == strings.TrimSuffix(num, ".") {
				start, level = i, hashes
			}
		}
		if start >= 0 {
			out.WriteString(l)
		}
	}
	if start < 0 {
		return "", usageErrorf("formats: no section %q (sections: %s)", num, strings.Join(sections, ", "))
	}
	return strings.TrimRight(out.String(), "\n") + "\n", nil
}
