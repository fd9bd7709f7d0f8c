package search_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	hwconfig "github.com/hieropt/hieropt/configs/hw"
	"github.com/hieropt/hieropt/search"
	"github.com/hieropt/hieropt/workload"
)

func TestX(t *testing.T) {
	for _, c := range [][2]string{{"seed000-example", "../testdata/hw/two-level-5k.yaml"}, {"resnet50-int8", "ethos-u55"}, {"gpt2-small-like-int8", "ethos-u55"}, {"mobilenet_v2-int8", "ethos-u65"}, {"resnet18-int8", "h100-sm"}} {
		prog, err := workload.ReadFile("../testdata/workloads/" + c[0] + ".json")
		if err != nil {
			t.Fatal(err)
		}
		prof, err := hwconfig.Load(c[1])
		if err != nil {
			t.Fatal(err)
		}
		st := time.Now()
		r, err := search.Run(context.Background(), prog, prof, &search.Settings{Check: true})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("%s %s: %.1f -> %.1f (%.2f%%) %v %+v\n", c[0], c[1], r.InitialCost, r.Cost, 100*(r.InitialCost-r.Cost)/r.InitialCost, time.Since(st), r.Stats)
	}
}
