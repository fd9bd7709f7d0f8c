package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hieropt/hieropt"
)

// With two walks of the bound order (one per guide), the summary names
// the cheaper one the plan, and only it.
func TestDescribeWalksMarksOnePlan(t *testing.T) {
	ws := []hieropt.Walked{
		{Start: "bound", StartCost: 30, Walked: 28, Cost: 27},
		{Start: "kind", StartCost: 87, Walked: 28, Cost: 26},
		{Start: "bound", StartCost: 33, Walked: 27, Cost: 25},
	}
	d := describeWalks(ws, "bound")
	assert.Equal(t, 1, strings.Count(d, "(the plan)"), d)
	assert.True(t, strings.HasSuffix(d, "repacked 25.00 (the plan)"), d)
}
