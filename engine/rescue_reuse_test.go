package engine_test

import (
	"context"
	"encoding/json"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/engine"
)

// A scope's rescueAll snapshots live records, then rescues them one by one.
// A record in the snapshot that completes normally meanwhile goes back to the
// pool; if another scope's call takes it, the stale rescue completes THAT call.
func TestScopeRescueNeverTouchesAReusedRecord(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	releaseHold := make(chan struct{})
	victimStarted := make(chan struct{}, 1)
	victimRelease := make(chan struct{})
	inRescue := make(chan struct{})
	proceed := make(chan struct{})
	var once sync.Once
	obs := engine.ObserverFunc(func(ctx context.Context, e engine.Event) {
		if e.Type == engine.EventToolCallEnd && e.Tool == "hold" && e.Error != nil {
			once.Do(func() { close(inRescue); <-proceed })
		}
	})
	raw := func(name string, h engine.Handler) engine.Tool {
		return engine.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`),
			Annotations: engine.Annotations{ReadOnlyHint: true}, Handler: h}
	}
	e, err := engine.NewBuilder().WithObserver(obs).Add(
		raw("hold", func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			<-releaseHold
			return json.RawMessage(`"ok"`), nil
		}),
		raw("victim", func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			victimStarted <- struct{}{}
			<-victimRelease
			return json.RawMessage(`"v"`), nil
		}),
	).Build()
	if err != nil {
		t.Fatal(err)
	}
	batchDone := make(chan *engine.BatchResult)
	go func() {
		req, _ := engine.ParseBatchRequest([]byte(`{"timeout":50,"operations":[{"tool":"hold"},{"tool":"hold"}]}`))
		res, _ := e.Batch(context.Background(), req)
		batchDone <- res
	}()
	<-inRescue
	close(releaseHold)
	time.Sleep(20 * time.Millisecond) // the other hold returns normally: its record goes back to the pool
	callErr := make(chan error)
	go func() {
		_, err := e.Call(context.Background(), "victim", nil)
		callErr <- err
	}()
	<-victimStarted
	close(proceed)
	time.Sleep(20 * time.Millisecond)
	close(victimRelease)
	if err := <-callErr; err != nil {
		t.Errorf("an unrelated Engine.Call failed: %v", err)
	}
	res := <-batchDone
	b, _ := json.Marshal(res.Results)
	t.Logf("batch A: %s", b)
}
