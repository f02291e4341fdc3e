package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/tools/wasm/internal/tooltest"
)

// nodes returns n nodes "0", "1", ... as JSON array elements.
func nodes(n int) string {
	s := make([]string, n)
	for i := range s {
		s[i] = fmt.Sprintf(`{"id":"%d"}`, i)
	}
	return strings.Join(s, ",")
}

// chain returns m edges along nodes 0..m as JSON array elements.
func chain(m int) string {
	s := make([]string, m)
	for i := range s {
		s[i] = fmt.Sprintf(`{"from":"%d","to":"%d"}`, i%1000, (i+1)%1000)
	}
	return strings.Join(s, ",")
}

func TestManifest(t *testing.T) {
	m := tooltest.Load(t, "layout.tool.json")
	if m.Name != "graph.layout" || m.Module != "layout.wasm" || !*m.Pure {
		t.Errorf("name %q, module %q, pure %v", m.Name, m.Module, *m.Pure)
	}
	long := strings.Repeat("é", 256)
	tooltest.Agree(t, m, handler, []tooltest.Case{
		{Args: `{"nodes":[]}`, Valid: true},
		{Args: `{"nodes":[{"id":"a"},{"id":"b","width":10,"height":20}],"edges":[{"from":"a","to":"b"}]}`, Valid: true},
		{Args: `{"nodes":[{"id":"a","width":0.5,"height":100000}],"edges":[],"direction":"LR","nodeGap":0,"layerGap":100000,"x":-1000000000,"y":1000000000}`, Valid: true},
		{Args: `{"nodes":[{"id":"a"}],"edges":[{"from":"a","to":"a"}],"direction":"TB","nodeGap":1.5,"layerGap":0}`, Valid: true},
		{Args: `{"nodes":[{"id":"` + long + `"}]}`, Valid: true},
		{Args: `{"nodes":[` + nodes(1000) + `],"edges":[` + chain(5000) + `]}`, Valid: true},

		{Args: `{}`},
		{Args: `{"nodes":null}`},
		{Args: `{"nodes":[],"extra":1}`},
		{Args: `{"nodes":[{"id":""}]}`},
		{Args: `{"nodes":[{"id":"` + long + `x"}]}`},
		{Args: `{"nodes":[{"width":10}]}`},
		{Args: `{"nodes":[{"id":"a","w":1}]}`},
		{Args: `{"nodes":[{"id":"a","width":0}]}`},
		{Args: `{"nodes":[{"id":"a","height":-1}]}`},
		{Args: `{"nodes":[{"id":"a","width":100000.5}]}`},
		{Args: `{"nodes":[{"id":"a","height":"80"}]}`},
		{Args: `{"nodes":[{"id":1}]}`},
		{Args: `{"nodes":[{"id":"a"}],"direction":"tb"}`},
		{Args: `{"nodes":[{"id":"a"}],"nodeGap":-1}`},
		{Args: `{"nodes":[{"id":"a"}],"layerGap":100001}`},
		{Args: `{"nodes":[{"id":"a"}],"x":1000000001}`},
		{Args: `{"nodes":[{"id":"a"}],"y":-2e9}`},
		{Args: `{"nodes":[{"id":"a"}],"edges":[{"from":"a"}]}`},
		{Args: `{"nodes":[{"id":"a"}],"edges":[{"from":"a","to":""}]}`},
		{Args: `{"nodes":[{"id":"a"}],"edges":[{"from":"a","to":"a","label":"x"}]}`},
		{Args: `{"nodes":[` + nodes(1001) + `]}`},
		{Args: `{"nodes":[` + nodes(1000) + `],"edges":[` + chain(5001) + `]}`},
		{Args: `[]`},

		{Args: `{"nodes":[{"id":"a"},{"id":"a"}]}`, CodeOnly: true},
		{Args: `{"nodes":[{"id":"a"}],"edges":[{"from":"a","to":"b"}]}`, CodeOnly: true},

		{Args: `{"nodes":[{"id":"a","width":null}]}`, SchemaOnly: true},
		{Args: `{"nodes":[],"edges":null,"x":null,"nodeGap":null}`, SchemaOnly: true},
		{Args: `{"nodes":[],"direction":""}`, SchemaOnly: true},
	})
}
