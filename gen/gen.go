// Package gen generates synthetic but realistic workloads
// ("hieropt.workload/v1", FORMATS.md section 1) of any length, for scaling
// benchmarks of the planner.
//
// The programs follow the tracing rules of workloads/README.md, so
// that they look like the traced networks, only longer:
//
//   - CNN stages are ResNet-50-style bottleneck blocks (conv1x1 -> bn -> relu
//     -> conv3x3 -> bn -> relu -> conv1x1 -> bn [-> downsample conv -> bn] ->
//     add -> relu) over four stages whose feature maps shrink from 56x56x256
//     to 7x7x2048; every conv with a kernel larger than 1x1 gets an im2col
//     scratch block of C_in*kH*kW*H_out*W_out elements at its own timestep.
//     When the program is longer than one pass, a 1x1 conv and a resize bring
//     the features back to the first stage and the stages repeat.
//   - Transformer stages are GPT-2-small-style pre-LayerNorm blocks (sequence
//     128, width 768, 12 heads, MLP 4x) with the attention spelled out as
//     Linear(qkv) -> matmul -> scale -> softmax -> matmul -> Linear.
//   - "mixed" alternates one CNN stage and one transformer stage, with small
//     transitions (pool + Linear into tokens, LayerNorm + Linear + resize back
//     into a feature map).
//
// Weights are constant blocks (first 0, read once at their op); every op
// output is one activation block from its producer to its last consumer,
// reusable exactly when that consumer is an elementwise op with an output of
// the same size. The final op's output is the program output; a program is
// cut after exactly Options.Ops ops, and a cut never leaves an op output
// unread (a block whose prefix would, such as a bottleneck with a downsample
// branch, is replaced by an identity bottleneck at the cut).
package gen

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/hieropt/hieropt/workload"
)

// Options configure a generated program.
type Options struct {
	Ops   int    // number of ops (timesteps), >= 1
	Seed  uint64 // RNG seed (math/rand/v2 PCG); same options -> identical program
	Mix   string // "cnn", "transformer" or "mixed" (default "mixed": alternate stages of both)
	DType int    // bytes per element, default 1 (int8)
	Name  string // default "gen-<mix>-<ops>-<seed>"
}

// Mixes of stages Generate knows.
const (
	MixCNN         = "cnn"
	MixTransformer = "transformer"
	MixMixed       = "mixed"
)

// Transformer and CNN dimensions (GPT-2 small, ResNet-50 at 224x224).
const (
	seqLen    = 128  // tokens
	width     = 768  // model width
	heads     = 12   // attention heads
	ffMult    = 4    // MLP hidden = ffMult * width
	vocab     = 8192 // token embedding rows (kept small so one constant stays a few MB)
	tokenSize = 8    // bytes per token id (int64, whatever the dtype)
	stemC     = 64   // channels after the stem
	firstH    = 56   // feature map side of the first stage in the first pass
	tokGridH  = 8    // tokens as an 8x16 grid when pooling a feature map
	tokGridW  = seqLen / tokGridH
)

// passSides are the first-stage feature map sides a later CNN pass picks
// from (input 224, 192 or 160 pixels).
var passSides = [...]int64{56, 48, 40}

// Generate returns a program of exactly o.Ops ops, validated.
func Generate(o Options) (*workload.Program, error) {
	if o.Ops < 1 {
		return nil, fmt.Errorf("gen: Ops is %d, want >= 1", o.Ops)
	}
	if o.Mix == "" {
		o.Mix = MixMixed
	}
	switch o.Mix {
	case MixCNN, MixTransformer, MixMixed:
	default:
		return nil, fmt.Errorf("gen: unknown Mix %q (want %q, %q or %q)", o.Mix, MixCNN, MixTransformer, MixMixed)
	}
	if o.DType == 0 {
		o.DType = 1
	}
	if o.DType < 0 || o.DType > 16 {
		return nil, fmt.Errorf("gen: DType is %d bytes per element, want 1..16", o.DType)
	}
	if o.Name == "" {
		o.Name = "gen-" + o.Mix + "-" + strconv.Itoa(o.Ops) + "-" + strconv.FormatUint(o.Seed, 10)
	}

	b := &builder{
		dt:    int64(o.DType),
		rng:   rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15)),
		limit: o.Ops,
		ops:   make([]aop, 0, o.Ops+16),
	}
	switch o.Mix {
	case MixCNN:
		b.genCNN()
	case MixTransformer:
		b.genTransformer()
	default:
		b.genMixed()
	}
	if len(b.ops) != o.Ops {
		return nil, fmt.Errorf("gen: internal error: %d ops generated, want %d", len(b.ops), o.Ops)
	}

	p := b.program(o)
	if err := p.Validate("generated workload " + strconv.Quote(o.Name)); err != nil {
		return nil, fmt.Errorf("gen: internal error: %w", err)
	}
	return p, nil
}

// aop is one op before blocks are made.
type aop struct {
	name, typ string
	macs      int64
	out       int64    // output bytes
	ins       [2]int32 // tensors read: op indices, inputTensor = the program input
	nin       uint8
	eltwise   bool // elementwise: could run in place when an input has the output's size
	consts    [2]konst
	ncon      uint8
	scratch   int64 // im2col workspace bytes, 0 = none
}

// konst is one weight tensor of an op.
type konst struct {
	suffix string
	size   int64
}

const inputTensor int32 = -1

// state is where the program currently is: the tensor the next op reads and
// its shape.
type state struct {
	cur   int32
	h, c  int64 // CNN: feature map side and channels
	stage int   // stage counter, for names
	tf    bool  // cur is a token sequence (seqLen x width)
}

type builder struct {
	dt        int64
	rng       *rand.Rand
	limit     int
	ops       []aop
	st        state
	inputSize int64
}

func (b *builder) full() bool { return len(b.ops) >= b.limit }

// add appends an op reading ins and returns its index (= its output tensor).
func (b *builder) add(name, typ string, macs, out int64, eltwise bool, ins ...int32) int32 {
	op := aop{name: name, typ: typ, macs: macs, out: out, eltwise: eltwise}
	for _, in := range ins {
		op.ins[op.nin] = in
		op.nin++
	}
	b.ops = append(b.ops, op)
	return int32(len(b.ops) - 1)
}

// weight adds a constant to the last op.
func (b *builder) weight(suffix string, size int64) {
	op := &b.ops[len(b.ops)-1]
	op.consts[op.ncon] = konst{suffix, size}
	op.ncon++
}

// unit emits one residual/attention block (or transition) with build. If the
// program ends inside it, the block is cut; a cut that would leave an op
// output unread is rebuilt with fallback, whose prefixes are always clean.
// fallback(i) builds the i-th block of the replacement.
func (b *builder) unit(build func(), fallback func(i int)) {
	if b.full() {
		return
	}
	mark, saved := len(b.ops), b.st
	build()
	if len(b.ops) <= b.limit {
		return
	}
	if !b.cleanCut() {
		if fallback == nil {
			// every unit without a fallback is a chain: each op reads the
			// previous one's output, so any cut is clean
			panic("gen: internal error: unclean cut in a unit without fallback")
		}
		b.ops, b.st = b.ops[:mark], saved
		for i := 0; !b.full(); i++ {
			fallback(i)
		}
	}
	b.ops = b.ops[:b.limit]
}

// cleanCut reports whether cutting the ops at limit leaves every kept op
// output except the last one read by a kept op.
func (b *builder) cleanCut() bool {
	last := int32(b.limit - 1)
	for d := b.limit; d < len(b.ops); d++ {
		op := &b.ops[d]
		for _, in := range op.ins[:op.nin] {
			if in < 0 || in >= last {
				continue
			}
			read := false
			for j := in + 1; j <= last && !read; j++ {
				o := &b.ops[j]
				for _, x := range o.ins[:o.nin] {
					if x == in {
						read = true
					}
				}
			}
			if !read {
				return false
			}
		}
	}
	return true
}

func itoa(i int) string { return strconv.Itoa(i) }

func (b *builder) nextStage() string {
	k := b.st.stage
	b.st.stage++
	return "s" + itoa(k)
}

// ---- CNN ----

func (b *builder) genCNN() {
	b.stem()
	for pass := 0; !b.full(); pass++ {
		h1 := int64(firstH)
		if pass > 0 {
			h1 = passSides[b.rng.IntN(len(passSides))]
			b.cnnWrap(b.nextStagePeek(), h1)
		}
		for s := 0; s < 4 && !b.full(); s++ {
			b.cnnStage(b.nextStage(), s, h1)
		}
	}
}

func (b *builder) nextStagePeek() string { return "s" + itoa(b.st.stage) }

// stem is ResNet's conv7x7/2 -> bn -> relu -> maxpool/2 on a 224x224x3 image.
func (b *builder) stem() {
	const inH, h = 4 * firstH, 2 * firstH
	b.inputSize = inH * inH * 3 * b.dt
	b.st = state{cur: inputTensor, h: inH, c: 3}
	b.unit(func() {
		b.conv("stem.conv1", b.st.c, stemC, 7, h)
		b.bn("stem.bn1")
		b.relu("stem.relu")
		b.st.cur = b.add("stem.maxpool", "MaxPool2d", 0, firstH*firstH*stemC*b.dt, false, b.st.cur)
		b.st.h = firstH
	}, nil)
}

// conv adds a kxk convolution from the current feature map to cout channels
// at side hOut; k > 1 gets an im2col scratch block.
func (b *builder) conv(name string, cin, cout, k, hOut int64) int32 {
	return b.convFrom(name, b.st.cur, cin, cout, k, hOut)
}

func (b *builder) convFrom(name string, from int32, cin, cout, k, hOut int64) int32 {
	hw := hOut * hOut
	b.st.cur = b.add(name, "Conv2d", cout*cin*k*k*hw, cout*hw*b.dt, false, from)
	b.weight("weight", cout*cin*k*k*b.dt)
	if k > 1 {
		b.ops[b.st.cur].scratch = cin * k * k * hw * b.dt
	}
	b.st.h, b.st.c = hOut, cout
	return b.st.cur
}

// bn is an eval-mode BatchNorm with its statistics folded into a
// per-channel scale (weight) and shift (bias).
func (b *builder) bn(name string) int32 {
	size := b.ops[b.st.cur].out
	b.st.cur = b.add(name, "BatchNorm2d", 0, size, true, b.st.cur)
	b.weight("weight", b.st.c*b.dt)
	b.weight("bias", b.st.c*b.dt)
	return b.st.cur
}

func (b *builder) relu(name string) int32 {
	b.st.cur = b.add(name, "ReLU", 0, b.ops[b.st.cur].out, true, b.st.cur)
	return b.st.cur
}

// cnnStage emits stage s (0..3) of a pass whose first stage has side h1.
func (b *builder) cnnStage(name string, s int, h1 int64) {
	mid := int64(stemC) << s
	hOut := h1 >> s
	n := 2 + b.rng.IntN(5) // 2..6 blocks (ResNet-50: 3, 4, 6, 3)
	for j := 0; j < n && !b.full(); j++ {
		base := name + ".b" + itoa(j)
		b.unit(func() { b.bottleneck(base, mid, 4*mid, hOut) }, func(i int) {
			// an identity bottleneck at the current shape: its cuts are clean
			b.bottleneck(base+".tail"+itoa(i), mid, b.st.c, b.st.h)
		})
	}
}

// bottleneck emits one ResNet bottleneck block from the current feature map
// to cout channels (4*mid in ResNet) at side hOut; it has a downsample branch
// when the shape changes.
func (b *builder) bottleneck(base string, mid, cout, hOut int64) {
	x, cin, hIn := b.st.cur, b.st.c, b.st.h
	proj := cin != cout || hIn != hOut
	b.conv(base+".conv1", cin, mid, 1, hIn)
	b.bn(base + ".bn1")
	b.relu(base + ".relu1")
	b.conv(base+".conv2", mid, mid, 3, hOut) // stride 2 when hOut < hIn (ResNet v1.5)
	b.bn(base + ".bn2")
	b.relu(base + ".relu2")
	b.conv(base+".conv3", mid, cout, 1, hOut)
	mainOut := b.bn(base + ".bn3")
	skip := x
	if proj {
		b.convFrom(base+".downsample.conv", x, cin, cout, 1, hOut)
		skip = b.bn(base + ".downsample.bn")
	}
	b.st.cur = b.add(base+".add", "add", 0, b.ops[mainOut].out, true, mainOut, skip)
	b.relu(base + ".relu3")
}

// cnnWrap brings the last stage's features back to the first stage of a
// new pass: a 1x1 conv to stemC channels, then a resize to h1 x h1.
func (b *builder) cnnWrap(stage string, h1 int64) {
	b.unit(func() {
		b.conv(stage+".in.reduce", b.st.c, stemC, 1, b.st.h)
		b.resize(stage+".in.resize", h1)
	}, nil)
}

func (b *builder) resize(name string, h int64) {
	b.st.cur = b.add(name, "interpolate", 0, h*h*b.st.c*b.dt, false, b.st.cur)
	b.st.h = h
}

// ---- transformer ----

func (b *builder) genTransformer() {
	b.inputSize = seqLen * tokenSize
	b.st = state{cur: inputTensor, tf: true}
	act := int64(seqLen * width)
	b.unit(func() {
		b.st.cur = b.add("embed.wte", "Embedding", 0, act*b.dt, false, b.st.cur)
		b.weight("weight", vocab*width*b.dt)
		b.st.cur = b.add("embed.wpe", "add", 0, act*b.dt, true, b.st.cur)
		b.weight("weight", act*b.dt)
	}, nil)
	for !b.full() {
		b.tfStage(b.nextStage(), 4+b.rng.IntN(9)) // 4..12 layers
	}
}

func (b *builder) tfStage(name string, layers int) {
	for j := 0; j < layers && !b.full(); j++ {
		base := name + ".h" + itoa(j)
		b.unit(func() { b.tfLayer(base) }, nil)
	}
}

// linear adds a Linear layer (weight and bias) over the sequence.
func (b *builder) linear(name string, from int32, in, out int64) int32 {
	b.st.cur = b.add(name, "Linear", seqLen*in*out, seqLen*out*b.dt, false, from)
	b.weight("weight", in*out*b.dt)
	b.weight("bias", out*b.dt)
	return b.st.cur
}

func (b *builder) layerNorm(name string) int32 {
	b.st.cur = b.add(name, "LayerNorm", 0, b.ops[b.st.cur].out, false, b.st.cur)
	b.weight("weight", width*b.dt)
	b.weight("bias", width*b.dt)
	return b.st.cur
}

// tfLayer is one GPT-2 pre-LayerNorm block: attention then MLP, each with a
// residual add.
func (b *builder) tfLayer(base string) {
	const d, s = width, seqLen
	x := b.st.cur
	act := int64(s*d) * b.dt
	scores := int64(heads*s*s) * b.dt
	b.layerNorm(base + ".ln_1")
	qkv := b.linear(base+".attn.qkv", b.st.cur, d, 3*d)
	b.st.cur = b.add(base+".attn.scores", "matmul", s*s*d, scores, false, qkv)
	b.st.cur = b.add(base+".attn.scale", "mul", 0, scores, true, b.st.cur)
	b.st.cur = b.add(base+".attn.softmax", "softmax", 0, scores, false, b.st.cur)
	b.st.cur = b.add(base+".attn.context", "matmul", s*s*d, act, false, b.st.cur, qkv)
	proj := b.linear(base+".attn.proj", b.st.cur, d, d)
	h := b.add(base+".add_1", "add", 0, act, true, proj, x)
	b.st.cur = h
	b.layerNorm(base + ".ln_2")
	b.linear(base+".mlp.fc", b.st.cur, d, ffMult*d)
	b.st.cur = b.add(base+".mlp.gelu", "GELU", 0, ffMult*act, true, b.st.cur)
	out := b.linear(base+".mlp.proj", b.st.cur, ffMult*d, d)
	b.st.cur = b.add(base+".add_2", "add", 0, act, true, out, h)
}

// ---- mixed ----

func (b *builder) genMixed() {
	b.stem()
	for pass := 0; !b.full(); pass++ {
		h1 := int64(firstH)
		if pass > 0 {
			h1 = passSides[b.rng.IntN(len(passSides))]
		}
		for s := 0; s < 4 && !b.full(); s++ {
			stage := b.nextStagePeek()
			if b.st.tf {
				// back to the feature map the CNN stage expects
				h, c := h1, int64(stemC)
				if s > 0 {
					h, c = h1>>(s-1), int64(4*stemC)<<(s-1)
				}
				b.toCNN(stage, h, c)
			}
			b.cnnStage(b.nextStage(), s, h1)
			stage = b.nextStagePeek()
			b.toTokens(stage)
			b.tfStage(b.nextStage(), 2+b.rng.IntN(5)) // 2..6 layers
		}
	}
}

// toTokens pools the feature map to an 8x16 grid of tokens, projects them
// to the model width and adds a position embedding.
func (b *builder) toTokens(stage string) {
	c := b.st.c
	b.unit(func() {
		b.st.cur = b.add(stage+".in.pool", "AdaptiveAvgPool2d", 0, tokGridH*tokGridW*c*b.dt, false, b.st.cur)
		b.linear(stage+".in.embed", b.st.cur, c, width)
		b.st.cur = b.add(stage+".in.pos", "add", 0, seqLen*width*b.dt, true, b.st.cur)
		b.weight("weight", seqLen*width*b.dt)
		b.st.tf = true
	}, nil)
}

// toCNN turns the token sequence into an h x h x c feature map: final
// LayerNorm, a Linear to c channels and a resize.
func (b *builder) toCNN(stage string, h, c int64) {
	b.unit(func() {
		b.layerNorm(stage + ".in.ln_f")
		b.linear(stage+".in.unembed", b.st.cur, width, c)
		b.st.c, b.st.h = c, tokGridH // the tokens as a grid (a view)
		b.resize(stage+".in.resize", h)
		b.st.tf = false
	}, nil)
}

// ---- blocks ----

// program turns the ops into a Program: the input, then for each op its
// constants, its output and its scratch.
func (b *builder) program(o Options) *workload.Program {
	T := len(b.ops)
	// consumers of each tensor, in op order (CSR), index T = program input
	cnt := make([]int32, T+2)
	nCons, nBlocks, nSteps := 0, 1, 0
	for j := range b.ops {
		op := &b.ops[j]
		for _, in := range op.ins[:op.nin] {
			cnt[tensorSlot(in, T)+1]++
			nCons++
		}
		nBlocks += 1 + int(op.ncon)
		nSteps += 1 + int(op.ncon)
		if op.scratch > 0 {
			nBlocks++
			nSteps += 2
		}
	}
	for i := 1; i < len(cnt); i++ {
		cnt[i] += cnt[i-1]
	}
	cons := make([]int, nCons)
	fill := make([]int32, T+1)
	copy(fill, cnt[:T+1])
	for j := range b.ops {
		op := &b.ops[j]
		for _, in := range op.ins[:op.nin] {
			k := tensorSlot(in, T)
			cons[fill[k]] = j
			fill[k]++
		}
	}
	readers := func(k int) []int { return cons[cnt[k]:cnt[k+1]:cnt[k+1]] }

	// one arena for every writes list and the reads of constants, scratch
	// and the output
	arena := make([]int, 0, nSteps+2)
	steps := func(t int) []int {
		arena = append(arena, t)
		n := len(arena)
		return arena[n-1 : n : n]
	}
	reusable := func(last int, size int64) bool {
		op := &b.ops[last]
		return op.eltwise && op.out == size
	}

	p := &workload.Program{
		Name: o.Name,
		Source: fmt.Sprintf("synthetic %s workload from hieropt/gen (seed %d, %d byte(s)/element): "+
			"ResNet-50-style bottleneck stages (im2col scratch per conv > 1x1) and/or GPT-2-small-style "+
			"pre-LN blocks (sequence %d, width %d), blocks made by the tracing rules of workloads/README.md",
			o.Mix, o.Seed, o.DType, seqLen, width),
		Ops:    make([]workload.Op, T),
		Blocks: make([]workload.Block, 0, nBlocks),
	}
	in := readers(T)
	p.Blocks = append(p.Blocks, workload.Block{
		Name: "input", Size: b.inputSize, Kind: workload.Input,
		First: 0, Last: in[len(in)-1], Writes: steps(0), Reads: in,
		Reusable: reusable(in[len(in)-1], b.inputSize),
	})
	for t := range b.ops {
		op := &b.ops[t]
		p.Ops[t] = workload.Op{Name: op.name, Type: op.typ, MACs: op.macs}
		for _, k := range op.consts[:op.ncon] {
			p.Blocks = append(p.Blocks, workload.Block{
				Name: op.name + "." + k.suffix, Size: k.size, Kind: workload.Constant,
				First: 0, Last: t, Writes: arena[:0:0], Reads: steps(t),
			})
		}
		w := steps(t)
		if t == T-1 {
			p.Blocks = append(p.Blocks, workload.Block{
				Name: op.name + ".out", Size: op.out, Kind: workload.Output,
				First: t, Last: t, Writes: w, Reads: w,
			})
		} else {
			r := readers(t)
			last := t
			if len(r) > 0 {
				last = r[len(r)-1]
			}
			p.Blocks = append(p.Blocks, workload.Block{
				Name: op.name + ".out", Size: op.out, Kind: workload.Activation,
				First: t, Last: last, Writes: w, Reads: r,
				Reusable: len(r) > 0 && reusable(last, op.out),
			})
		}
		if op.scratch > 0 {
			s := steps(t)
			p.Blocks = append(p.Blocks, workload.Block{
				Name: op.name + ".im2col", Size: op.scratch, Kind: workload.Scratch,
				First: t, Last: t, Writes: s, Reads: s,
			})
		}
	}
	return p
}

// tensorSlot is the CSR slot of tensor in: its op index, T for the input.
func tensorSlot(in int32, T int) int {
	if in == inputTensor {
		return T
	}
	return int(in)
}
