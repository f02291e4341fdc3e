package wasm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// cachedRuntime is a runtime with a compilation cache in dir.
func cachedRuntime(t *testing.T, dir string) *Runtime {
	t.Helper()
	r, err := NewRuntime(context.Background(), Config{CacheDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(context.Background()) })
	return r
}

// unreadable is the Source of a module known by its hash whose bytes cannot
// be read: compiling it works only from the cache of prepared modules.
func unreadable(bin []byte) Source {
	return Source{Hash: sha256.Sum256(bin), Read: func() ([]byte, error) { return nil, errors.New("read the bytes") }}
}

// callEcho checks that m is the echo fixture, working.
func callEcho(t *testing.T, m *Module) {
	t.Helper()
	out, err := m.Call(context.Background(), []byte(`{"a":1}`))
	if err != nil || string(out) != `{"a":1}` {
		t.Fatalf("echo: %s, %v", out, err)
	}
	m.Close(context.Background())
}

// A module prepared once is not read again: a new process (runtime) with
// the same cache directory compiles it from the prepared entry, keyed by
// the hash of its bytes, without reading them.
func TestPreparedCacheHit(t *testing.T) {
	dir, bin := t.TempDir(), fixture(t, "echo")
	if _, err := cachedRuntime(t, dir).CompileSource(context.Background(), unreadable(bin), ModuleOptions{Name: "echo"}); err == nil || !strings.Contains(err.Error(), "read the bytes") {
		t.Fatalf("cold, unreadable: got %v, want the read's error", err)
	}
	m, err := cachedRuntime(t, dir).Compile(context.Background(), bin, ModuleOptions{Name: "echo"})
	if err != nil {
		t.Fatal(err)
	}
	callEcho(t, m)
	sum := sha256.Sum256(bin)
	if _, err := os.Stat(filepath.Join(dir, preparedVersion, hex.EncodeToString(sum[:]))); err != nil {
		t.Fatalf("no prepared entry: %v", err)
	}
	m, err = cachedRuntime(t, dir).CompileSource(context.Background(), unreadable(bin), ModuleOptions{Name: "echo"})
	if err != nil {
		t.Fatalf("warm: %v", err)
	}
	callEcho(t, m)
	// Prepare gives the same bytes, which a worker compiles as they are.
	p, err := cachedRuntime(t, dir).Prepare(context.Background(), unreadable(bin))
	if err != nil {
		t.Fatal(err)
	}
	if m, err = newRuntime(t).CompilePrepared(context.Background(), p, ModuleOptions{Name: "echo"}); err != nil {
		t.Fatal(err)
	}
	callEcho(t, m)
}

// An entry that is not what Prepare wrote — cut short, changed in one byte,
// empty, another module's entry copied under this key, a directory — is not
// trusted: the module is prepared again from its bytes, and the entry
// written anew.
func TestPreparedCacheHostileEntries(t *testing.T) {
	bin, other := fixture(t, "echo"), fixture(t, "loop")
	sum, otherSum := sha256.Sum256(bin), sha256.Sum256(other)
	dir := t.TempDir()
	r := cachedRuntime(t, dir)
	for _, b := range [][]byte{bin, other} {
		if _, err := r.Prepare(context.Background(), BytesSource(b)); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, preparedVersion, hex.EncodeToString(sum[:]))
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	otherEntry, _ := os.ReadFile(filepath.Join(dir, preparedVersion, hex.EncodeToString(otherSum[:])))
	flipped := []byte(string(good))
	flipped[len(flipped)-10] ^= 0x40
	for name, spoil := range map[string]func() error{
		"truncated":      func() error { return os.WriteFile(path, good[:len(good)-100], 0o600) },
		"header only":    func() error { return os.WriteFile(path, good[:len(preparedMagic)+5], 0o600) },
		"one byte":       func() error { return os.WriteFile(path, flipped, 0o600) },
		"empty":          func() error { return os.WriteFile(path, nil, 0o600) },
		"another module": func() error { return os.WriteFile(path, otherEntry, 0o600) },
		"directory":      func() error { os.Remove(path); return os.Mkdir(path, 0o700) },
	} {
		t.Run(name, func(t *testing.T) {
			if err := spoil(); err != nil {
				t.Fatal(err)
			}
			reads := 0
			src := Source{Hash: sum, Read: func() ([]byte, error) { reads++; return bin, nil }}
			m, err := cachedRuntime(t, dir).CompileSource(context.Background(), src, ModuleOptions{Name: "echo"})
			if err != nil {
				t.Fatal(err)
			}
			callEcho(t, m)
			if reads != 1 {
				t.Errorf("the module was read %d times, want once (the entry must not be trusted)", reads)
			}
			if name == "directory" {
				os.Remove(path)
				return
			}
			if now, _ := os.ReadFile(path); string(now) != string(good) {
				t.Errorf("the entry was not written anew (%d bytes, want %d)", len(now), len(good))
			}
		})
	}
}

// Prepared entries count toward the cache's bound with wazero's, least
// recently used first, and stale temporary files of theirs are removed.
func TestPreparedCacheBounded(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	prep := filepath.Join(dir, preparedVersion)
	writeEntry(t, filepath.Join(prep, key("old")), 1000, now.Add(-time.Hour), now.Add(-time.Hour))
	writeEntry(t, filepath.Join(prep, key("new")), 1000, now, now)
	writeEntry(t, filepath.Join(dir, "wazero-v9.9.9-amd64-linux", key("mid")), 1000, now.Add(-time.Minute), now.Add(-time.Minute))
	writeEntry(t, filepath.Join(prep, key("dead")+".123.tmp"), 10, now.Add(-2*time.Hour), now.Add(-2*time.Hour))
	res, err := TrimCache(dir, 2000)
	if err != nil {
		t.Fatal(err)
	}
	if res.Entries != 2 || res.Removed != 2 {
		t.Errorf("trim: %+v, want 2 entries left, 2 files removed", res)
	}
	if _, err := os.Stat(filepath.Join(prep, key("old"))); err == nil {
		t.Error("the least recently used prepared entry is still there")
	}
	if _, err := os.Stat(filepath.Join(prep, key("new"))); err != nil {
		t.Error("the most recently used prepared entry was removed")
	}
	// A runtime trims after it compiles: its entries stay under the bound.
	bound := int64(1)
	r, err := NewRuntime(context.Background(), Config{CacheDir: dir, CacheMaxBytes: bound})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(context.Background())
	if _, err := r.Prepare(context.Background(), BytesSource(fixture(t, "echo"))); err != nil {
		t.Fatal(err)
	}
	if res, _ := TrimCache(dir, 1<<40); res.Bytes > bound {
		t.Errorf("after a compile the cache holds %d bytes, over its bound of %d", res.Bytes, bound)
	}
}

// What Prepare makes of a module is pinned: a change to a rewrite must bump
// preparedVersion, or processes would go on compiling the prepared modules
// an older version left in their caches.
func TestPreparedPinned(t *testing.T) {
	p, err := newRuntime(t).Prepare(context.Background(), BytesSource(fixture(t, "fib")))
	if err != nil {
		t.Fatal(err)
	}
	const want = "e9ba76de904ad47ad7cd8938d52cb6f62e0524d5d31429e3263e2958ae1ae342"
	if sum := sha256.Sum256(p.Binary); hex.EncodeToString(sum[:]) != want || preparedVersion != "codemode-prepared-v1" {
		t.Errorf("Prepare of testdata/wasm/fib.wasm has SHA-256 %x (version %s), pinned %s: if a rewrite changed, bump preparedVersion and pin the new hash with it", sum, preparedVersion, want)
	}
}

// A module whose bytes do not match the hash given for them is refused on a
// miss, and nothing is kept under that hash.
func TestPreparedWrongHash(t *testing.T) {
	dir := t.TempDir()
	wrong := sha256.Sum256([]byte("another module"))
	src := Source{Hash: wrong, Read: func() ([]byte, error) { return fixture(t, "echo"), nil }}
	_, err := cachedRuntime(t, dir).CompileSource(context.Background(), src, ModuleOptions{Name: "echo"})
	if err == nil || !strings.Contains(err.Error(), "do not match the hash") {
		t.Errorf("got %v, want the mismatch", err)
	}
	if _, err := os.Stat(filepath.Join(dir, preparedVersion, hex.EncodeToString(wrong[:]))); err == nil {
		t.Error("an entry was kept under the wrong hash")
	}
}
