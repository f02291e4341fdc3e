package wasmtool

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/sandbox/worker"
)

// With Workers, the tools' calls run in worker processes with the same
// outcomes as in process; a runaway tool times out at its manifest's
// timeout there too, and the worker goes on serving.
func TestToolsInWorkers(t *testing.T) {
	pool, err := worker.New(worker.Config{Warm: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	dir := t.TempDir()
	writeTool(t, dir, "echo.tool.json", fixtureManifest("fx.echo", "echo", ""))
	writeTool(t, dir, "rec.tool.json", fixtureManifest("fx.rec", "recursion", `, "timeout": "300ms"`))
	writeTool(t, dir, "hog.tool.json", fixtureManifest("fx.hog", "memhog", `, "memory": "4MiB"`))
	l, err := NewLoader(context.Background(), Options{Workers: pool})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close(context.Background())
	tools, err := l.LoadDir(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]engine.Tool{}
	for _, tool := range tools {
		byName[tool.Name] = tool
	}
	for _, tc := range []struct{ tool, want string }{
		{"fx.echo", `{"a":1}`}, {"fx.rec", "timeout"}, {"fx.hog", "memory_limit"}, {"fx.echo", `{"a":1}`},
	} {
		start := time.Now()
		out, err := byName[tc.tool].Handler(context.Background(), []byte(`{"a":1}`))
		got := string(out)
		var e *engine.Error
		if errors.As(err, &e) {
			got = string(e.Code)
		}
		if got != tc.want {
			t.Errorf("%s: got %s (%v), want %s", tc.tool, got, err, tc.want)
		}
		if took := time.Since(start); took > 3*time.Second {
			t.Errorf("%s: took %v", tc.tool, took)
		}
	}
}
