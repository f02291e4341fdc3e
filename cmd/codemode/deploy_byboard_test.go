//go:build unix

package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/internal/pgtest"
	"github.com/codemode-dev/codemode/server/clustertest"
)

// TestDeployNginxByBoard runs docs/deploy.md's configuration with its
// upstream routing by board in front of two replicas on one database:
// every request about a board goes to one replica (X-Upstream, as in
// TestDeployNginx), the boards spread over both, and a board's events
// stream live through it.
func TestDeployNginxByBoard(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and starts nginx")
	}
	nginx := nginxBinary(t)
	const token = "deploy-test-token-0123456789"
	store := pgtest.URL(t)
	a := startServe(t, "--addr", "127.0.0.1:0", "--store", store, "--token", token, "--runner", "inprocess")
	b := startServe(t, "--addr", "127.0.0.1:0", "--store", store, "--token", token, "--runner", "inprocess")
	addrOf := func(s *servedCmd) string { return strings.TrimPrefix(s.base, "http://") }
	front, _ := startNginx(t, nginx, deployConfig(t, true), addrOf(a), addrOf(b))
	hc := &http.Client{Transport: &http.Transport{ResponseHeaderTimeout: 20 * time.Second}}
	do := func(method, path, body string) (status int, upstream string, got string) {
		t.Helper()
		req, err := http.NewRequest(method, front+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Host = "codemode.example.com"
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatalf("%s %s through nginx: %v", method, path, err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("X-Upstream"), string(data)
	}
	// Twenty boards: nginx hashes their ids onto the two replicas, both
	// used unless one in 2^19 (each board lands on either).
	owners := map[string]int{}
	for i := range 20 {
		id := fmt.Sprintf("board-%d", i)
		if code, _, got := do("POST", "/v1/boards", `{"id":"`+id+`"}`); code != http.StatusCreated {
			t.Fatalf("creating %s: %d %s", id, code, got)
		}
		seen := map[string]bool{}
		for _, r := range []struct{ method, path, body string }{
			{"POST", "/v1/boards/" + id + "/batch", `{"operations":[{"tool":"createStickyNote","args":{"text":"one","x":0,"y":0}}]}`},
			{"GET", "/v1/boards/" + id, ""},
			{"POST", "/v1/boards/" + id + "/batch", `{"operations":[{"tool":"createStickyNote","args":{"text":"two","x":0,"y":300}}]}`},
			{"POST", "/v1/boards/" + id + "/undo", ""},
			{"GET", "/v1/boards/" + id + "/svg", ""},
		} {
			code, upstream, got := do(r.method, r.path, r.body)
			if code != http.StatusOK {
				t.Fatalf("%s %s: %d %s", r.method, r.path, code, got)
			}
			seen[upstream] = true
			if len(seen) == 1 {
				owners[upstream]++
			}
		}
		if len(seen) != 1 {
			t.Errorf("the requests about %s went to %v: want one replica", id, seen)
		}
	}
	if owners[addrOf(a)] == 0 || owners[addrOf(b)] == 0 {
		t.Errorf("boards per replica %v: want both of %s and %s", owners, addrOf(a), addrOf(b))
	}

	// A board's stream, through the same route, streams a run's events.
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", front+"/v1/boards/board-0/events", nil)
	req.Host = "codemode.example.com"
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := hc.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("watching board-0 through nginx: %v %v", err, resp)
	}
	defer resp.Body.Close()
	events := make(chan clustertest.Event, 64)
	go clustertest.ReadEvents(resp.Body, events)
	if ev := <-events; ev.Type != "board" {
		t.Fatalf("the stream's first event: %s", ev.Type)
	}
	if code, _, got := do("POST", "/v1/boards/board-0/batch", `{"operations":[{"tool":"createStickyNote","args":{"text":"live","x":0,"y":600}}]}`); code != http.StatusOK {
		t.Fatalf("a run while watched: %d %s", code, got)
	}
	for ev := range events {
		if ev.Type == "run_end" {
			return
		}
	}
	t.Errorf("the stream ended before the run's run_end (%v)", ctx.Err())
}
