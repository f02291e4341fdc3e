package server

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// What changes from one run to the next, replaced before comparing.
var volatile = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`"(time|created|updated)":( ?)"[^"]+"`), `"$1":${2}"TIME"`},
	{regexp.MustCompile(`"elapsed_ms":( ?)[0-9.e-]+`), `"elapsed_ms":${1}0`},
	{regexp.MustCompile(`run_[0-9a-z]{13}`), "run_ID"},
	{regexp.MustCompile(`(?m)^id: [0-9a-z]+-`), "id: EPOCH-"},
}

func normalize(data []byte) []byte {
	for _, v := range volatile {
		data = v.re.ReplaceAll(data, []byte(v.with))
	}
	return data
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	got = normalize(got)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got); go test -update rewrites it:\n%s", path, diff)
	}
}

// TestGoldenBoard: the JSON of a board, and of the undo that answers with it.
func TestGoldenBoard(t *testing.T) {
	s := newTestServer(t, Options{})
	res, body := do(t, s, "POST", "/v1/boards", `{"id":"plan","name":"Plan"}`)
	if res.StatusCode != 201 {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	res, body = do(t, s, "POST", "/v1/boards/plan/batch", `{"operations":[
		{"tool":"createFrame","args":{"title":"Ideas","x":0,"y":0,"width":700,"height":400},"label":"f"},
		{"tool":"createStickyNote","args":{"text":"Ship it","x":40,"y":80,"parentId":{"$ref":"f.id"}},"label":"a"},
		{"tool":"createShape","args":{"type":"diamond","text":"Ready?","x":400,"y":80,"width":200,"height":150,"color":"blue","parentId":{"$ref":"f.id"}},"label":"b"},
		{"tool":"createConnector","args":{"fromId":{"$ref":"a.id"},"toId":{"$ref":"b.id"},"label":"then"}}],
		"executionMode":"sequential"}`)
	if res.StatusCode != 200 || res.Header.Get("Codemode-Board-Committed") != "true" {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	_, body = do(t, s, "GET", "/v1/boards/plan", "")
	golden(t, "board.json", body)
}

// TestGoldenStream: a small batch as its own stream and as a watcher of
// its board sees it: every event, the change of each call, run_end with the
// result and the commit.
func TestGoldenStream(t *testing.T) {
	s := newTestServer(t, Options{})
	ts, c := serveHTTP(t, s)
	createBoard(t, s, "plan")
	watch := get(t, c, ts.URL+"/v1/boards/plan/events")
	defer watch.Body.Close()
	sr := newSSEReader(watch.Body)
	next(t, sr) // the empty board
	res := post(t, c, ts.URL+"/v1/boards/plan/batch", `{"operations":[
		{"tool":"createStickyNote","args":{"text":"Hello","x":0,"y":0},"label":"hello"},
		{"tool":"updateText","args":{"objectId":{"$ref":"hello.id"},"text":"Hello, board"}}],
		"executionMode":"sequential"}`, "Accept", "text/event-stream")
	own, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("%d %v", res.StatusCode, err)
	}
	golden(t, "batch-stream.txt", own)
	var watched []byte
	for {
		ev := next(t, sr)
		watched = append(watched, frame(ev.ID, ev.Type, []byte(ev.Data))...)
		if ev.Type == "run_end" {
			break
		}
	}
	golden(t, "batch-board-stream.txt", watched)
}
