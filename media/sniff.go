package media

import (
	"bytes"
)

// HeadSize is how many leading bytes Sniff needs to recognise a format.
const HeadSize = 64

// Format is a recognised audio container.
type Format struct {
	// Name is a short name: wav, mp3, ogg, flac, m4a, webm.
	Name string
	// ContentType is the media type the file is served with.
	ContentType string
}

// Sniff recognises an audio container by the magic bytes at the start of
// head (at least HeadSize bytes, or the whole file if shorter).
func Sniff(head []byte) (Format, bool) {
	switch {
	case len(head) >= 12 && (string(head[:4]) == "RIFF" || string(head[:4]) == "RF64") && string(head[8:12]) == "WAVE":
		return Format{"wav", "audio/wav"}, true
	case bytes.HasPrefix(head, []byte("ID3")) || isMPEGAudioFrame(head):
		return Format{"mp3", "audio/mpeg"}, true
	case bytes.HasPrefix(head, []byte("OggS")):
		return Format{"ogg", "audio/ogg"}, true
	case bytes.HasPrefix(head, []byte("fLaC")):
		return Format{"flac", "audio/flac"}, true
	case len(head) >= 12 && string(head[4:8]) == "ftyp":
		return Format{"m4a", "audio/mp4"}, true
	case bytes.HasPrefix(head, []byte{0x1a, 0x45, 0xdf, 0xa3}):
		return Format{"webm", "audio/webm"}, true
	}
	return Format{}, false
}

// isMPEGAudioFrame recognises an MPEG audio frame header: an 11-bit frame
// sync, a defined version and layer, and a bitrate and sample rate index
// that are not reserved. (AAC ADTS shares the sync but has layer 0.)
func isMPEGAudioFrame(b []byte) bool {
	if len(b) < 4 || b[0] != 0xff || b[1]&0xe0 != 0xe0 {
		return false
	}
	version, layer := (b[1]>>3)&3, (b[1]>>1)&3
	bitrate, rate := b[2]>>4, (b[2]>>2)&3
	return version != 1 && layer != 0 && bitrate != 15 && rate != 3
}
