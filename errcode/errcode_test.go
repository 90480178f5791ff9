package errcode_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/auditd/auditd/errcode"
)

func TestOf(t *testing.T) {
	t.Parallel()
	notFound := errcode.New(errcode.NotFound, "no task %s", "t1")
	require.Equal(t, "no task t1", notFound.Error())
	require.Equal(t, errcode.Code(""), errcode.Of(nil))
	require.Equal(t, errcode.Internal, errcode.Of(errors.New("pq: boom")), "an error without a code is internal")
	require.Equal(t, errcode.NotFound, errcode.Of(fmt.Errorf("load: %w", notFound)), "the code survives wrapping")
	require.True(t, errcode.Is(notFound, errcode.NotFound))

	// A not-found that means the installation is broken is internal: the
	// outermost code wins, and the cause stays for the log.
	broken := errcode.Wrap(errcode.Internal, notFound, "the default campaign is missing")
	require.Equal(t, errcode.Internal, errcode.Of(broken))
	require.ErrorIs(t, broken, notFound)
	require.Equal(t, "the default campaign is missing: no task t1", broken.Error())
}

func TestProblems(t *testing.T) {
	t.Parallel()
	err := fmt.Errorf("open: %w", errcode.New(errcode.Invalid, "the dispute has %d problem(s)", 1).
		WithProblems(errcode.Problem{Location: "body.items[0].comment", Message: "is empty"}))
	require.Equal(t, errcode.Invalid, errcode.Of(err))
	require.Equal(t, "the dispute has 1 problem(s)", errcode.Message(err), "the message, without what wraps it")
	e, ok := errors.AsType[*errcode.Error](err)
	require.True(t, ok)
	require.Equal(t, []errcode.Problem{{Location: "body.items[0].comment", Message: "is empty"}}, e.Problems)
	require.Equal(t, "pq: boom", errcode.Message(errors.New("pq: boom")))
}
