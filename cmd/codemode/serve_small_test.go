package main

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/bindings/wasmtool"
	"github.com/codemode-dev/codemode/server"
	"github.com/codemode-dev/codemode/tools/wasm/builtin"
)

// serve --help says how long a call waits for approval and where that is
// set: the approvalTimeout key of --config.
func TestServeHelpApprovalTimeout(t *testing.T) {
	out, errs, code := cli(t, "", "serve", "--help")
	if code != exitOK || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	for _, want := range []string{`"approvalTimeout" in the --config file (default`, "5m), then it is denied; its run holds its board"} {
		if !strings.Contains(out, want) {
			t.Errorf("serve --help does not say %q:\n%s", want, out)
		}
	}
}

// A --data under a file names that file as what is in the way, not the
// directory that could not be made.
func TestServeDataUnderAFile(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, filepath.Join(dir, "file"), "")
	for _, tc := range []struct{ data, want string }{
		{filepath.Join(file, "sub", "deeper"), "codemode: serve: --data " + filepath.Join(file, "sub", "deeper") + ": " + file + " is a file, not a directory, so nothing can be made under it\n"},
		{file, "codemode: serve: --data " + file + ": it is a file, not a directory\n"},
	} {
		_, errs, code := cli(t, "", "serve", "--addr", "127.0.0.1:0", "--runner", "inprocess", "--data", tc.data)
		if code != exitUsage || errs != tc.want {
			t.Errorf("--data %s: exit %d, stderr %q; want 2 and %q", tc.data, code, errs, tc.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the directory holds %v, want the file only", entries)
	}
}

// --max-body takes bytes, or KiB, MiB, GiB, and says so when given another
// unit.
func TestServeMaxBodyUnits(t *testing.T) {
	for v, want := range map[string]int64{"4096": 4096, "4096B": 4096, "512KiB": 512 << 10, "4MiB": 4 << 20, "1GiB": 1 << 30} {
		var f sizeFlag
		if err := f.Set(v); err != nil || int64(f) != want {
			t.Errorf("--max-body %s: %d, %v; want %d", v, f, err, want)
		}
	}
	_, errs, code := cli(t, "", "serve", "--max-body", "4MB")
	want := `codemode: serve: invalid value "4MB" for --max-body: "4MB" is not a size: want a number of bytes, or one with a unit, KiB, MiB or GiB (512KiB, 4MiB, 1GiB)`
	if code != exitUsage || !strings.HasPrefix(errs, want) {
		t.Errorf("--max-body 4MB: exit %d, stderr %q; want 2 and %q…", code, errs, want)
	}
}

// codemode tools --json prints what GET /v1/tools?format=mcp answers: an
// MCP tools/list result, {"tools": [...]}, for a server given the built-in
// WASM tools, as codemode serve gives them.
func TestToolsJSONIsServersMCP(t *testing.T) {
	out, errs, code := cli(t, "", "tools", "--json")
	if code != exitOK || errs != "" || !strings.HasPrefix(out, "{\n  \"tools\": [\n") {
		t.Fatalf("tools --json: exit %d, stderr %q:\n%.200s", code, errs, out)
	}
	l, err := wasmtool.NewLoader(t.Context(), wasmtool.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close(context.Background())
	builtins, err := builtin.Load(t.Context(), l)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Options{Store: server.NewMemoryStore(), Tools: builtins})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown(t.Context())
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/v1/tools?format=mcp", nil)
	req.Host = "localhost"
	srv.ServeHTTP(rec, req)
	if rec.Code != 200 || rec.Body.String() != out {
		t.Errorf("GET /v1/tools?format=mcp differs from codemode tools --json: %d\n%.300s", rec.Code, rec.Body.String())
	}
}
