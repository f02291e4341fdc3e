package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/tools/wasm/internal/tooltest"
)

// items returns n items "0", "1", ... with text as JSON array elements.
func items(n int, text string) string {
	s := make([]string, n)
	for i := range s {
		s[i] = fmt.Sprintf(`{"id":"%d","text":%q}`, i, text)
	}
	return strings.Join(s, ",")
}

func TestManifest(t *testing.T) {
	m := tooltest.Load(t, "cluster.tool.json")
	if m.Name != "text.cluster" || m.Module != "cluster.wasm" || *m.Pure {
		t.Errorf("name %q, module %q, pure %v", m.Name, m.Module, *m.Pure)
	}
	long := strings.Repeat("é", 2000)
	tooltest.Agree(t, m, handler, []tooltest.Case{
		{Args: `{"items":[]}`, Valid: true},
		{Args: `{"items":[{"id":"a"},{"id":"b","text":""}]}`, Valid: true},
		{Args: `{"items":[{"id":"sticky-1","text":"CI is slow"},{"id":"sticky-2","text":"slow CI"}],"maxGroups":1}`, Valid: true},
		{Args: `{"items":[{"id":"` + strings.Repeat("x", 256) + `","text":"` + long + `"}],"maxGroups":20}`, Valid: true},
		{Args: `{"items":[],"maxGroups":3.0}`, Valid: true},
		{Args: `{"items":[` + items(2000, "CI tests are slow") + `]}`, Valid: true},

		{Args: `{}`},
		{Args: `{"items":null}`},
		{Args: `{"items":[],"extra":true}`},
		{Args: `{"items":[{"id":""}]}`},
		{Args: `{"items":[{"text":"no id"}]}`},
		{Args: `{"items":[{"id":"` + strings.Repeat("x", 257) + `"}]}`},
		{Args: `{"items":[{"id":"a","text":"` + long + `x"}]}`},
		{Args: `{"items":[{"id":"a","color":"yellow"}]}`},
		{Args: `{"items":[{"id":"a","text":5}]}`},
		{Args: `{"items":[],"maxGroups":0}`},
		{Args: `{"items":[],"maxGroups":21}`},
		{Args: `{"items":[],"maxGroups":2.5}`},
		{Args: `{"items":[],"maxGroups":"3"}`},
		{Args: `{"items":[` + items(2001, "") + `]}`},
		{Args: `"items"`},

		{Args: `{"items":[{"id":"a"},{"id":"a"}]}`, CodeOnly: true},

		{Args: `{"items":[{"id":"a","text":null}],"maxGroups":null}`, SchemaOnly: true},
	})
}
