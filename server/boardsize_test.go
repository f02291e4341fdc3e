package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/tools/whiteboard"
	"github.com/google/go-cmp/cmp"
)

// executeOn runs a script on board id and returns its result, which must
// be a success.
func executeOn(t *testing.T, h http.Handler, id, code string) any {
	t.Helper()
	res, body := do(t, h, "POST", "/v1/boards/"+id+"/execute", string(mustJSON(map[string]string{"code": code})))
	if res.StatusCode != 200 || res.Header.Get("Codemode-Board-Committed") != "true" {
		t.Fatalf("%d %v\n%.2000s", res.StatusCode, res.Header, body)
	}
	var v struct {
		Success bool
		Result  any
		Error   any
	}
	if err := json.Unmarshal(body, &v); err != nil || !v.Success {
		t.Fatalf("%v %.2000s", err, body)
	}
	return v.Result
}

// stickies is the objects of a board document of n stickies.
func stickies(n int) string {
	objs := make([]string, n)
	for i := range objs {
		objs[i] = fmt.Sprintf(`{"id":"s%d","type":"sticky","x":0,"y":0,"width":1,"height":1}`, i)
	}
	return "[" + strings.Join(objs, ",") + "]"
}

// TestHostileLongStickyText: a script's sticky of a megabyte of text is a
// failed call the script catches (the schema's maxLength), not a board of
// that size.
func TestHostileLongStickyText(t *testing.T) {
	s := newTestServer(t, Options{})
	createBoard(t, s, "b")
	got := executeOn(t, s, "b", `try {
		await tools.createStickyNote({text: "x".repeat(1 << 20), x: 0, y: 0});
		return "created";
	} catch (e) {
		return e.code;
	}`)
	if got != "invalid_args" {
		t.Errorf("the script got %v, want it to catch invalid_args", got)
	}
	if texts := getTexts(t, s, "b"); len(texts) != 0 {
		t.Errorf("board %q", texts)
	}
}

// TestHostileObjectFlood: a script that creates objects in a loop gets a
// tool_error it can catch once the board holds whiteboard.MaxObjects, and
// the board keeps what fitted.
func TestHostileObjectFlood(t *testing.T) {
	s := newTestServer(t, Options{})
	res, body := do(t, s, "POST", "/v1/boards", `{"id":"b","objects":`+stickies(whiteboard.MaxObjects-3)+`}`)
	if res.StatusCode != 201 {
		t.Fatalf("%d %.500s", res.StatusCode, body)
	}
	got := executeOn(t, s, "b", `let made = 0;
	try {
		for (let i = 0; i < 50; i++) {
			await tools.createStickyNote({text: "more", x: 0, y: 0});
			made++;
		}
	} catch (e) {
		return {made, code: e.code, message: e.message};
	}
	return {made};`)
	want := map[string]any{"made": 3.0, "code": "tool_error", "message": "a board holds at most 5000 objects; delete some first"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the script's result (-want +got):\n%s", diff)
	}
	if n := len(getTexts(t, s, "b")); n != whiteboard.MaxObjects {
		t.Errorf("the board holds %d objects, want %d", n, whiteboard.MaxObjects)
	}
}

// TestHostileBoardTooLarge: a run that would make its board larger than
// MaxBoardBytes is not committed: 413 limit_exceeded naming the limit, the
// board as it was, its watchers sent it back; its stream's run_end says so.
func TestHostileBoardTooLarge(t *testing.T) {
	s := newTestServer(t, Options{MaxBoardBytes: 2000})
	ts, c := serveHTTP(t, s)
	res, body := do(t, s, "POST", "/v1/boards", `{"id":"b","objects":[{"id":"s1","type":"sticky","x":0,"y":0,"width":1,"height":1,"text":"keep"}]}`)
	if res.StatusCode != 201 {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	_, sr := watchBoard(t, c, ts.URL, "b")
	next(t, sr)
	big := batchOf(sticky(strings.Repeat("y", 3000), 0))
	const msg = `the run's changes were not saved: board "b" would take %d bytes as JSON, more than this server's limit of 2000 bytes for a board; delete objects or shorten texts, then run again`

	res, body = do(t, s, "POST", "/v1/boards/b/batch", big)
	if res.StatusCode != 413 || res.Header.Get("Codemode-Board-Committed") != "false" || res.Header.Get("Codemode-Board-Version") != "1" {
		t.Fatalf("%d %v %s", res.StatusCode, res.Header, body)
	}
	code, m := errorOf(t, body)
	var n int
	if _, err := fmt.Sscanf(m, msg, &n); err != nil || code != "limit_exceeded" || fmt.Sprintf(msg, n) != m || n <= 2000 {
		t.Errorf("error %s %q", code, m)
	}
	if diff := cmp.Diff([]string{"keep"}, getTexts(t, s, "b")); diff != "" {
		t.Errorf("board (-want +got):\n%s", diff)
	}
	untilEvent(t, sr, "run_end")
	if ev := next(t, sr); ev.Type != "board" || len(ev.decode(t)["objects"].([]any)) != 1 {
		t.Errorf("after the run: %s %s", ev.Type, ev.Data)
	}

	// Streamed: run_end carries the error in "board".
	sres := post(t, c, ts.URL+"/v1/boards/b/batch", big, "Accept", "text/event-stream")
	defer sres.Body.Close()
	end := untilEvent(t, newSSEReader(sres.Body), "run_end")
	var ev struct {
		Board struct {
			Version   int64
			Committed bool
			Error     struct{ Code, Message string }
		}
	}
	if json.Unmarshal([]byte(end.Data), &ev); ev.Board.Version != 1 || ev.Board.Committed || ev.Board.Error.Code != "limit_exceeded" || !strings.Contains(ev.Board.Error.Message, "limit of 2000 bytes") {
		t.Errorf("run_end %s", end.Data)
	}

	// Under the limit, runs are kept as ever.
	if res, body := do(t, s, "POST", "/v1/boards/b/batch", batchOf(sticky("small", 0))); res.StatusCode != 200 || res.Header.Get("Codemode-Board-Committed") != "true" {
		t.Errorf("%d %v %s", res.StatusCode, res.Header, body)
	}
}

// TestHostileCreateBoardTooLarge: POST /v1/boards with a document over
// MaxBoardBytes is a 413, over the whiteboard's limits a 400, and no board
// is made.
func TestHostileCreateBoardTooLarge(t *testing.T) {
	s := newTestServer(t, Options{MaxBoardBytes: 2000})
	for _, c := range []struct {
		objects, code, msg string
		status             int
	}{
		{`[{"id":"s1","type":"sticky","x":0,"y":0,"width":1,"height":1,"text":"` + strings.Repeat("z", 3000) + `"}]`,
			"limit_exceeded", "the board would take 3084 bytes as JSON, more than this server's limit of 2000 bytes for a board; send fewer objects or shorter texts", 413},
		{stickies(whiteboard.MaxObjects + 1), "bad_request", "objects: 5001 objects, more than the 5000 a board holds", 400},
	} {
		res, body := do(t, s, "POST", "/v1/boards", `{"id":"b","objects":`+c.objects+`}`)
		if res.StatusCode != c.status {
			t.Fatalf("%d %.500s", res.StatusCode, body)
		}
		if code, msg := errorOf(t, body); code != c.code || msg != c.msg {
			t.Errorf("error %s %q, want %s %q", code, msg, c.code, c.msg)
		}
		if res, body := do(t, s, "GET", "/v1/boards/b", ""); res.StatusCode != 404 {
			t.Errorf("the board was made: %d %.300s", res.StatusCode, body)
		}
	}
}
