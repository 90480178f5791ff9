package api

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// BenchmarkUpload1GiB uploads a 1 GiB WAV through the API (multipart,
// SHA-256, blob store on disk, ffprobe) and copies the same file on the same
// disk twice: as cp does (copy_file_range: the kernel copies, nothing
// crosses into user space) and as a program that reads and writes it does
// (1 MiB read/write calls, as the upload's own writes are). It reports the
// throughputs, their ratios, and how much the process's peak RSS grew during
// the upload. Goals: rss-growth < 64 MiB, upload ≥ half the copy. The client
// runs in the same process, so the RSS figure bounds the server's from
// above, and both share the machine's cores.
func BenchmarkUpload1GiB(b *testing.B) {
	const size = 1 << 30
	bundle := setup(b, setupOpts{upload: UploadLimits{MaxFileBytes: 2 << 30}})
	token := bundle.issuer.token(b, "qa", "quality")
	src := filepath.Join(b.TempDir(), "big.wav")
	writeWAV(b, src, size)
	dst := filepath.Join(filepath.Dir(src), "copy.wav")

	var uploadTime, copyTime, rwTime time.Duration
	var growth int64
	b.ResetTimer()
	for i := range b.N {
		// Each round's content differs, or it would be a duplicate.
		f, err := os.OpenFile(src, os.O_WRONLY, 0)
		require.NoError(b, err)
		_, err = f.WriteAt(binary.LittleEndian.AppendUint64(nil, uint64(time.Now().UnixNano())+uint64(i)), 44)
		require.NoError(b, err)
		require.NoError(b, f.Close())

		// Each phase starts with nothing left to write back, so neither
		// pays for the other's dirty pages.
		syscall.Sync()
		start := time.Now()
		copyFile(b, src, dst)
		copyTime += time.Since(start)
		require.NoError(b, os.Remove(dst))

		syscall.Sync()
		start = time.Now()
		readWriteFile(b, src, dst)
		rwTime += time.Since(start)
		require.NoError(b, os.Remove(dst))

		syscall.Sync()
		resetPeakRSS(b)
		before := procStatus(b, "VmRSS")
		start = time.Now()
		id := uploadFromDisk(b, bundle, token, src)
		uploadTime += time.Since(start)
		growth = max(growth, procStatus(b, "VmHWM")-before)

		// Keep the disk from filling over many rounds.
		var key string
		require.NoError(b, bundle.pool.QueryRow(context.Background(), "SELECT blob_key FROM tasks WHERE uuid = $1", id).Scan(&key))
		require.NoError(b, bundle.store.Delete(context.Background(), key))
	}
	b.StopTimer()
	mb := float64(size) * float64(b.N) / 1e6
	b.ReportMetric(mb/uploadTime.Seconds(), "upload-MB/s")
	b.ReportMetric(mb/copyTime.Seconds(), "copy-MB/s")
	b.ReportMetric(mb/rwTime.Seconds(), "readwrite-MB/s")
	b.ReportMetric(copyTime.Seconds()/uploadTime.Seconds(), "upload/copy")
	b.ReportMetric(rwTime.Seconds()/uploadTime.Seconds(), "upload/readwrite")
	b.ReportMetric(float64(growth)/(1<<20), "rss-growth-MiB")
}

// writeWAV writes a 16-bit mono 16 kHz WAV of size bytes, its samples noise.
func writeWAV(b *testing.B, path string, size int64) {
	f, err := os.Create(path)
	require.NoError(b, err)
	defer f.Close()
	data := uint32(size - 44)
	h := []byte("RIFF")
	h = binary.LittleEndian.AppendUint32(h, data+36)
	h = append(h, "WAVEfmt "...)
	h = binary.LittleEndian.AppendUint32(h, 16)
	h = binary.LittleEndian.AppendUint16(h, 1)       // PCM
	h = binary.LittleEndian.AppendUint16(h, 1)       // mono
	h = binary.LittleEndian.AppendUint32(h, 16000)   // sample rate
	h = binary.LittleEndian.AppendUint32(h, 16000*2) // byte rate
	h = binary.LittleEndian.AppendUint16(h, 2)       // block align
	h = binary.LittleEndian.AppendUint16(h, 16)      // bits
	h = append(append(h, "data"...), binary.LittleEndian.AppendUint32(nil, data)...)
	_, err = f.Write(h)
	require.NoError(b, err)
	chunk := make([]byte, 1<<20)
	rng := rand.NewChaCha8([32]byte{1})
	for left := int64(data); left > 0; left -= int64(len(chunk)) {
		_, _ = rng.Read(chunk)
		_, err := f.Write(chunk[:min(left, int64(len(chunk)))])
		require.NoError(b, err)
	}
}

// copyFile copies as cp does (the kernel copies when it can).
func copyFile(b *testing.B, src, dst string) {
	in, err := os.Open(src)
	require.NoError(b, err)
	defer in.Close()
	out, err := os.Create(dst)
	require.NoError(b, err)
	_, err = io.Copy(out, in)
	require.NoError(b, err)
	require.NoError(b, out.Close())
}

// readWriteFile copies through a 1 MiB buffer in user space.
func readWriteFile(b *testing.B, src, dst string) {
	in, err := os.Open(src)
	require.NoError(b, err)
	defer in.Close()
	out, err := os.Create(dst)
	require.NoError(b, err)
	// The wrappers hide ReadFrom and WriteTo, which would let the kernel copy.
	_, err = io.CopyBuffer(struct{ io.Writer }{out}, struct{ io.Reader }{in}, make([]byte, 1<<20))
	require.NoError(b, err)
	require.NoError(b, out.Close())
}

// uploadFromDisk streams path as one multipart file part, as the CLI does,
// and returns the new task's id.
func uploadFromDisk(b *testing.B, bundle *testBundle, token, path string) string {
	f, err := os.Open(path)
	require.NoError(b, err)
	defer f.Close()
	info, err := f.Stat()
	require.NoError(b, err)
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	_, err = mw.CreateFormFile("files", filepath.Base(path))
	require.NoError(b, err)
	head := bytes.Clone(buf.Bytes())
	buf.Reset()
	require.NoError(b, mw.Close())
	req, err := http.NewRequest(http.MethodPost, bundle.http.URL+"/tasks/upload", io.MultiReader(bytes.NewReader(head), f, &buf))
	require.NoError(b, err)
	req.ContentLength = int64(len(head)) + info.Size() + int64(buf.Len())
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	require.NoError(b, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(b, err)
	require.Equal(b, http.StatusAccepted, res.StatusCode, string(body))
	i := bytes.Index(body, []byte(`"uuid":"`))
	require.GreaterOrEqual(b, i, 0, string(body))
	return string(body[i+8 : i+8+36])
}

// resetPeakRSS resets the process's VmHWM to its current RSS.
func resetPeakRSS(b *testing.B) {
	require.NoError(b, os.WriteFile("/proc/self/clear_refs", []byte("5"), 0))
}

// procStatus reads a size field of /proc/self/status, in bytes.
func procStatus(b *testing.B, field string) int64 {
	status, err := os.ReadFile("/proc/self/status")
	require.NoError(b, err)
	for line := range strings.SplitSeq(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			require.NoError(b, err)
			return kb << 10
		}
	}
	b.Fatalf("no %s in /proc/self/status", field)
	return 0
}

// BenchmarkLargestChat uploads the largest chat an upload accepts
// (transcript.MaxChatTurns turns, transcript.MaxChatChars characters) and
// then reads it back with eight concurrent GET /tasks/{uuid}, reporting how
// much the process's peak RSS grew during each (rss-growth-MiB: the upload,
// read-rss-growth-MiB: the eight reads). The baseline is the same for an
// ordinary 40-turn chat, measured in the same iterations. Goal: both
// growths of the largest chat under 64 MiB. Client and server share the
// process, so the figures bound the server's from above.
func BenchmarkLargestChat(b *testing.B) {
	bundle := setup(b)
	token := bundle.issuer.token(b, "qa", "quality")
	path := filepath.Join(b.TempDir(), "chat.txt")
	measure := func(content []byte) (upload, read int64) {
		require.NoError(b, os.WriteFile(path, content, 0o600))
		runtime.GC()
		resetPeakRSS(b)
		before := procStatus(b, "VmRSS")
		id := uploadFromDisk(b, bundle, token, path)
		upload = procStatus(b, "VmHWM") - before

		runtime.GC()
		resetPeakRSS(b)
		before = procStatus(b, "VmRSS")
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				req, _ := http.NewRequest(http.MethodGet, bundle.http.URL+"/tasks/"+id, nil)
				req.Header.Set("Authorization", "Bearer "+token)
				res, err := http.DefaultClient.Do(req)
				if err == nil {
					_, _ = io.Copy(io.Discard, res.Body)
					_ = res.Body.Close()
				}
			})
		}
		wg.Wait()
		read = procStatus(b, "VmHWM") - before
		return upload, read
	}
	largest := largestChat()
	end := bytes.IndexByte(largest, '.') // each round's chat differs, or it would be a duplicate
	var up, read, smallUp, smallRead int64
	b.ResetTimer()
	for i := range b.N {
		largest[end] = byte('a' + i%26)
		u, r := measure(largest)
		up, read = max(up, u), max(read, r)
		u, r = measure(chatOf(40, 80+i))
		smallUp, smallRead = max(smallUp, u), max(smallRead, r)
	}
	b.StopTimer()
	mib := func(n int64) float64 { return float64(n) / (1 << 20) }
	b.ReportMetric(mib(up), "rss-growth-MiB")
	b.ReportMetric(mib(read), "read-rss-growth-MiB")
	b.ReportMetric(mib(smallUp), "40turns-rss-growth-MiB")
	b.ReportMetric(mib(smallRead), "40turns-read-rss-growth-MiB")
	b.ReportMetric(float64(len(largest))/(1<<20), "chat-MiB")
}
