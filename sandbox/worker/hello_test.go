package worker

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/sandbox/js"
)

func init() {
	brokenWorkers["hello-v99"] = func() { // a worker of another protocol version
		b := helloFrame()
		binary.BigEndian.PutUint16(b[len(b)-2:], 99)
		os.Stdout.Write(b)
		select {}
	}
	brokenWorkers["usage"] = func() { // prints a usage line and waits, as many programs do
		os.Stdout.WriteString("usage: forgetful [flags] file\n")
		select {}
	}
}

func TestReadHello(t *testing.T) {
	hello := helloFrame()
	other := bytes.Clone(hello)
	binary.BigEndian.PutUint16(other[len(other)-2:], protocolVersion+1)
	for _, tc := range []struct {
		name string
		in   []byte
		want string // "" for no error
	}{
		{"hello", hello, ""},
		{"hello and more", append(bytes.Clone(hello), 0, 0, 0, 1, kindReady), ""},
		{"text", []byte("Hello, world\n"), `it wrote "Hello, world\n" where a worker says hello`},
		{"nothing", nil, "it ended its output without the hello"},
		{"half a hello", hello[:9], "then ended its output"},
		{"another version", other, fmt.Sprintf("it speaks version %d of the worker protocol, this host version %d", protocolVersion+1, protocolVersion)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := readHello(bytes.NewReader(tc.in))
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}

// A command that writes something else and then waits is refused at its
// first wrong byte, not when a frame's worth of bytes has come.
func TestReadHelloFailsAtFirstWrongByte(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	go w.Write([]byte("usage"))
	done := make(chan error, 1)
	go func() { done <- readHello(r) }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), `it wrote "usage" where`) {
			t.Errorf("got %v, want what it wrote", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("readHello waits for more than the first wrong byte")
	}
}

// A pool whose command is not a codemode worker fails its first run at
// once, with an error that names the command and worker.Main.
func TestNotAWorker(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	for _, tc := range []struct {
		name    string
		command []string
		want    string
	}{
		{"prints", []string{sh, "-c", "echo hi; exec sleep 60"}, `it wrote "hi\n" where a worker says hello`},
		{"exits", []string{sh, "-c", "echo gone >&2; exit 4"}, "it ended its output without the hello a worker writes first (exit status 4); its stderr: gone"},
		{"usage", self("usage"), `it wrote "usage`}, // and waits: refused at its first bytes
		{"another version", self("hello-v99"), "it speaks version 99 of the worker protocol"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPool(t, Config{Command: tc.command, Warm: 1, Max: 1})
			start := time.Now()
			res := run(t, p, `return 1`, js.Limits{Timeout: time.Minute})
			if d := time.Since(start); d > startTimeout/2 {
				t.Errorf("took %v: a command that is not a worker must fail at once", d)
			}
			if res.Err == nil {
				t.Fatal("the run succeeded")
			}
			msg := res.Err.Message
			for _, want := range []string{tc.want, "worker.Main", "github.com/codemode-dev/codemode/sandbox/worker", tc.command[0]} {
				if !strings.Contains(msg, want) {
					t.Errorf("the error %q does not say %q", msg, want)
				}
			}
		})
	}
}

// A process started as a worker never makes a pool.
func TestNoPoolInAWorker(t *testing.T) {
	args := os.Args
	defer func() { os.Args = args }()
	os.Args = []string{args[0], Arg}
	p, err := New(Config{Warm: 1})
	if err == nil {
		p.Close()
		t.Fatal("New made a pool in a process started as a worker")
	}
	if !strings.Contains(err.Error(), "never starts workers") {
		t.Errorf("got %v", err)
	}
}

// A real program that forgets worker.Main and makes a pool: its script
// runs in a worker, its main runs once, and it starts one worker, where
// such a program used to run its main in every worker, each starting a
// pool of its own (hundreds of processes in seconds).
func TestForgottenMain(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program (seconds)")
	}
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		if goTool, err = exec.LookPath("go"); err != nil {
			t.Skip("no go tool to build the program with")
		}
	}
	dir := t.TempDir()
	mains := filepath.Join(dir, "mains")
	if err := os.Mkdir(mains, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "forgetful")
	build := exec.Command(goTool, "build", "-ldflags", "-X main.mainsDir="+mains, "-o", bin, "./testdata/forgetful")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Errorf("forgetful: %v\n%s", err, stderr.Bytes())
	}
	if got := strings.TrimSpace(string(out)); got != "42 1" {
		t.Errorf("forgetful printed %q, want the script's value and one worker started: \"42 1\"", got)
	}
	ran, err := os.ReadDir(mains)
	if err != nil {
		t.Fatal(err)
	}
	if len(ran) != 1 {
		t.Errorf("main ran %d times, want once", len(ran))
	}
}

// A host with a package whose init writes to stdout and that Go initialises
// before sandbox/worker (it does not import it): every worker writes before
// its hello, and the run's error says where such bytes come from, not only
// that the host's own binary is "not a codemode worker".
func TestInitWritesBeforeTheHello(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program (seconds)")
	}
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		if goTool, err = exec.LookPath("go"); err != nil {
			t.Skip("no go tool to build the program with")
		}
	}
	bin := filepath.Join(t.TempDir(), "earlyinit")
	if out, err := exec.Command(goTool, "build", "-o", bin, "./testdata/earlyinit").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("earlyinit: %v\n%s", err, stderr.Bytes())
	}
	// The hello may come in the same read as the banner, and be quoted too.
	for _, want := range []string{`it wrote "banner 1.0\n`, "where a worker says hello", "an init that ran before sandbox/worker's"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("the run's error does not say %q:\n%s", want, stderr.Bytes())
		}
	}
}
