package wasmtool

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/codemode-dev/codemode/sandbox/worker"
)

// TestWorkersFuncErrorFailsThatCall: Options.WorkersFunc says "an
// error fails that call". A pool that could not start once (a transient
// fork failure, say) must not fail every later call of the tool for the
// life of the process: the next call asks WorkersFunc again.
func TestWorkersFuncErrorFailsThatCall(t *testing.T) {
	var asked atomic.Int32
	l, err := NewLoader(context.Background(), Options{WorkersFunc: func() (*worker.Pool, error) {
		asked.Add(1)
		return nil, errors.New("fork: resource temporarily unavailable")
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close(context.Background())
	tool := loadEmbedded(t, l, echoManifest, (&counted{bin: fixtureBytes(t, "echo")}).source())
	for range 2 {
		if _, err := tool.Handler(context.Background(), []byte(`{}`)); err == nil {
			t.Fatal("no error")
		}
	}
	if n := asked.Load(); n != 2 {
		t.Errorf("WorkersFunc asked %d times over 2 calls: its error failed every later call, not that call", n)
	}
}
