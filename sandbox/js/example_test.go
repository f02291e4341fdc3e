package js_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/codemode-dev/codemode/sandbox/js"
)

// greeter is a Host with one tool, greet, which it runs on goroutines of
// its own: the calls of a Promise.all run concurrently.
type greeter struct{}

func (greeter) Start(calls []*js.Call) {
	for _, c := range calls {
		go func() {
			var in struct{ Name string }
			if err := json.Unmarshal(c.Args, &in); err != nil {
				c.Reject(&js.Error{Code: "bad_args", Message: err.Error()})
				return
			}
			out, _ := json.Marshal("hello, " + in.Name)
			c.Resolve(out)
		}()
	}
}

func ExampleRun() {
	s, err := js.Compile(`const names: string[] = input.names;
return await Promise.all(names.map((name) => tools.greet({name})));`, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	res := js.Run(context.Background(), s, js.Options{
		Input: json.RawMessage(`{"names": ["Ada", "Grace"]}`),
		Tools: []string{"greet"},
		Host:  greeter{},
	})
	if res.Err != nil {
		fmt.Println(res.Err)
		return
	}
	fmt.Println(string(res.Value), res.ToolCalls)
	// Output: ["hello, Ada","hello, Grace"] 2
}
