package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/codemode-dev/codemode/engine"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestHTTPUpstreamSendsItsHeaders(t *testing.T) {
	mcpHandler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return testServer() }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer sesame" {
			http.Error(w, "who are you?", http.StatusUnauthorized)
			return
		}
		mcpHandler.ServeHTTP(w, r)
	}))
	defer srv.Close()

	_, err := Connect(context.Background(), "web", engine.MCPServer{URL: srv.URL}, Options{})
	if e := engine.AsError(err, ""); e == nil || e.Code != engine.CodeToolError {
		t.Errorf("without the header: got %v, want a tool_error", err)
	}

	up, err := Connect(context.Background(), "web", engine.MCPServer{URL: srv.URL,
		Headers: map[string]string{"Authorization": "Bearer sesame"}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	eng, err := engine.NewBuilder().Add(up.Tools()...).Build()
	if err != nil {
		t.Fatal(err)
	}
	out, err := eng.Call(context.Background(), "web.add", json.RawMessage(`{"a": 40, "b": 2}`))
	if err != nil || string(out) != `{"sum":42}` {
		t.Errorf("web.add = %s, %v; want {\"sum\":42}", out, err)
	}
}
