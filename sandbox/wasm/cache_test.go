package wasm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// cacheFiles lists the entries of a cache directory (every wazero version)
// with their sizes.
func cacheFiles(t testing.TB, dir string) (map[string]int64, int64) {
	t.Helper()
	files := map[string]int64{}
	var total int64
	subs, _ := filepath.Glob(filepath.Join(dir, "wazero-*"))
	for _, sub := range subs {
		entries, err := os.ReadDir(sub)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			fi, err := e.Info()
			if err != nil {
				t.Fatal(err)
			}
			files[filepath.Join(filepath.Base(sub), e.Name())] = fi.Size()
			total += fi.Size()
		}
	}
	return files, total
}

// key is a made-up cache entry name.
func key(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// writeEntry writes a file of size bytes (sparse: it costs no disk) with
// the given access and modification times.
func writeEntry(t testing.TB, path string, size int64, atime, mtime time.Time) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(path, atime, mtime); err != nil {
		t.Fatal(err)
	}
}

// Past its bound, a cache loses its least recently used entries first —
// those of other wazero versions, which this one never reads, included —
// and only what is wazero's: other files, temporary files being written and
// directories stay.
func TestTrimCache(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	cur, old := "wazero-v9.9.9-amd64-linux", "wazero-v0.0.1-amd64-linux"
	entries := []struct {
		name         string
		atime, mtime time.Time
	}{
		{old + "/" + key("old1"), ago(240 * time.Hour), ago(240 * time.Hour)},
		{old + "/" + key("old2"), ago(200 * time.Hour), ago(200 * time.Hour)},
		{cur + "/" + key("a"), ago(5 * time.Hour), ago(5 * time.Hour)},
		{cur + "/" + key("b"), ago(time.Minute), ago(6 * time.Hour)}, // written long ago, read a minute ago
		{cur + "/" + key("c"), ago(time.Hour), ago(time.Hour)},
		{cur + "/" + key("d"), ago(2 * time.Minute), ago(2 * time.Minute)},
	}
	for _, e := range entries {
		writeEntry(t, filepath.Join(dir, e.name), 100, e.atime, e.mtime)
	}
	keep := []string{
		cur + "/" + key("young") + ".123.tmp", // being written by a live process
		cur + "/README",
		"notes.txt",
		"other/" + key("x"), // not a wazero directory
	}
	for _, name := range keep {
		writeEntry(t, filepath.Join(dir, name), 1000, ago(3*time.Hour), ago(3*time.Hour))
	}
	if err := os.Chtimes(filepath.Join(dir, keep[0]), ago(time.Second), ago(time.Second)); err != nil {
		t.Fatal(err)
	}
	stale := cur + "/" + key("dead") + ".456.tmp" // its writer died hours ago
	writeEntry(t, filepath.Join(dir, stale), 1000, ago(3*time.Hour), ago(3*time.Hour))

	res, err := TrimCache(dir, 350)
	if err != nil {
		t.Fatal(err)
	}
	want := CacheTrim{Entries: 3, Bytes: 300, Removed: 4, Freed: 1300}
	if res != want {
		t.Errorf("TrimCache = %+v, want %+v", res, want)
	}
	for _, e := range entries[:3] {
		if _, err := os.Stat(filepath.Join(dir, e.name)); !os.IsNotExist(err) {
			t.Errorf("%s (least recently used) is still there: %v", e.name, err)
		}
	}
	for _, e := range entries[3:] {
		if _, err := os.Stat(filepath.Join(dir, e.name)); err != nil {
			t.Errorf("%s (recently used) was removed: %v", e.name, err)
		}
	}
	for _, name := range keep {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s was removed: %v", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, stale)); !os.IsNotExist(err) {
		t.Errorf("stale temporary file is still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, old)); err != nil {
		t.Errorf("the other version's directory was removed: %v", err)
	}
	// b's read is now its modification time, so the next read is recorded
	// too (relatime) and b keeps its place when it is read no more.
	if fi, err := os.Stat(filepath.Join(dir, entries[3].name)); err != nil || !fi.ModTime().Equal(entries[3].atime) {
		t.Errorf("b's modification time is not its last read: %v, %v", fi.ModTime(), err)
	}

	// Under the bound, nothing goes; at 0, every entry.
	if res, err := TrimCache(dir, 300); err != nil || res.Removed != 0 || res.Entries != 3 {
		t.Errorf("under the bound: %+v, %v", res, err)
	}
	if res, err := TrimCache(dir, 0); err != nil || res.Removed != 3 || res.Entries != 0 || res.Bytes != 0 {
		t.Errorf("bound 0: %+v, %v", res, err)
	}
	if _, err := TrimCache(dir, -1); err == nil {
		t.Error("a negative bound was taken")
	}
	if _, err := TrimCache(filepath.Join(dir, "missing"), 0); err == nil {
		t.Error("a missing directory: no error")
	}
}

// A runtime keeps its cache within CacheMaxBytes as it compiles: the
// directory never holds more than the bound after a compile, the entry just
// written is kept (it is the most recently used), and entries of modules
// compiled long ago go first.
func TestRuntimeBoundsCache(t *testing.T) {
	dir := t.TempDir()
	names := []string{"echo", "badexit", "bigout", "loop", "sleep", "spin", "memhog", "clockrand", "envargs", "openfile"}
	// The bound: a few of these modules' entries (150 to 3,600 bytes).
	const bound = 6000
	var seen []string
	for i, name := range names {
		// A new runtime per module, as a new process would be: the entry is
		// read from, or written to, the directory.
		r, err := NewRuntime(context.Background(), Config{CacheDir: dir, CacheMaxBytes: bound})
		if err != nil {
			t.Fatal(err)
		}
		before, _ := cacheFiles(t, dir)
		m, err := r.Compile(context.Background(), fixture(t, name), ModuleOptions{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		m.Close(context.Background())
		r.Close(context.Background())
		files, total := cacheFiles(t, dir)
		if total > bound {
			t.Fatalf("after compiling %s: %d bytes in the cache, over its bound of %d: %v", name, total, bound, files)
		}
		var added []string
		for f := range files {
			if _, ok := before[f]; !ok {
				added = append(added, f)
			}
		}
		if len(added) != 1 {
			t.Fatalf("after compiling %s: added %v, want its entry", name, added)
		}
		seen = append(seen, added[0])
		if i > 0 {
			// Entries are written within the file system's time resolution:
			// make the order of use plain.
			for j, f := range seen {
				if _, ok := files[f]; ok {
					tm := time.Now().Add(time.Duration(j-len(seen)) * time.Minute)
					os.Chtimes(filepath.Join(dir, f), tm, tm)
				}
			}
		}
	}
	files, _ := cacheFiles(t, dir)
	if len(files) == 0 || len(files) == len(seen) {
		t.Fatalf("the cache keeps %d entries of %d, want the last few: %v", len(files), len(seen), files)
	}
	// What is left is the most recently compiled, without gaps.
	var kept []int
	for i, f := range seen {
		if _, ok := files[f]; ok {
			kept = append(kept, i)
		}
	}
	for k, i := range kept {
		if i != len(seen)-len(kept)+k {
			t.Errorf("kept entries %v of %d, want the last %d", kept, len(seen), len(kept))
			break
		}
	}
}

// With CacheMaxBytes 0 the default bound holds: a directory filled past
// DefaultCacheMaxBytes (sparse files) is trimmed when a runtime starts. A
// negative bound leaves it alone.
func TestDefaultCacheBound(t *testing.T) {
	dir := t.TempDir()
	for i := range 6 {
		tm := time.Now().Add(time.Duration(i-10) * time.Hour)
		writeEntry(t, filepath.Join(dir, "wazero-v9.9.9-amd64-linux", key(fmt.Sprint(i))), 60<<20, tm, tm)
	}
	r, err := NewRuntime(context.Background(), Config{CacheDir: dir, CacheMaxBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	r.Close(context.Background())
	if _, total := cacheFiles(t, dir); total != 360<<20 {
		t.Fatalf("unbounded: %d bytes, want all 360 MiB", total)
	}
	r, err = NewRuntime(context.Background(), Config{CacheDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	r.Close(context.Background())
	files, total := cacheFiles(t, dir)
	if total > DefaultCacheMaxBytes || len(files) != 4 {
		t.Errorf("default bound: %d entries, %d bytes, want 4 entries within %d", len(files), total, DefaultCacheMaxBytes)
	}
	if _, ok := files[filepath.Join("wazero-v9.9.9-amd64-linux", key("0"))]; ok {
		t.Error("the oldest entry was kept")
	}
}

// A compilation cache that is a file is named as such.
func TestCacheDirIsFile(t *testing.T) {
	f := filepath.Join(t.TempDir(), "cache")
	if err := os.WriteFile(f, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := NewRuntime(context.Background(), Config{CacheDir: f})
	if err == nil || !strings.Contains(err.Error(), f+": not a directory") {
		t.Errorf("got %v", err)
	}
}

// helperEnv makes the test binary a process that compiles and calls
// modules with a shared cache for a while (TestCacheSharedByProcesses).
const helperEnv = "CODEMODE_WASM_CACHE_HELPER"

// Processes that share a cache directory, each compiling, calling and
// trimming it to nothing after every compile while another trims it in a
// loop, never fail: an entry removed under a process is compiled again,
// one being read is read to the end, and one being written is not touched.
func TestCacheSharedByProcesses(t *testing.T) {
	if dir := os.Getenv(helperEnv); dir != "" {
		compileLoop(t, dir, 2*time.Second)
		return
	}
	if testing.Short() {
		t.Skip("runs processes for seconds")
	}
	dir := t.TempDir()
	var cmds []*exec.Cmd
	for range 2 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCacheSharedByProcesses$", "-test.count=1")
		cmd.Env = append(os.Environ(), helperEnv+"="+dir)
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if t.Failed() {
				t.Log(out.String())
			}
		})
		cmds = append(cmds, cmd)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() { // a third party trimming everything, all the time
		for {
			select {
			case <-stop:
				return
			default:
			}
			TrimCache(dir, 0)
			runtime.Gosched()
		}
	})
	compileLoop(t, dir, 2*time.Second) // and this process too
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("process %d: %v", i, err)
		}
	}
	close(stop)
	wg.Wait()
}

// compileLoop compiles and calls fixtures in fresh runtimes sharing dir,
// bounded to one byte, until d has passed and it has done at least 10 (a
// busy machine makes it slower, not the test weaker).
func compileLoop(t *testing.T, dir string, d time.Duration) {
	names := []string{"echo", "reactor_echo", "clockrand", "command_call"}
	bins := make([][]byte, len(names))
	for i, n := range names {
		bins[i] = fixture(t, n)
	}
	n, start := 0, time.Now()
	for end := start.Add(d); n < 10 || time.Now().Before(end); n++ {
		r, err := NewRuntime(context.Background(), Config{CacheDir: dir, CacheMaxBytes: 1})
		if err != nil {
			t.Fatal(err)
		}
		i := n % len(names)
		m, err := r.Compile(context.Background(), bins[i], ModuleOptions{Name: names[i], Pooled: names[i] == "reactor_echo"})
		if err != nil {
			r.Close(context.Background())
			t.Fatalf("compile %d (%s): %v", n, names[i], err)
		}
		if _, cerr := m.Call(context.Background(), []byte(`{}`)); cerr != nil {
			t.Fatalf("call %d (%s): %v", n, names[i], cerr)
		}
		m.Close(context.Background())
		r.Close(context.Background())
	}
	t.Logf("%d compiles in %v", n, time.Since(start).Round(time.Millisecond))
}
