package rules

import "github.com/auditd/auditd/transcript"

// word locates one normalised word of an audit (transcript.Word) in
// segment seg of its transcript.
type word struct {
	from, to         int32
	normFrom, normTo int32
	seg              int32
}

// appendWords appends the words of segment seg, text, to buf and words,
// as transcript.AppendWords normalises them; scratch is reused between
// calls.
func appendWords(buf []byte, words []word, scratch []transcript.Word, text string, seg int32) ([]byte, []word, []transcript.Word) {
	buf, scratch = transcript.AppendWords(buf, scratch[:0], text)
	for _, w := range scratch {
		words = append(words, word{w.From, w.To, w.NormFrom, w.NormTo, seg})
	}
	return buf, words, scratch
}
