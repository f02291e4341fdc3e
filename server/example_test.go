package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/codemode-dev/codemode/server"
)

// A Go program mounts the server under its own mux, next to its own
// handlers, and shuts it down before its http.Server.
func ExampleNew() {
	srv, err := server.New(server.Options{Store: server.NewMemoryStore()})
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/v1/", srv)
	mux.Handle("/healthz", srv)
	mux.HandleFunc("/hello", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "the app's own") })
	ts := httptest.NewServer(mux)
	defer ts.Close()
	defer http.DefaultClient.CloseIdleConnections()

	// post sends a JSON request and prints the status and how many objects
	// the board in the answer has (a run answers with its result, no board).
	post := func(path, body string) {
		res, err := http.Post(ts.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			panic(err)
		}
		defer res.Body.Close()
		var board struct {
			Objects []struct{ Text string } `json:"objects"`
		}
		json.NewDecoder(res.Body).Decode(&board)
		fmt.Println(path, res.Status, len(board.Objects), "objects")
	}
	post("/v1/boards", `{"id": "demo", "objects": [{"id": "sticky-1", "type": "sticky", "x": 0, "y": 0, "width": 200, "height": 200, "text": "first"}]}`)
	post("/v1/boards/demo/execute", `{"code": "await tools.createStickyNote({text: 'hi', x: 300, y: 0})"}`)
	post("/v1/boards/demo/undo", ``)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		panic(err)
	}
	// Output:
	// /v1/boards 201 Created 1 objects
	// /v1/boards/demo/execute 200 OK 0 objects
	// /v1/boards/demo/undo 200 OK 1 objects
}
