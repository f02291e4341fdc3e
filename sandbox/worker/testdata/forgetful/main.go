// Command forgetful is a host that forgets worker.Main: it makes a pool
// and runs a script in it, and never calls worker.Main. Each run of its
// main leaves a file named after its process id in mainsDir, set when it is
// built (-ldflags "-X main.mainsDir=…": workers get no environment), so a
// test can count how many times main ran. It prints the script's value and
// how many workers its pool started. TestForgottenMain builds and runs it.
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/codemode-dev/codemode/sandbox/js"
	"github.com/codemode-dev/codemode/sandbox/worker"
)

var mainsDir string

func main() {
	if mainsDir == "" {
		fmt.Fprintln(os.Stderr, "forgetful: built without -X main.mainsDir")
		os.Exit(2)
	}
	if err := os.WriteFile(filepath.Join(mainsDir, strconv.Itoa(os.Getpid())), nil, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "forgetful:", err)
		os.Exit(2)
	}
	pool, err := worker.New(worker.Config{Warm: 1, Max: 2})
	if err != nil {
		fmt.Fprintln(os.Stderr, "forgetful:", err)
		os.Exit(1)
	}
	res := pool.RunScript(context.Background(), js.Job{Code: `return 6 * 7`, Options: js.Options{Limits: js.Limits{Timeout: 20 * time.Second}}})
	st := pool.Stats()
	pool.Close()
	if res.Err != nil {
		fmt.Fprintln(os.Stderr, "forgetful:", res.Err.Message)
		os.Exit(1)
	}
	fmt.Println(string(res.Value), st.Started+st.Adopted)
}
