package wasmtool

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// withinSeconds fails the test if f has not returned after a few seconds:
// a loader that blocks on a special file would hang here.
func withinSeconds(t *testing.T, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("still reading after 10 s")
		return nil
	}
}

// Manifests and modules that are named pipes, devices, directories or
// over-large files are refused at once with a clear message; LoadDir
// reports them with the rest instead of hanging.
func TestLoaderRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.tool.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero.tool.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "dir.tool.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.tool.json")
	if err := os.WriteFile(big, []byte(`{"name": "big", "description": "`+strings.Repeat("x", MaxManifestBytes)+`"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// Modules: a pipe, /dev/zero, a directory, a sparse file over the cap.
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.wasm"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero.wasm")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "dir.wasm"), 0o755); err != nil {
		t.Fatal(err)
	}
	huge, err := os.Create(filepath.Join(dir, "huge.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	if err := huge.Truncate(MaxModuleBytes + 1); err != nil {
		t.Fatal(err)
	}
	huge.Close()
	for _, m := range []string{"pipe", "zero", "dir", "huge"} {
		writeTool(t, dir, "mod-"+m+".tool.json", `{"name": "mod.`+m+`", "description": "d", "inputSchema": {"type": "object"}, "module": "`+m+`.wasm"}`)
	}

	l := newLoader(t)
	err = withinSeconds(t, func() error { _, err := l.LoadDir(context.Background(), dir); return err })
	if err == nil {
		t.Fatal("LoadDir succeeded")
	}
	for _, want := range []string{
		"fifo.tool.json is not a regular file (a named pipe)",
		"zero.tool.json is not a regular file (a character device)",
		"dir.tool.json is not a regular file (a directory)",
		"big.tool.json is 1048", "over the limit of 1048576",
		"pipe.wasm is not a regular file (a named pipe)",
		"zero.wasm is not a regular file (a character device)",
		"dir.wasm is not a regular file (a directory)",
		"huge.wasm is 268435457 bytes, over the limit of 268435456",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("LoadDir's error lacks %q:\n%v", want, err)
		}
	}
	for _, name := range []string{"fifo.tool.json", "zero.tool.json", "mod-pipe.tool.json"} {
		err := withinSeconds(t, func() error { _, err := l.Load(context.Background(), filepath.Join(dir, name)); return err })
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("Load %s: got %v, want not a regular file", name, err)
		}
	}
}
