//go:build unix

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/codemode-dev/codemode/engine"
)

// A plain codemode serve runs the web app's examples that call the
// built-in WASM tools — graph.ts, and affinity.ts on a board with a retro's
// notes — from the copies the app offers (server/web/static/examples).
func TestServeRunsTheWebAppsWasmExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and compiles two WASM tools")
	}
	s := startServe(t, "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--wasm-cache", t.TempDir())
	if code, body := s.do(t, "POST", "/v1/boards", `{"id": "apps"}`); code != 201 {
		t.Fatalf("POST /v1/boards: %d %s", code, body)
	}
	for _, example := range []string{"graph.ts", "retro.ts", "affinity.ts"} {
		code, err := os.ReadFile(filepath.Join("..", "..", "server", "web", "static", "examples", example))
		if err != nil {
			t.Fatal(err)
		}
		req, _ := json.Marshal(map[string]string{"code": string(code)})
		status, body := s.do(t, "POST", "/v1/boards/apps/execute", string(req))
		var res engine.ExecuteResult
		if err := json.Unmarshal([]byte(body), &res); err != nil || status != 200 || !res.Success {
			t.Errorf("%s: %d %s", example, status, body)
		}
	}
	if code := s.stop(t, syscall.SIGINT); code != 0 {
		t.Errorf("serve exited %d", code)
	}
}
