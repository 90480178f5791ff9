package transcript

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// ChatEngine is the Engine of a transcript parsed from a chat.
const ChatEngine = "chat"

// Chat transcript formats ParseChat reads.
const (
	ChatJSON = "json"
	ChatText = "text"
)

// ErrNotChat is returned (wrapped with the reason) by ParseChat when the
// content is not a chat transcript.
var ErrNotChat = errors.New("not a chat transcript")

// Limits of a chat transcript: many times what one contact-centre
// interaction holds, and what the service reads, stores, audits and answers
// in bounded memory.
const (
	// MaxChatBytes bounds the file, which is parsed in memory.
	MaxChatBytes = 4 << 20
	// MaxChatTurns bounds its turns.
	MaxChatTurns = 5000
	// MaxChatChars bounds the characters of all its turns' text.
	MaxChatChars = 500_000
)

// TooLargeError is returned by ParseChat for a chat over MaxChatTurns or
// MaxChatChars.
type TooLargeError struct {
	What         string // "turns" or "characters"
	Count, Limit int
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("it has %d %s; the limit is %d", e.Count, e.What, e.Limit)
}

// ParseChat reads a chat transcript, UTF-8 in one of two forms: a JSON list
// of turns {"speaker", "text", "timestamp"?}, or lines "Speaker: text"
// (optionally after a time such as "[10:02:03]"; a line without a speaker
// continues the previous turn). Speakers are mapped to Agent or Customer by
// their label ("Agente", "Cliente", "Customer"…), keeping the label in Name;
// in a two-party chat where only one label is recognised, the other party
// is the opposite role. Timestamps become Start, in seconds: a number is
// taken as is, [HH:]MM:SS as an offset, and RFC 3339 times as seconds
// after the chat's first one. It returns the transcript and its format
// (ChatJSON or ChatText), or an error wrapping ErrNotChat that says what is
// wrong when b is neither form, or a *TooLargeError.
func ParseChat(b []byte) (Transcript, string, error) {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(b) {
		return Transcript{}, "", fmt.Errorf("%w: it is not UTF-8 text", ErrNotChat)
	}
	if bytes.IndexByte(b, 0) >= 0 {
		return Transcript{}, "", fmt.Errorf("%w: it contains NUL bytes", ErrNotChat)
	}
	var segments []Segment
	var err error
	format := ChatText
	trimmed := bytes.TrimSpace(b)
	if bytes.HasPrefix(trimmed, []byte("[")) && json.Valid(trimmed) {
		format = ChatJSON
		segments, err = parseJSONChat(trimmed)
	} else {
		segments, err = parseTextChat(string(b))
	}
	if err != nil {
		return Transcript{}, "", err
	}
	if len(segments) > MaxChatTurns {
		return Transcript{}, "", &TooLargeError{What: "turns", Count: len(segments), Limit: MaxChatTurns}
	}
	assignSpeakers(segments)
	texts := make([]string, len(segments))
	chars := 0
	for i, s := range segments {
		texts[i] = s.Text
		chars += utf8.RuneCountInString(s.Text)
	}
	if chars > MaxChatChars {
		return Transcript{}, "", &TooLargeError{What: "characters", Count: chars, Limit: MaxChatChars}
	}
	return Transcript{Text: strings.Join(texts, "\n"), Segments: segments, Engine: ChatEngine}, format, nil
}

type turn struct {
	Speaker   *string         `json:"speaker"`
	Text      *string         `json:"text"`
	Timestamp json.RawMessage `json:"timestamp"`
}

func parseJSONChat(b []byte) ([]Segment, error) {
	var turns []turn
	if err := json.Unmarshal(b, &turns); err != nil {
		return nil, fmt.Errorf("%w: the JSON is not a list of turns {speaker, text, timestamp?}: %v", ErrNotChat, err)
	}
	if len(turns) == 0 {
		return nil, fmt.Errorf("%w: the list of turns is empty", ErrNotChat)
	}
	var clock timestamps
	segments := make([]Segment, 0, len(turns))
	for i, t := range turns {
		if t.Speaker == nil || strings.TrimSpace(*t.Speaker) == "" || t.Text == nil {
			return nil, fmt.Errorf("%w: turn %d has no speaker or no text", ErrNotChat, i+1)
		}
		if strings.ContainsRune(*t.Speaker+*t.Text, 0) {
			return nil, fmt.Errorf("%w: turn %d contains a NUL character (\\u0000), which is not text", ErrNotChat, i+1)
		}
		s := Segment{Name: strings.TrimSpace(*t.Speaker), Text: strings.TrimSpace(*t.Text)}
		if len(t.Timestamp) > 0 && string(t.Timestamp) != "null" {
			var err error
			if s.Start, err = clock.parseJSON(t.Timestamp); err != nil {
				return nil, fmt.Errorf("%w: turn %d: %v", ErrNotChat, i+1, err)
			}
		}
		segments = append(segments, s)
	}
	return segments, nil
}

// textTurn matches "Speaker: text", optionally after a time: "[10:02] ",
// "(00:01:02) " or "10:02:03 - ". A speaker starts with a letter and has no
// colon.
var textTurn = regexp.MustCompile(`^(?:[\[(]([^\])]{1,40})[\])]\s*|(\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?)\s+(?:-\s+)?)?(\pL[^:\[\]]{0,63}?)\s*:\s*(.*)$`)

func parseTextChat(s string) ([]Segment, error) {
	var segments []Segment
	// lines are each segment's lines, joined once at the end: joining as
	// they come would copy a long turn once per line.
	var lines [][]string
	var clock timestamps
	for n, line := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		m := textTurn.FindStringSubmatch(line)
		if m == nil {
			if len(segments) == 0 {
				return nil, fmt.Errorf("%w: line %d is not \"Speaker: text\"", ErrNotChat, n+1)
			}
			lines[len(lines)-1] = append(lines[len(lines)-1], line)
			continue
		}
		seg := Segment{Name: strings.TrimSpace(m[3]), Text: strings.TrimSpace(m[4])}
		if ts := m[1] + m[2]; ts != "" {
			var err error
			if seg.Start, err = clock.parse(ts); err != nil {
				return nil, fmt.Errorf("%w: line %d: %v", ErrNotChat, n+1, err)
			}
		}
		segments = append(segments, seg)
		lines = append(lines, []string{seg.Text})
	}
	if len(segments) == 0 {
		return nil, fmt.Errorf("%w: it is empty", ErrNotChat)
	}
	for i := range segments {
		segments[i].Text = strings.TrimSpace(strings.Join(lines[i], "\n"))
	}
	return segments, nil
}

// timestamps turns a chat's timestamps into seconds from its start.
type timestamps struct {
	first *time.Time
}

func (c *timestamps) parseJSON(raw json.RawMessage) (*float64, error) {
	var n float64
	if err := json.Unmarshal(raw, &n); err == nil {
		if n < 0 {
			return nil, fmt.Errorf("timestamp %v is negative", n)
		}
		return &n, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("timestamp %s is neither a number nor a string", raw)
	}
	return c.parse(s)
}

func (c *timestamps) parse(s string) (*float64, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		if c.first == nil {
			c.first = &t
		}
		v := max(t.Sub(*c.first).Seconds(), 0)
		return &v, nil
	}
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return nil, fmt.Errorf("timestamp %q is not seconds, [HH:]MM:SS or an RFC 3339 time", s)
	}
	var v float64
	for i, p := range parts {
		x, err := strconv.ParseFloat(p, 64)
		// ParseFloat also reads "NaN" and "Inf", which no clock shows and
		// JSON cannot store.
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 || (i > 0 && x >= 60) ||
			(i < len(parts)-1 && x != math.Trunc(x)) {
			return nil, fmt.Errorf("timestamp %q is not seconds, [HH:]MM:SS or an RFC 3339 time", s)
		}
		v = v*60 + x
	}
	if math.IsInf(v, 0) {
		return nil, fmt.Errorf("timestamp %q is too large", s)
	}
	return &v, nil
}

// speakerWords name the roles of chat participants, lower case and without
// accents, in the languages of the default scorecard.
var speakerWords = map[string]string{
	"agent": Agent, "agente": Agent, "asesor": Agent, "asesora": Agent, "operator": Agent,
	"operador": Agent, "operadora": Agent, "representative": Agent, "representante": Agent,
	"advisor": Agent, "adviser": Agent, "support": Agent, "soporte": Agent, "ejecutivo": Agent,
	"ejecutiva": Agent, "csr": Agent, "bot": Agent, "assistant": Agent, "asistente": Agent,
	"customer": Customer, "cliente": Customer, "client": Customer, "user": Customer,
	"usuario": Customer, "usuaria": Customer, "caller": Customer, "visitor": Customer,
	"visitante": Customer, "consumer": Customer, "consumidor": Customer, "guest": Customer,
	"contact": Customer, "contacto": Customer,
}

// SpeakerOf maps a participant's label to Agent, Customer or Unknown by
// the first word of it that names a role ("Agente Ana", "Ana (cliente)").
func SpeakerOf(label string) string {
	for _, w := range NormalWords(label) {
		if role, ok := speakerWords[w]; ok {
			return role
		}
	}
	return Unknown
}

func assignSpeakers(segments []Segment) {
	roles := map[string]string{}
	for _, s := range segments {
		roles[s.Name] = SpeakerOf(s.Name)
	}
	if len(roles) == 2 {
		var known, unknown []string
		for name, r := range roles {
			if r == Unknown {
				unknown = append(unknown, name)
			} else {
				known = append(known, name)
			}
		}
		if len(known) == 1 && len(unknown) == 1 {
			roles[unknown[0]] = Agent
			if roles[known[0]] == Agent {
				roles[unknown[0]] = Customer
			}
		}
	}
	for i := range segments {
		segments[i].Speaker = roles[segments[i].Name]
	}
}

// MarshalChat writes t's segments as a JSON chat transcript that
// ParseChat reads back: a list of turns {speaker, text, timestamp}, the
// speaker being the participant's label (Name) or else the Speaker, the
// timestamp the segment's start in seconds when it has one.
func MarshalChat(t Transcript) ([]byte, error) {
	type out struct {
		Speaker   string   `json:"speaker"`
		Text      string   `json:"text"`
		Timestamp *float64 `json:"timestamp,omitempty"`
	}
	turns := make([]out, len(t.Segments))
	for i, s := range t.Segments {
		turns[i] = out{Speaker: cmp.Or(s.Name, s.Speaker), Text: s.Text, Timestamp: s.Start}
	}
	return json.MarshalIndent(turns, "", "  ")
}
