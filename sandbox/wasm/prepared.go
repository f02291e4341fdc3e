package wasm

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/tetratelabs/wazero"
)

// Source is a module's bytes, read only when they are needed: a module
// whose prepared form is in the cache (see Runtime.Prepare) is never read.
type Source struct {
	// Hash is the SHA-256 of the bytes Read returns, when the caller knows
	// it (an embedded module, hashed when it was built); the zero value
	// means unknown, and the bytes are read to hash them. It keys the cache
	// of prepared modules, so a wrong Hash finds another module's entry:
	// give it only from a source you trust as much as the program itself.
	// (On a miss the bytes are read and checked against it.)
	Hash [32]byte
	// Read returns the module's bytes.
	Read func() ([]byte, error)
}

// BytesSource is the Source of bytes already in memory.
func BytesSource(binary []byte) Source {
	return Source{Read: func() ([]byte, error) { return binary, nil }}
}

// Prepared is a module checked and rewritten for the sandbox (bounded
// tables, check points for the deadline, merged data segments): what
// Runtime.Compile compiles. Its bytes may be sent to another process of the
// same program (sandbox/worker does) and compiled there with
// Runtime.CompilePrepared, which trusts them.
type Prepared struct {
	Binary []byte
}

// preparedVersion names the cache's directory of prepared modules. Bump it
// whenever a rewrite changes what it makes (TestPreparedPinned fails until
// then), or processes would go on compiling what an older version made.
const preparedVersion = "codemode-prepared-v1"

// preparedMagic starts a cache entry of a prepared module; entrySum
// follows, then the module.
const preparedMagic = "codemode prepared module\n"

// Prepare checks a module and rewrites it for the sandbox, or reads what an
// earlier Prepare of the same bytes made from the cache directory (keyed by
// the SHA-256 of src's bytes, in Config.CacheDir, bounded with wazero's
// entries: TrimCache). Checking and rewriting cost ≈ 15 ms per MiB of
// module; a cache hit reads and hashes the prepared module instead. An
// entry that is not exactly what Prepare wrote (truncated, changed: its
// hash does not match) is ignored and written again.
//
// On a miss the rewritten module is also compiled, to report a module the
// rewrite cannot handle by the compiler's own error (the compiled code goes
// to wazero's cache, so the Compile that follows, here or in a worker
// process sharing the directory, finds it); only a module that compiled is
// kept in the cache.
func (r *Runtime) Prepare(ctx context.Context, src Source) (Prepared, error) {
	p, cm, err := r.prepare(ctx, src)
	if cm != nil {
		cm.Close(ctx)
	}
	return p, err
}

// prepare is Prepare, returning the module it compiled on a miss (nil on a
// hit), for Compile to use.
func (r *Runtime) prepare(ctx context.Context, src Source) (Prepared, wazero.CompiledModule, error) {
	var binary []byte
	key, known := src.Hash, src.Hash != [32]byte{}
	if r.cacheDir == "" { // nothing to look up: no need to hash
		known = true
	} else if !known {
		b, err := src.Read()
		if err != nil {
			return Prepared{}, nil, err
		}
		binary, key = b, sha256.Sum256(b)
	}
	if p, ok := r.readPrepared(key); ok {
		return p, nil, nil
	}
	if known {
		b, err := src.Read()
		if err != nil {
			return Prepared{}, nil, err
		}
		// A miss costs a compile, seconds for a Go tool: checking the hash
		// it will be kept under costs nothing by comparison, and a wrong one
		// would leave this module's entry where another's is looked for.
		if r.cacheDir != "" && sha256.Sum256(b) != key {
			return Prepared{}, nil, errors.New("the module's bytes do not match the hash given for them")
		}
		binary = b
	}
	rewritten, cm, err := r.rewriteAndCompile(ctx, binary)
	if err == nil {
		r.writePrepared(key, rewritten)
	}
	r.trimCache() // the compile may have added an entry, and so may this
	if err != nil {
		return Prepared{}, nil, err
	}
	return Prepared{Binary: rewritten}, cm, nil
}

// preparedPath is where the prepared form of the module whose bytes hash to
// key is kept, or "" without a cache directory.
func (r *Runtime) preparedPath(key [32]byte) string {
	if r.cacheDir == "" {
		return ""
	}
	return filepath.Join(r.cacheDir, preparedVersion, hex.EncodeToString(key[:]))
}

// maxPrepared bounds what the cache keeps and readPrepared reads.
const maxPrepared = 1 << 30

// readPrepared returns the cache's prepared module for key, if there is one
// and it is whole: its magic, then entrySum of the rest, which must match.
func (r *Runtime) readPrepared(key [32]byte) (Prepared, bool) {
	path := r.preparedPath(key)
	if path == "" {
		return Prepared{}, false
	}
	f, err := os.Open(path)
	if err != nil {
		return Prepared{}, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxPrepared {
		return Prepared{}, false
	}
	head := len(preparedMagic) + sha256.Size
	if fi.Size() < int64(head) {
		return Prepared{}, false
	}
	data := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, data); err != nil || string(data[:len(preparedMagic)]) != preparedMagic {
		return Prepared{}, false
	}
	body := data[head:]
	if sum := entrySum(key, body); !bytes.Equal(sum[:], data[len(preparedMagic):head]) {
		return Prepared{}, false
	}
	return Prepared{Binary: body}, true
}

// entrySum is the hash an entry carries: of its key and the prepared
// module, so that an entry copied under another key does not match either.
func entrySum(key [32]byte, prepared []byte) [32]byte {
	h := sha256.New()
	h.Write(key[:])
	h.Write(prepared)
	return [32]byte(h.Sum(nil))
}

// writePrepared keeps a prepared module in the cache, best effort: under a
// temporary name (KEY.RANDOM.tmp, as wazero's, so TrimCache removes one left
// by a process that died) renamed into place, readable by its owner only.
func (r *Runtime) writePrepared(key [32]byte, prepared []byte) {
	path := r.preparedPath(key)
	if path == "" || len(prepared) > maxPrepared {
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return
	}
	tmp := fmt.Sprintf("%s.%s.tmp", path, rand.Text())
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return
	}
	sum := entrySum(key, prepared)
	_, err = f.Write(append(append([]byte(preparedMagic), sum[:]...), prepared...))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
}
