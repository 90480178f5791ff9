package talk

import (
	"time"

	"github.com/auditd/auditd/transcript"
)

// Spans here are sorted, disjoint, and rounded to hundredths when made.

// bridge joins the spans separated by less than gap seconds.
func bridge(spans []transcript.Span, gap float64) []transcript.Span {
	var out []transcript.Span
	for _, s := range spans {
		if n := len(out); n > 0 && s.Start-out[n-1].End < gap {
			out[n-1].End = s.End
			continue
		}
		out = append(out, s)
	}
	return out
}

// atLeast keeps the spans of min or more, rounded.
func atLeast(spans []transcript.Span, min time.Duration) []transcript.Span {
	out := []transcript.Span{}
	for _, s := range spans {
		if s.Seconds() >= min.Seconds()-1e-9 {
			out = append(out, transcript.Span{Start: round(s.Start), End: round(s.End)})
		}
	}
	return out
}

// union is when a or b holds.
func union(a, b []transcript.Span) []transcript.Span {
	var out []transcript.Span
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		var s transcript.Span
		if j >= len(b) || (i < len(a) && a[i].Start <= b[j].Start) {
			s, i = a[i], i+1
		} else {
			s, j = b[j], j+1
		}
		if n := len(out); n > 0 && s.Start <= out[n-1].End {
			out[n-1].End = max(out[n-1].End, s.End)
			continue
		}
		out = append(out, s)
	}
	return out
}

// intersect is when both a and b hold.
func intersect(a, b []transcript.Span) []transcript.Span {
	var out []transcript.Span
	for i, j := 0, 0; i < len(a) && j < len(b); {
		start, end := max(a[i].Start, b[j].Start), min(a[i].End, b[j].End)
		if start < end {
			out = append(out, transcript.Span{Start: start, End: end})
		}
		if a[i].End < b[j].End {
			i++
		} else {
			j++
		}
	}
	return out
}

// complement is when spans do not hold, from 0 to duration.
func complement(spans []transcript.Span, duration float64) []transcript.Span {
	var out []transcript.Span
	at := 0.0
	for _, s := range spans {
		if s.Start > at {
			out = append(out, transcript.Span{Start: at, End: s.Start})
		}
		at = max(at, s.End)
	}
	if at < duration {
		out = append(out, transcript.Span{Start: at, End: duration})
	}
	return out
}

// total is the spans' length.
func total(spans []transcript.Span) float64 {
	t := 0.0
	for _, s := range spans {
		t += s.Seconds()
	}
	return round(t)
}
