package server

import (
	"encoding/json"
	"strings"
	"testing"
)

// An answer that cannot be encoded (raw JSON that is not JSON: the engine
// checks what runners send, so only a bug gets here) is still valid JSON,
// an error object that says so, not a panic that cuts the answer short.
func TestMustJSONNeverPanics(t *testing.T) {
	got := mustJSON(struct {
		Args json.RawMessage `json:"args"`
	}{json.RawMessage(`{"a":`)})
	var v struct {
		Error struct{ Code, Message string }
	}
	if err := json.Unmarshal(got, &v); err != nil {
		t.Fatalf("%s is not JSON: %v", got, err)
	}
	if v.Error.Code != "runtime_error" || !strings.Contains(v.Error.Message, "could not encode") {
		t.Errorf("got %s", got)
	}
	if got := string(mustJSON(map[string]string{"svg": "<g>"})); got != `{"svg":"<g>"}` {
		t.Errorf("plain value: %s", got)
	}
}
