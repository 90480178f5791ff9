package tone

import (
	"math"
	"math/rand/v2"
)

// Example is one labelled turn to train on.
type Example struct {
	Text, Lang string
	// Positive: the turn is of the class (for Respect: disrespectful).
	Positive bool
	// Weight scales the example's loss; 0 counts as 1.
	Weight float64
}

// Training settles how Train learns.
type Training struct {
	Epochs int     // passes over the examples
	Rate   float64 // AdaGrad's learning rate
	L2     float64 // weight decay per example seen
	Seed   uint64  // of the shuffles: the same seed, the same model
}

// DefaultTraining is what cmd/traintone uses.
var DefaultTraining = Training{Epochs: 20, Rate: 0.5, L2: 5e-4, Seed: 15}

// Train fits a logistic regression to examples by stochastic gradient
// descent with AdaGrad steps and L2 decay, each class weighing as much in
// total as the other. It is deterministic: the examples are shuffled with
// t.Seed. A hand-written trainer of a few lines, because the Go machine
// learning libraries that have one are dense (a weight vector of 2^17
// features per example) or unmaintained.
func Train(examples []Example, t Training) *Model {
	m := New()
	type row struct {
		buckets []uint32 // the language's first
		scale   float64  // the value of the others
		y, w    float64
	}
	rows := make([]row, len(examples))
	var pos, neg float64
	for i, e := range examples {
		w := e.Weight
		if w == 0 {
			w = 1
		}
		r := row{buckets: []uint32{languageBucket(e.Lang)}, w: w}
		visit(split(e.Text).words, func(bucket uint32, _, _ string) { r.buckets = append(r.buckets, bucket) })
		r.scale = 1 / math.Sqrt(float64(max(len(r.buckets)-1, 1)))
		rows[i] = r
		if e.Positive {
			rows[i].y = 1
			pos += w
		} else {
			neg += w
		}
	}
	// Balance the classes.
	for i := range rows {
		if rows[i].y == 1 && pos > 0 {
			rows[i].w *= (pos + neg) / (2 * pos)
		} else if neg > 0 {
			rows[i].w *= (pos + neg) / (2 * neg)
		}
	}
	g2 := make([]float64, len(m.Weights))
	var biasG2 float64
	rng := rand.New(rand.NewPCG(t.Seed, 0x70e))
	order := make([]int, len(rows))
	for i := range order {
		order[i] = i
	}
	for range t.Epochs {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, i := range order {
			r := &rows[i]
			margin := float64(m.Bias)
			for k, b := range r.buckets {
				margin += float64(m.Weights[b]) * value(k, r.scale)
			}
			g := (sigmoid(margin) - r.y) * r.w
			biasG2 += g * g
			m.Bias -= float32(t.Rate * g / math.Sqrt(biasG2+1e-8))
			for k, b := range r.buckets {
				w := float64(m.Weights[b])
				gb := g*value(k, r.scale) + t.L2*w
				g2[b] += gb * gb
				m.Weights[b] = float32(w - t.Rate*gb/math.Sqrt(g2[b]+1e-8))
			}
		}
	}
	return m
}

// value is the value of a row's kth feature: 1 for the language, scale
// for the others (see Model.margin).
func value(k int, scale float64) float64 {
	if k == 0 {
		return 1
	}
	return scale
}
