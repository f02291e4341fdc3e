package wasm

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// DefaultCacheMaxBytes bounds a compilation cache directory when
// Config.CacheMaxBytes is 0. A Go tool's entry is ≈ 15 MB, so this keeps
// about fifteen of them.
const DefaultCacheMaxBytes = 256 << 20

// staleTemp is the age past which a temporary file of the cache is taken to
// be left over from a process that died while writing it. wazero writes an
// entry in one go, after compiling, so a live writer is seconds old at most;
// removing a temporary file it is still writing would fail its compile.
const staleTemp = time.Hour

// CacheTrim is what TrimCache found and did.
type CacheTrim struct {
	Entries int   // entries left
	Bytes   int64 // their total size
	Removed int   // entries and stale temporary files removed
	Freed   int64 // the bytes they held
}

// TrimCache bounds a compilation cache directory (Config.CacheDir) to
// maxBytes by removing its least recently used entries, and removes
// temporary files left over from processes that died while writing one.
//
// The layout is wazero's: a directory per wazero version and platform
// ("wazero-v1.12.0-amd64-linux"), holding one file per compiled module,
// named by a 64-digit hexadecimal hash; beside them, Runtime.Prepare's
// directory of prepared modules ("codemode-prepared-v1"), laid out the
// same way. TrimCache looks at nothing else (anything else in dir is left
// alone), and it counts entries of every version: those of other versions
// are never read by this one, so they are the least recently used and go
// first.
//
// An entry's last use is the later of its access and modification times.
// Systems that record reads lazily (Linux's default, relatime, records the
// first read after the file's times last changed) record the next read
// because TrimCache, after noting a read, moves the modification time up to
// it. Where reads are not recorded at all, the last use is when the entry
// was written or last seen read.
//
// It is safe to run while other processes use or trim the same directory:
// wazero reads an entry whole while compiling and needs it no more
// afterwards (a removed entry is compiled again, and a process reading one
// as it is removed reads it to the end), writes entries under a temporary
// name and renames them into place, and finds a missing entry to be a miss.
// Directories are never removed (a process may be about to write into
// them). Two processes trimming at once remove the same entries, in the
// same order.
func TrimCache(dir string, maxBytes int64) (CacheTrim, error) {
	var res CacheTrim
	if maxBytes < 0 {
		return res, fmt.Errorf("wasm: trimming the compilation cache %s: a negative size bound (%d)", dir, maxBytes)
	}
	tops, err := os.ReadDir(dir)
	if err != nil {
		return res, fmt.Errorf("wasm: trimming the compilation cache: %w", err)
	}
	type entry struct {
		path string
		size int64
		used time.Time
	}
	var entries []entry
	var errs []error
	now := time.Now()
	for _, top := range tops {
		if !top.IsDir() || !strings.HasPrefix(top.Name(), "wazero-") && !strings.HasPrefix(top.Name(), "codemode-prepared-") {
			continue
		}
		sub := filepath.Join(dir, top.Name())
		files, err := os.ReadDir(sub)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, f := range files {
			if !f.Type().IsRegular() {
				continue
			}
			fi, err := f.Info()
			if err != nil {
				continue // removed meanwhile
			}
			p := filepath.Join(sub, f.Name())
			switch name := f.Name(); {
			case isCacheKey(name):
				used := fi.ModTime()
				if at, ok := accessTime(fi); ok && at.After(used) {
					// Read since its times last changed: note the read in
					// the modification time, which also makes relatime
					// record the next one.
					used = at
					_ = os.Chtimes(p, at, at)
				}
				entries = append(entries, entry{p, fi.Size(), used})
			case isCacheTemp(name) && now.Sub(fi.ModTime()) > staleTemp:
				if err := os.Remove(p); err == nil {
					res.Removed++
					res.Freed += fi.Size()
				}
			}
		}
	}
	slices.SortFunc(entries, func(a, b entry) int {
		if c := a.used.Compare(b.used); c != 0 {
			return c
		}
		return strings.Compare(a.path, b.path)
	})
	for _, e := range entries {
		res.Bytes += e.size
	}
	res.Entries = len(entries)
	for _, e := range entries {
		if res.Bytes <= maxBytes {
			break
		}
		switch err := os.Remove(e.path); {
		case err == nil:
			res.Removed++
			res.Freed += e.size
		case errors.Is(err, fs.ErrNotExist): // another process was first
		default: // e.g. open elsewhere, where the system forbids removing it
			errs = append(errs, err)
			continue
		}
		res.Bytes -= e.size
		res.Entries--
	}
	if err := errors.Join(errs...); err != nil {
		return res, fmt.Errorf("wasm: trimming the compilation cache: %w", err)
	}
	return res, nil
}

// isCacheKey reports whether name is a cache entry's: a SHA-256 in hex.
func isCacheKey(name string) bool {
	if len(name) != 64 {
		return false
	}
	for _, c := range []byte(name) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// isCacheTemp reports whether name is one of wazero's temporary files, an
// entry being written: KEY.RANDOM.tmp.
func isCacheTemp(name string) bool {
	return len(name) > 65 && isCacheKey(name[:64]) && name[64] == '.' && strings.HasSuffix(name, ".tmp")
}
