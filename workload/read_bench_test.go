package workload_test

import (
	"bytes"
	"testing"

	"github.com/hieropt/hieropt/gen"
	"github.com/hieropt/hieropt/workload"
)

// BenchmarkParse decodes a generated program of 50,000 ops (gen, seed 3:
// about 15 MB of JSON) as ReadFile does.
func BenchmarkParse(b *testing.B) {
	var buf bytes.Buffer
	prog, err := gen.Generate(gen.Options{Ops: 50000, Seed: 3})
	if err != nil {
		b.Fatal(err)
	}
	if err := prog.Write(&buf); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for range b.N {
		if _, err := workload.Parse("gen.json", data); err != nil {
			b.Fatal(err)
		}
	}
}
