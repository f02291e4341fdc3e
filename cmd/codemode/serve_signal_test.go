//go:build unix

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A second SIGINT (or SIGTERM) while the runs under way have their time to
// finish stops the server at once: the run is canceled, saying the server is
// shutting down, and is rolled back; the process exits 0 within moments.
func TestServeSecondSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			data := t.TempDir()
			s := startServe(t, "--addr", "127.0.0.1:0", "--data", data)
			if code, body := s.do(t, "POST", "/v1/boards", `{"id": "demo"}`); code != 201 {
				t.Fatalf("create: %d %s", code, body)
			}
			// A script that draws, then works for a minute: far longer than
			// the 10 s a graceful stop gives it.
			script := `await tools.createStickyNote({text: "never kept", x: 0, y: 0});
const t0 = Date.now(); while (Date.now() - t0 < 60000) {}
return "done";`
			// Watch the board, to know when the script has drawn.
			watch, err := http.Get(s.base + "/v1/boards/demo/events")
			if err != nil {
				t.Fatal(err)
			}
			defer watch.Body.Close()
			body, _ := json.Marshal(map[string]string{"code": script})
			answer := make(chan string, 1)
			go func() {
				req, _ := http.NewRequest("POST", s.base+"/v1/boards/demo/execute", bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					answer <- err.Error()
					return
				}
				data, _ := io.ReadAll(res.Body)
				res.Body.Close()
				answer <- string(data)
			}()
			drawn := make(chan bool, 1)
			go func() {
				sc := bufio.NewScanner(watch.Body)
				sc.Buffer(nil, 1<<20)
				for sc.Scan() {
					if sc.Text() == "event: tool_call_end" {
						drawn <- true
						return
					}
				}
				drawn <- false
			}()
			select {
			case ok := <-drawn:
				if !ok {
					t.Fatalf("the board's stream ended before the script drew:\n%s", s.stderr.String())
				}
			case <-time.After(20 * time.Second):
				t.Fatalf("the script did not draw within 20 s:\n%s", s.stderr.String())
			}
			s.cmd.Process.Signal(sig)
			for deadline := time.Now().Add(10 * time.Second); !strings.Contains(s.stderr.String(), "codemode: shutting down"); time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("no shutting down line:\n%s", s.stderr.String())
				}
			}
			start := time.Now()
			s.cmd.Process.Signal(sig)
			code := s.wait(t, sig)
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("the second %v took %v to stop the server", sig, took)
			}
			if code != 0 || !strings.Contains(s.stderr.String(), "codemode: stopped at once by a second signal: runs under way were canceled\n") {
				t.Errorf("exit %d:\n%s", code, s.stderr.String())
			}
			if got := <-answer; !strings.Contains(got, `"code": "canceled"`) || !strings.Contains(got, `"message": "the server is shutting down"`) {
				t.Errorf("the run's answer: %s", got)
			}
			s = startServe(t, "--addr", "127.0.0.1:0", "--data", data)
			if _, board := s.do(t, "GET", "/v1/boards/demo", ""); len(objectTexts(t, board)) != 0 {
				t.Errorf("the canceled run's sticky was kept: %s", board)
			}
			s.stop(t, syscall.SIGTERM)
		})
	}
}
