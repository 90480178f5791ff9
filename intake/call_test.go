package intake

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/errcode"
)

func TestPhoneNumber(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"+34 600 11 22 33": "+34600112233", "tel:+1-415-555-0100": "+14155550100", "(900) 100.200": "900100200", " 112 ": "112",
	} {
		got, ok := PhoneNumber(in)
		require.True(t, ok, in)
		require.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "+", "1", "anonymous", "600+112233", "++34600", "600 11 22 33 ext 4", "600\x00112", strings.Repeat("1", 21)} {
		_, ok := PhoneNumber(in)
		require.False(t, ok, in)
	}
}

// TestSettingsCheck holds the checks an ingest's sidecar gets as an
// upload's fields do: each problem located at the prefix and field.
func TestSettingsCheck(t *testing.T) {
	t.Parallel()
	s := Settings{Direction: "inbound", CallID: " CA-1 ", Caller: "tel:+34 600 11 22 33",
		Metadata: map[string]any{"tier": "gold", "attempt": 2.0, "vip": true}}
	require.NoError(t, s.Check("sidecar."))
	require.Equal(t, "CA-1", s.CallID)
	require.Equal(t, "+34600112233", s.Caller)

	bad := Settings{Direction: "up", Queue: strings.Repeat("q", 201), Called: "nobody",
		Metadata: map[string]any{"nested": map[string]any{"a": 1}}}
	err := bad.Check("sidecar.")
	require.True(t, errcode.Is(err, errcode.Invalid))
	var at []string
	for _, p := range err.(*errcode.Error).Problems {
		at = append(at, p.Location)
	}
	require.Equal(t, []string{"sidecar.direction", "sidecar.queue", "sidecar.called", "sidecar.metadata"}, at)
	for _, m := range []map[string]any{{"n": math.Inf(1)}, {"n": nil}, {"": 1}, {"a=b": 1}, {"l": []any{1}}} {
		require.Error(t, CheckMetadata(m), m)
	}
}
