package wasmtool

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/sandbox/wasm"
)

// The loader's compilation cache is bounded by default (the CLI's is a
// loader's): a directory filled past wasm.DefaultCacheMaxBytes with old
// entries (sparse files) is trimmed when a loader starts, least recently
// used first; CacheMaxBytes sets another bound, and a negative one none.
func TestLoaderBoundsCache(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "wazero-v0.0.1-amd64-linux")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	var names []string
	for i := range 6 { // 6 × 60 MiB = 360 MiB
		h := sha256.Sum256([]byte{byte(i)})
		p := filepath.Join(sub, hex.EncodeToString(h[:]))
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(p, 60<<20); err != nil {
			t.Fatal(err)
		}
		tm := time.Now().Add(time.Duration(i-10) * time.Hour)
		if err := os.Chtimes(p, tm, tm); err != nil {
			t.Fatal(err)
		}
		names = append(names, p)
	}
	left := func() (n int) {
		for _, p := range names {
			if _, err := os.Stat(p); err == nil {
				n++
			}
		}
		return n
	}
	for _, tc := range []struct {
		max  int64
		left int
	}{{-1, 6}, {0, 4}, {130 << 20, 2}} {
		l, err := NewLoader(context.Background(), Options{CacheDir: dir, CacheMaxBytes: tc.max})
		if err != nil {
			t.Fatal(err)
		}
		l.Close(context.Background())
		if n := left(); n != tc.left {
			t.Errorf("CacheMaxBytes %d: %d entries left, want %d", tc.max, n, tc.left)
		}
	}
	if _, err := os.Stat(names[len(names)-1]); err != nil {
		t.Errorf("the most recent entry went: %v", err)
	}
	if wasm.DefaultCacheMaxBytes != 256<<20 {
		t.Errorf("DefaultCacheMaxBytes is %d; docs/wasm.md says 256 MiB", wasm.DefaultCacheMaxBytes)
	}
}
