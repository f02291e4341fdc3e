package worker

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// The hello: the first bytes a worker writes, before it reads anything, so
// that a pool whose Command is not a codemode worker (a program that does
// not import this package, one built from another version of it, one that
// prints something else or exits) says so at once, naming the command,
// instead of sending it a configuration and waiting 10 s for an answer.
//
//	length u32 | kindHello | helloMagic | protocol version u16
//
// Its layout never changes; the version changes with any other frame.
const (
	helloMagic      = "codemode worker"
	protocolVersion = 2 // 2: the module message carries the module as raw bytes
)

func helloFrame() []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(1+len(helloMagic)+2))
	b = append(b, kindHello)
	b = append(b, helloMagic...)
	return binary.BigEndian.AppendUint16(b, protocolVersion)
}

// helloError is why a command's first output is not a worker's hello.
type helloError struct {
	got     []byte // what it wrote, up to the first byte that differs
	ended   bool   // its output ended first
	other   bool   // a hello of another protocol version,
	version int    // this one
}

func (e *helloError) Error() string {
	switch {
	case e.other:
		return fmt.Sprintf("it speaks version %d of the worker protocol, this host version %d: build both from the same codemode version", e.version, protocolVersion)
	case len(e.got) > 0 && e.ended:
		return fmt.Sprintf("it wrote %s, then ended its output, where a worker says hello", quoteCut(e.got))
	case e.ended:
		return "it ended its output without the hello a worker writes first"
	default:
		// A binary that imports this package can write before its hello too:
		// Go initialises the packages that do not import it in import-path
		// order, some before it, and their inits run in every worker.
		return fmt.Sprintf("it wrote %s where a worker says hello (in a binary that imports sandbox/worker, an init that ran before sandbox/worker's — "+
			"of a package that does not import it — or a wrapper wrote to its stdout)", quoteCut(e.got))
	}
}

func quoteCut(b []byte) string {
	if len(b) > 60 {
		return strconv.Quote(string(b[:60])) + "…"
	}
	return strconv.Quote(string(b))
}

// readHello reads a worker's hello from r, failing at the first byte that
// differs rather than waiting for a whole frame: a program that printed
// "usage: …" and then waits for input is refused at once.
func readHello(r io.Reader) error {
	want := helloFrame()
	magicEnd := len(want) - 2 // where the version starts
	got := make([]byte, 0, len(want))
	buf := make([]byte, len(want))
	for len(got) < len(want) {
		n, err := r.Read(buf[:len(want)-len(got)])
		got = append(got, buf[:n]...)
		if k := min(len(got), magicEnd); !bytes.Equal(got[:k], want[:k]) {
			return &helloError{got: got}
		}
		if len(got) == len(want) {
			break
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return &helloError{got: got, ended: true}
			}
			return err
		}
	}
	if v := binary.BigEndian.Uint16(got[magicEnd:]); v != protocolVersion {
		return &helloError{other: true, version: int(v)}
	}
	return nil
}

// notAWorker is the error of a pool whose Command did not say hello.
func notAWorker(argv []string, why string) error {
	return fmt.Errorf("worker: the command %q is not a codemode worker — a Go program that imports github.com/codemode-dev/codemode/sandbox/worker "+
		"(whose init runs worker.Main, which serves when the program is started with the single argument %s), built from the host's codemode version; "+
		"Config.Command's default, the host's own binary, is one: %s", argv, Arg, why)
}
