package ingest

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/auditd/auditd/db"
	"github.com/auditd/auditd/intake"
)

// benchObjects is how many recordings (each with a sidecar) one round
// ingests.
const benchObjects = 50

// wavBytes is a valid 8 kHz mono 16-bit WAV of samples samples, its content
// made distinct by seed.
func wavBytes(seed uint64, samples int) []byte {
	var b bytes.Buffer
	data := samples * 2
	b.WriteString("RIFF")
	_ = binary.Write(&b, binary.LittleEndian, uint32(36+data))
	b.WriteString("WAVEfmt ")
	for _, v := range []any{uint32(16), uint16(1), uint16(1), uint32(8000), uint32(16000), uint16(2), uint16(16)} {
		_ = binary.Write(&b, binary.LittleEndian, v)
	}
	b.WriteString("data")
	_ = binary.Write(&b, binary.LittleEndian, uint32(data))
	x := seed*2654435761 + 1
	for range samples {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		_ = binary.Write(&b, binary.LittleEndian, int16(x%2000))
	}
	return b.Bytes()
}

// BenchmarkIngest ingests a directory of recordings with their sidecars
// (ingest-objects/s: listing, claiming, sidecars, intake and the record of
// each object), against the same number of recordings put through intake
// alone, as an upload of one file each, with the same parallelism
// (intake-objects/s). Goal: ingest ≥ 0.8 of intake alone: what polling
// adds costs under a fifth of what the upload path costs anyway.
func BenchmarkIngest(b *testing.B) {
	ctx := context.Background()
	tb := setup(b)
	var ingestTime, intakeTime time.Duration
	for i := range b.N {
		dir := b.TempDir()
		old := time.Now().Add(-time.Hour)
		for n := range benchObjects {
			p := filepath.Join(dir, fmt.Sprintf("call%04d.wav", n))
			require.NoError(b, os.WriteFile(p, wavBytes(uint64(i*2*benchObjects+n), 8000), 0o644))
			require.NoError(b, os.WriteFile(p[:len(p)-4]+".json",
				fmt.Appendf(nil, `{"agent": "ana", "direction": "inbound", "call_id": "c-%d-%d", "queue": "q"}`, i, n), 0o644))
			require.NoError(b, os.Chtimes(p, old, old))
		}
		src := tb.source(b, fmt.Sprintf("bench %d", i), db.IngestDirectory, dir, db.IngestSourceNew{})
		p := tb.poller()
		p.Now = time.Now
		start := time.Now()
		res, err := p.Poll(ctx, src.ID)
		ingestTime += time.Since(start)
		require.NoError(b, err)
		require.Equal(b, benchObjects, res.Taken, "%+v", res)

		// The baseline: the same work through intake alone.
		files := make([][]byte, benchObjects)
		for n := range files {
			files[n] = wavBytes(uint64(i*2*benchObjects+benchObjects+n), 8000)
		}
		deps := intake.Deps{Deps: db.Deps{Pool: tb.pool, River: tb.river}, Store: tb.store, Log: p.log()}
		start = time.Now()
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(DefaultParallel)
		for n, f := range files {
			g.Go(func() error {
				up := intake.New(deps, intake.Limits{MaxFileBytes: 10 << 20, MaxFiles: 1})
				defer up.Close(gctx)
				if err := up.Add(gctx, fmt.Sprintf("up%04d.wav", n), bytes.NewReader(f)); err != nil {
					return err
				}
				_, err := up.Commit(gctx, intake.Settings{Direction: "inbound", UploadedBy: "qa"})
				return err
			})
		}
		require.NoError(b, g.Wait())
		intakeTime += time.Since(start)
	}
	objects := float64(b.N * benchObjects)
	ingest, alone := objects/ingestTime.Seconds(), objects/intakeTime.Seconds()
	b.ReportMetric(ingest, "ingest-objects/s")
	b.ReportMetric(alone, "intake-objects/s")
	b.ReportMetric(ingest/alone, "ingest/intake")
}
