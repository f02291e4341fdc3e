package server

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sseEvent is one server-sent event as a client reads it.
type sseEvent struct {
	ID   string
	Type string
	Data string
}

// decode decodes the event's data.
func (e sseEvent) decode(t *testing.T) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal([]byte(e.Data), &v); err != nil {
		t.Fatalf("event %s: data is not a JSON object: %v\n%s", e.Type, err, e.Data)
	}
	return v
}

// sseReader reads events the way the EventSource specification says: lines
// "field: value" (one optional space after the colon), comments starting
// with ":", an event ending at an empty line, several data lines joined by
// "\n", and no event for a block without data. It is strict where a lax
// parser would hide a bug of the server: an unknown field, a line without a
// colon or a stream ending inside an event are errors.
type sseReader struct {
	r        *bufio.Reader
	comments int // comment lines seen (heartbeats)
}

func newSSEReader(r io.Reader) *sseReader { return &sseReader{r: bufio.NewReader(r)} }

// next returns the next event; io.EOF at a clean end of the stream.
func (s *sseReader) next() (sseEvent, error) {
	var ev sseEvent
	var data []string
	inEvent := false
	for {
		line, err := s.r.ReadString('\n')
		if err != nil {
			if err == io.EOF && line == "" && !inEvent {
				return sseEvent{}, io.EOF
			}
			if err == io.EOF {
				return sseEvent{}, fmt.Errorf("the stream ended inside an event (%q)", line)
			}
			return sseEvent{}, err
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "":
			if data == nil {
				inEvent = false
				continue // a block without data dispatches nothing
			}
			ev.Data = strings.Join(data, "\n")
			if ev.Type == "" {
				ev.Type = "message"
			}
			return ev, nil
		case strings.HasPrefix(line, ":"):
			s.comments++
			continue
		}
		inEvent = true
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return sseEvent{}, fmt.Errorf("line without a colon: %q", line)
		}
		value = strings.TrimPrefix(value, " ")
		switch name {
		case "id":
			ev.ID = value
		case "event":
			ev.Type = value
		case "data":
			data = append(data, value)
		default:
			return sseEvent{}, fmt.Errorf("unknown field %q", name)
		}
	}
}

// readAllSSE reads a whole stream.
func readAllSSE(t *testing.T, r io.Reader) []sseEvent {
	t.Helper()
	sr := newSSEReader(r)
	var out []sseEvent
	for {
		ev, err := sr.next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("reading the stream after %d events: %v", len(out), err)
		}
		out = append(out, ev)
	}
}

func types(evs []sseEvent) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.Type
	}
	return out
}

func TestSSEReader(t *testing.T) {
	in := ": ping\n\nid: a-1\nevent: board\ndata: {\"x\":1}\n\n" +
		"data: one\ndata:two\n\n" +
		"event: empty\n\n" + // no data: nothing dispatched
		": another comment\nevent: last\ndata: \n\n"
	sr := newSSEReader(strings.NewReader(in))
	var got []sseEvent
	for {
		ev, err := sr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ev)
	}
	want := []sseEvent{
		{ID: "a-1", Type: "board", Data: `{"x":1}`},
		{Type: "message", Data: "one\ntwo"},
		{Type: "last", Data: ""},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if sr.comments != 2 {
		t.Errorf("comments = %d, want 2", sr.comments)
	}
	for _, bad := range []string{"event: x\ndata: 1", "nocolon\n\n", "retry: 5\n\n"} {
		if _, err := newSSEReader(strings.NewReader(bad)).next(); err == nil || err == io.EOF {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestFrame checks the server's frames read back as what was sent.
func TestFrame(t *testing.T) {
	data := mustJSON(map[string]string{"text": "two\nlines <and> \"quotes\""})
	f := append(frame("e1-3", "log", data), frame("", "run_end", []byte(`{}`))...)
	got := readAllSSE(t, strings.NewReader(string(f)))
	want := []sseEvent{{ID: "e1-3", Type: "log", Data: string(data)}, {Type: "run_end", Data: "{}"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if strings.Count(string(data), "\n") != 0 {
		t.Errorf("data spans lines: %q", data)
	}
}
