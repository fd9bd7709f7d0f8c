package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hieropt/hieropt/importer/onnx"
	tfliteimp "github.com/hieropt/hieropt/importer/tflite"
	"github.com/hieropt/hieropt/inputerr"
	"github.com/hieropt/hieropt/workload"
)

func newImportCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "import onnx|tflite|minimalloc FILE -o workload.json",
		Short: "Turn a model or a packing problem into a workload",
		Long: `import turns other formats into hieropt workloads (FORMATS.md section 1).

  import onnx model.onnx      an ONNX model: ops from the nodes, activations
                              from node outputs, weights from initializers
  import tflite model.tflite  a TensorFlow Lite model: ops from subgraph 0's
                              operators, a block per tensor with TFLM's
                              sizes and lifetimes
  import minimalloc in.csv    a MiniMalloc packing problem: one op per time
                              point, one block per buffer`,
		Args: exactArgs(0),
	}
	cmd.AddCommand(newImportONNXCmd(a), newImportTFLiteCmd(a), newImportMiniMallocCmd(a))
	return cmd
}

type importONNXOptions struct {
	Output     string   `mapstructure:"output"`
	DTypeBytes int64    `mapstructure:"dtype-bytes"`
	Dim        []string `mapstructure:"dim"`
	Name       string   `mapstructure:"name"`
}

func newImportONNXCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "onnx model.onnx -o workload.json [--dtype-bytes N] [--dim name=value]",
		Short: "Import an ONNX model as a workload",
		Long: `import onnx reads an ONNX model (the protobuf file) and writes a workload:

  - one op per graph node, in order (ONNX graphs are topologically sorted);
    Constant nodes become constants, and view-like nodes (Reshape, Flatten,
    Squeeze, Unsqueeze, Identity, Dropout) alias their input: ops that read
    the view read the underlying block;
  - an activation per node output, from its producer to its last consumer
    (an output block for what the graph returns), sized from the shapes in
    value_info and the graph's inputs and outputs;
  - a constant per initializer used, sized from dims x data type (the
    weights' data may be absent), loaded at timestep 0;
  - an input per graph input;
  - an input or activation whose last consumer is an elementwise op with an
    output of the same size is reusable (in place).

A tensor without a shape is an error: run ONNX shape inference first.
--dim fixes symbolic dimensions (--dim batch=1; a name that no tensor of the
model uses is an error); --dtype-bytes sets the size of every floating-point
element (1 for an int8 deployment).`,
		Example: `  hieropt import onnx resnet18.onnx --dtype-bytes 1 -o resnet18-int8.json
  hieropt import onnx model.onnx --dim batch=1 --dim seq=128 -o model.json`,
		Args: exactArgs(1),
	}
	f := cmd.Flags()
	f.StringP("output", "o", "-", "write the workload here (- for stdout)")
	f.Int64("dtype-bytes", 0, "bytes per floating-point element (default: the model's types)")
	f.StringArray("dim", nil, "value of a symbolic dimension, name=value (repeatable)")
	f.String("name", "", "workload name (default: the file's base name)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		var o importONNXOptions
		if err := bindSettings(cmd, &o); err != nil {
			return err
		}
		if o.DTypeBytes < 0 || o.DTypeBytes > 16 {
			return usageErrorf("--dtype-bytes %d: want 1 to 16 (or 0 for the model's own types)", o.DTypeBytes)
		}
		dims := map[string]int64{}
		for _, d := range o.Dim {
			name, val, ok := strings.Cut(d, "=")
			v, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
			if !ok || name == "" || err != nil || v < 0 {
				return usageErrorf("--dim %q: want name=value with a value >= 0", d)
			}
			dims[strings.TrimSpace(name)] = v
		}
		opts := onnx.Options{DTypeBytes: o.DTypeBytes, Dims: dims, Name: o.Name}
		var data []byte
		var err error
		a.noteInput(onnx.DocName(args[0]), args[0])
		if args[0] == "-" {
			data, err = io.ReadAll(a.stdin)
			if err != nil {
				return &inputerr.Error{Doc: onnx.DocName("-"), Rule: "cannot read stdin: " + err.Error()}
			}
		}
		var prog *workload.Program
		if args[0] == "-" {
			prog, err = onnx.Import("-", data, opts)
		} else {
			prog, err = onnx.ReadFile(args[0], opts)
		}
		if err != nil {
			return err
		}
		if err := a.writeOutput(o.Output, prog.Write); err != nil {
			return err
		}
		if o.Output != "-" && !a.quiet {
			fmt.Fprintf(a.stderr, "wrote %s\n", o.Output)
		}
		return nil
	}
	return cmd
}

type importTFLiteOptions struct {
	Output string `mapstructure:"output"`
	Name   string `mapstructure:"name"`
}

func newImportTFLiteCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tflite model.tflite -o workload.json",
		Short: "Import a TensorFlow Lite model as a workload",
		Long: `import tflite reads a TensorFlow Lite model (the .tflite flatbuffer) and
writes a workload of its memory as TensorFlow Lite Micro (TFLM) sees it:

  - one op per operator of subgraph 0, in order, typed by its builtin
    operator (CONV_2D) or custom code; MACs for CONV_2D, DEPTHWISE_CONV_2D,
    FULLY_CONNECTED, TRANSPOSE_CONV and CONV_3D;
  - one block per tensor, with the tensor's index ("tensor" in the
    workload) so that a plan maps back to the model: sized as TFLM sizes it
    (elements x type width, int8 1 byte), a constant if its buffer holds
    data, alive as TFLM computes it (graph inputs from the start, outputs
    to the end, variable tensors for the whole run, other tensors from
    their first writer to their last use);
  - no block for a zero-byte tensor, a constant no op reads, or a tensor
    no op uses that is no graph input or output (TFLM plans none of them);
  - an input or activation whose last reader is elementwise or a reshape
    with an output of the same size is reusable (in place).

A model with more than one subgraph (control flow) is refused.`,
		Example: `  hieropt import tflite person_detect.tflite -o person_detect.json`,
		Args:    exactArgs(1),
	}
	f := cmd.Flags()
	f.StringP("output", "o", "-", "write the workload here (- for stdout)")
	f.String("name", "", "workload name (default: the file's base name)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		var o importTFLiteOptions
		if err := bindSettings(cmd, &o); err != nil {
			return err
		}
		opts := tfliteimp.Options{Name: o.Name}
		var prog *workload.Program
		var err error
		a.noteInput(tfliteimp.DocName(args[0]), args[0])
		if args[0] == "-" {
			data, rerr := io.ReadAll(a.stdin)
			if rerr != nil {
				return &inputerr.Error{Doc: tfliteimp.DocName("-"), Rule: "cannot read stdin: " + rerr.Error()}
			}
			prog, err = tfliteimp.Import("-", data, opts)
		} else {
			prog, err = tfliteimp.ReadFile(args[0], opts)
		}
		if err != nil {
			return err
		}
		if err := a.writeOutput(o.Output, prog.Write); err != nil {
			return err
		}
		if o.Output != "-" && !a.quiet {
			fmt.Fprintf(a.stderr, "wrote %s\n", o.Output)
		}
		return nil
	}
	return cmd
}
