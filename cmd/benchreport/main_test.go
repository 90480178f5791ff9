package main

import (
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	t.Parallel()
	out := `goos: linux
BenchmarkSSEFanout-2   	       5	 205933522 ns/op	        46.23 KiB/conn	     10000 clients
--- BENCH: BenchmarkSSEFanout-2
PASS
ok  	github.com/auditd/auditd/cmd/auditd	9.867s
BenchmarkBroken-2   	       1	 100 ns/op
--- FAIL: BenchmarkBroken-2
FAIL	github.com/auditd/auditd/api	1.0s
`
	// The first result reads load 1.5, the second finds none.
	loads := []*float64{new(1.5), nil}
	load := func() *float64 {
		l := loads[0]
		loads = loads[1:]
		return l
	}
	rep, failed, err := parse(strings.NewReader(out), io.Discard, load)
	require.NoError(t, err)
	require.True(t, failed)
	require.Len(t, rep.Results, 2)
	require.Equal(t, Result{Package: "github.com/auditd/auditd/cmd/auditd", Name: "SSEFanout", Runs: 5,
		Metrics: map[string]float64{"ns/op": 205933522, "KiB/conn": 46.23, "clients": 10000}, Load: new(1.5)}, rep.Results[0])
	require.Nil(t, rep.Results[1].Load)
	var md strings.Builder
	writeMarkdown(&md, rep)
	require.Contains(t, md.String(), "| SSEFanout | 46.23 KiB/conn, 10000 clients, 205933522 ns/op | 1.50 |")
	require.Contains(t, md.String(), "| Broken | 100 ns/op | ? |")
}
