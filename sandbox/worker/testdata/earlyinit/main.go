// Command earlyinit is a host with a package whose init writes to stdout
// and runs before sandbox/worker's (testdata/earlyinit/banner): every
// worker it starts prints the banner before its hello. It prints the error
// its first run gets. TestInitWritesBeforeTheHello builds and runs it.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/codemode-dev/codemode/sandbox/js"
	"github.com/codemode-dev/codemode/sandbox/worker"
	_ "github.com/codemode-dev/codemode/sandbox/worker/testdata/earlyinit/banner"
)

func main() {
	pool, err := worker.New(worker.Config{Warm: 1, Max: 1})
	if err != nil {
		fmt.Fprintln(os.Stderr, "earlyinit:", err)
		os.Exit(1)
	}
	defer pool.Close()
	res := pool.RunScript(context.Background(), js.Job{Code: `return 1`, Options: js.Options{Limits: js.Limits{Timeout: 20 * time.Second}}})
	if res.Err == nil {
		fmt.Fprintln(os.Stderr, "earlyinit: the run succeeded")
		os.Exit(1)
	}
	fmt.Fprintln(os.Stderr, res.Err.Message)
}
