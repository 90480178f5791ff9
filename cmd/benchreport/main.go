// Command benchreport turns `go test -bench` output (on stdin, passed
// through to stdout as it arrives) into one report: a markdown table of
// every benchmark's figures, and the same as JSON in the file named by -json.
// Benchmarks report their baselines as metrics of their own (for example
// the plain file copy beside the upload), so each row carries its ratio.
// Each row also carries the machine's load average when it was measured,
// since the machine may be shared and its other work slows every figure.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Result is one benchmark's line.
type Result struct {
	Package string             `json:"package"`
	Name    string             `json:"name"`
	Runs    int                `json:"runs"`
	Metrics map[string]float64 `json:"metrics"`
	// Load is the 1-minute load average when the line arrived (the end of
	// the benchmark), nil when unknown.
	Load *float64 `json:"load,omitempty"`
}

// Report is the whole run.
type Report struct {
	Date    time.Time `json:"date"`
	Machine string    `json:"machine"`
	Results []Result  `json:"results"`
}

func main() {
	jsonPath := flag.String("json", "", "write the report as JSON to this file too")
	flag.Parse()
	report, failed, err := parse(os.Stdin, os.Stdout, loadAverage)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchreport:", err)
		os.Exit(1)
	}
	report.Date = time.Now().UTC()
	report.Machine = machine()
	fmt.Println()
	writeMarkdown(os.Stdout, report)
	if *jsonPath != "" {
		b, err := json.MarshalIndent(report, "", "  ")
		if err == nil {
			err = os.WriteFile(*jsonPath, append(b, '\n'), 0o644)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchreport:", err)
			os.Exit(1)
		}
	}
	if failed {
		fmt.Fprintln(os.Stderr, "benchreport: a benchmark failed")
		os.Exit(1)
	}
}

// parse reads benchmark output, echoing it, and collects the results, each
// with load's reading when its line arrived. It reports whether any
// package failed.
func parse(r io.Reader, echo io.Writer, load func() *float64) (Report, bool, error) {
	var rep Report
	failed := false
	var pending []Result // results wait for their package's "ok" line
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		fmt.Fprintln(echo, line)
		fields := strings.Fields(line)
		switch {
		case len(fields) >= 4 && strings.HasPrefix(fields[0], "Benchmark"):
			res, ok := result(fields)
			if ok {
				res.Load = load()
				pending = append(pending, res)
			}
		case len(fields) >= 2 && (fields[0] == "ok" || fields[0] == "FAIL"):
			if fields[0] == "FAIL" {
				failed = true
			}
			for i := range pending {
				pending[i].Package = fields[1]
			}
			rep.Results = append(rep.Results, pending...)
			pending = nil
		case strings.HasPrefix(line, "--- FAIL"):
			failed = true
		}
	}
	return rep, failed, sc.Err()
}

// result parses "BenchmarkX-2  N  v unit  v unit ...".
func result(fields []string) (Result, bool) {
	runs, err := strconv.Atoi(fields[1])
	if err != nil {
		return Result{}, false
	}
	name := fields[0]
	if i := strings.LastIndexByte(name, '-'); i > 0 {
		name = name[:i]
	}
	res := Result{Name: strings.TrimPrefix(name, "Benchmark"), Runs: runs, Metrics: map[string]float64{}}
	for i := 2; i+1 < len(fields); i += 2 {
		v, err := strconv.ParseFloat(fields[i], 64)
		if err != nil {
			return Result{}, false
		}
		res.Metrics[fields[i+1]] = v
	}
	return res, true
}

func writeMarkdown(w io.Writer, rep Report) {
	fmt.Fprintf(w, "## Benchmark report\n\n%s, %s\n\n", rep.Date.Format(time.RFC3339), rep.Machine)
	fmt.Fprintln(w, "| benchmark | figures | load |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, r := range rep.Results {
		units := make([]string, 0, len(r.Metrics))
		for u := range r.Metrics {
			units = append(units, u)
		}
		sort.Strings(units)
		var parts []string
		for _, u := range units {
			parts = append(parts, number(r.Metrics[u])+" "+u)
		}
		load := "?"
		if r.Load != nil {
			load = strconv.FormatFloat(*r.Load, 'f', 2, 64)
		}
		fmt.Fprintf(w, "| %s | %s | %s |\n", r.Name, strings.Join(parts, ", "), load)
	}
}

// number prints whole numbers whole and others with two decimals (or
// three significant digits when smaller).
func number(v float64) string {
	switch {
	case v == math.Trunc(v) && math.Abs(v) < 1e15:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case math.Abs(v) < 0.1:
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// machine describes the machine and the Go that ran the benchmarks
// (scripts/bench.sh builds benchreport with the same go).
func machine() string {
	model := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.SplitSeq(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "model name"); ok {
				model = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
				break
			}
		}
	}
	return fmt.Sprintf("%s, %d cores, %s %s/%s", model, runtime.NumCPU(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// loadAverage reads the 1-minute load average, nil when it cannot.
func loadAverage() *float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return nil
	}
	fields := strings.Fields(string(b))
	if len(fields) == 0 {
		return nil
	}
	v, err := strconv.ParseFloat(fields[0], 64)
	if err != nil {
		return nil
	}
	return &v
}
