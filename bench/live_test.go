package bench_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/codemode-dev/codemode/bench"
	"github.com/codemode-dev/codemode/bench/scenarios"
	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/tools/whiteboard"
)

// fakeProvider is an OpenAI-compatible chat completions endpoint whose
// answers come from the scenarios' scripted models: the live path end to
// end, without a network. It reports usage as a quarter of the request's
// bytes in and 7 tokens out.
type fakeProvider struct {
	t      *testing.T
	mu     sync.Mutex
	models map[string]bench.Model // scenario + strategy: the run under way
	auth   []string
	turns  int
	// maxTools, if set, is the most tools a request may carry, as
	// OpenAI's 128: a request with more is refused.
	maxTools int
}

func (f *fakeProvider) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
		http.Error(w, `{"error":{"message":"no such endpoint"}}`, http.StatusNotFound)
		return
	}
	data, _ := io.ReadAll(r.Body)
	var req struct {
		Model    string              `json:"model"`
		Messages []bench.Message     `json:"messages"`
		Tools    []engine.OpenAITool `json:"tools"`
	}
	if err := json.Unmarshal(data, &req); err != nil || req.Model != "fake-model" || len(req.Messages) < 2 {
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	if f.maxTools > 0 && len(req.Tools) > f.maxTools {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":{"message":"Invalid 'tools': array too long. Expected an array with maximum length %d, but got an array with length %d instead."}}`, f.maxTools, len(req.Tools))
		return
	}
	strategy := bench.PerCall
	if len(req.Tools) == 1 {
		switch req.Tools[0].Function.Name {
		case "batch":
			strategy = bench.Batch
		case "execute_code":
			strategy = bench.Code
		}
	}
	var sc *bench.Scenario
	for _, s := range scenarios.All() {
		if s.Task == req.Messages[1].Content {
			sc = &s
		}
	}
	if sc == nil {
		http.Error(w, `{"error":{"message":"unknown task"}}`, http.StatusBadRequest)
		return
	}
	key := sc.Name + "/" + string(strategy)
	if len(req.Messages) == 2 { // a run's first turn
		f.models[key] = sc.Scripted(strategy)
	}
	reply, err := f.models[key].Complete(r.Context(), bench.Request{Messages: req.Messages, Tools: req.Tools})
	if err != nil {
		http.Error(w, `{"error":{"message":"scripted model: `+err.Error()+`"}}`, http.StatusInternalServerError)
		return
	}
	f.turns++
	msg := map[string]any{"role": "assistant", "content": nil, "tool_calls": reply.Message.ToolCalls}
	if reply.Message.Content != "" {
		msg["content"] = reply.Message.Content
	}
	json.NewEncoder(w).Encode(map[string]any{
		"id":      "chatcmpl-1",
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": "stop"}},
		"usage":   map[string]int{"prompt_tokens": len(data) / 4, "completion_tokens": 7},
	})
}

func newEngine(t *testing.T) *engine.Engine {
	t.Helper()
	eng, err := engine.NewBuilder().Add(whiteboard.Tools(nil)...).Build()
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

// scenariosNamed is the whiteboard's scenario of that name.
func scenariosNamed(name string) []bench.Scenario {
	return slices.DeleteFunc(scenarios.All(), func(s bench.Scenario) bool { return s.Name != name })
}

// TestLiveAgainstAFakeEndpoint: the live model runs every strategy of a
// scenario through an OpenAI-compatible endpoint, with the key as a bearer
// token, and the provider's usage is what the report counts.
func TestLiveAgainstAFakeEndpoint(t *testing.T) {
	f := &fakeProvider{t: t, models: map[string]bench.Model{}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	model, err := bench.NewOpenAIModel(bench.OpenAIOptions{BaseURL: srv.URL + "/v1/", Model: "fake-model", APIKey: "sk-test"})
	if err != nil {
		t.Fatal(err)
	}
	retro := scenariosNamed("retro")
	rep, err := bench.Run(t.Context(), bench.Config{
		Engine:    newEngine(t),
		Model:     func(bench.Strategy) bench.Model { return model },
		ModelName: "fake-model",
		Repeat:    2,
	}, retro)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Model != "fake-model" || len(rep.Results) != 6 {
		t.Fatalf("model %q, %d results", rep.Model, len(rep.Results))
	}
	turns := 0
	for _, r := range rep.Results {
		if !r.Correct {
			t.Errorf("%s/%s: %s", r.Scenario, r.Strategy, r.Failure)
		}
		if r.OutputTokens != 7*r.Turns {
			t.Errorf("%s/%s: %d output tokens in %d turns, want the provider's 7 a turn", r.Scenario, r.Strategy, r.OutputTokens, r.Turns)
		}
		turns += r.Turns
	}
	for _, s := range rep.Strategies {
		if s.Runs != 2 || s.Correct != 2 {
			t.Errorf("%s: %d of %d correct", s.Strategy, s.Correct, s.Runs)
		}
	}
	if f.turns != turns {
		t.Errorf("the endpoint answered %d turns, the report counts %d", f.turns, turns)
	}
	for _, a := range f.auth {
		if a != "Bearer sk-test" {
			t.Fatalf("Authorization %q", a)
		}
	}
}

// TestLiveErrors: a provider's refusal of the first request stops the
// bench with its message (no run measured); a bad base URL is refused up
// front.
func TestLiveErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error":{"message":"Incorrect API key provided"}}`)
	}))
	defer srv.Close()
	model, err := bench.NewOpenAIModel(bench.OpenAIOptions{BaseURL: srv.URL, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := bench.Run(t.Context(), bench.Config{
		Engine:     newEngine(t),
		Model:      func(bench.Strategy) bench.Model { return model },
		Strategies: []bench.Strategy{bench.Code},
	}, scenarios.All()[:1])
	var me *bench.ModelError
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "HTTP 401: Incorrect API key provided") || len(rep.Results) != 0 {
		t.Errorf("a refused first request: %v, %d results", err, len(rep.Results))
	}
	if _, err := bench.NewOpenAIModel(bench.OpenAIOptions{BaseURL: "api.example.com", Model: "m"}); err == nil {
		t.Error("a base URL without a scheme was taken")
	}
}

// TestLiveRequestTooBig: an endpoint that refuses per-call's request, too
// many tools for it (as a catalog's 1,223 are for OpenAI's 128), fails
// per-call's runs, their request's tokens counted, and the bench goes
// on: its first request is the smallest, which the endpoint takes.
func TestLiveRequestTooBig(t *testing.T) {
	f := &fakeProvider{t: t, models: map[string]bench.Model{}, maxTools: 5}
	srv := httptest.NewServer(f)
	defer srv.Close()
	model, err := bench.NewOpenAIModel(bench.OpenAIOptions{BaseURL: srv.URL + "/v1", Model: "fake-model"})
	if err != nil {
		t.Fatal(err)
	}
	retro := scenariosNamed("retro")
	rep, err := bench.Run(t.Context(), bench.Config{
		Engine: newEngine(t),
		Model:  func(bench.Strategy) bench.Model { return model },
	}, retro)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rep.Results {
		got = append(got, string(r.Strategy))
		switch {
		case r.Strategy != bench.PerCall && !r.Correct:
			t.Errorf("%s: %s", r.Strategy, r.Failure)
		case r.Strategy == bench.PerCall && (r.Correct || !strings.Contains(r.Failure, "the model, turn 1: ") || !strings.Contains(r.Failure, "HTTP 400: Invalid 'tools': array too long")):
			t.Errorf("per-call: correct %v, failure %q", r.Correct, r.Failure)
		case r.Strategy == bench.PerCall && (r.InputTokens <= 0 || r.MaxInputTokens != r.InputTokens):
			t.Errorf("per-call's refused request: %d tokens in, the largest %d", r.InputTokens, r.MaxInputTokens)
		}
	}
	if want := []string{"per-call", "batch", "code"}; !slices.Equal(got, want) {
		t.Errorf("runs %v, want %v in the report's order", got, want)
	}
}
