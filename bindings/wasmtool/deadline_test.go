package wasmtool

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/engine"
)

// A tool that runs away without a loop (exponential recursion, fresh and
// pooled) times out at its manifest's timeout, and Loader.Close, called
// while another such call runs, returns at once.
func TestLoopFreeToolsTimeOut(t *testing.T) {
	const limit = 300 * time.Millisecond
	dir := t.TempDir()
	writeTool(t, dir, "rec.tool.json", fixtureManifest("fx.rec", "recursion", `, "timeout": "300ms"`))
	writeTool(t, dir, "pooled.tool.json", fixtureManifest("fx.pooled", "reactor_recursion", `, "timeout": "300ms", "pure": true`))
	writeTool(t, dir, "slow.tool.json", fixtureManifest("fx.slow", "dag", `, "timeout": "10m"`))
	l, err := NewLoader(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	tools, err := l.LoadDir(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools[:2] {
		start := time.Now()
		_, err := tool.Handler(context.Background(), []byte(`{}`))
		var e *engine.Error
		if !errors.As(err, &e) || e.Code != engine.CodeTimeout {
			t.Errorf("%s: got %v, want timeout", tool.Name, err)
		}
		if took := time.Since(start); took > 2*limit {
			t.Errorf("%s: stopped after %v, over twice its limit", tool.Name, took)
		}
	}
	slow := tools[2]
	if slow.Name != "fx.slow" {
		t.Fatalf("third tool is %s, want fx.slow", slow.Name)
	}
	res := make(chan error, 1)
	go func() {
		_, err := slow.Handler(context.Background(), []byte(`{}`))
		res <- err
	}()
	time.Sleep(100 * time.Millisecond)
	err = withinSeconds(t, func() error { return l.Close(context.Background()) })
	if err != nil {
		t.Fatalf("close: %v", err)
	}
	var e *engine.Error
	if err := <-res; !errors.As(err, &e) || e.Code != engine.CodeCanceled {
		t.Errorf("a call running during Close: got %v, want canceled", err)
	}
}
