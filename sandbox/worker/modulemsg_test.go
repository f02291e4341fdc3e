package worker

import (
	"bytes"
	"testing"

	"github.com/codemode-dev/codemode/sandbox/wasm"
)

// A module message carries its module as raw bytes after the JSON header,
// and a malformed one is refused, not read past its end.
func TestModuleMessage(t *testing.T) {
	bin := []byte("\x00asm\x01\x00\x00\x00 and the rest, any bytes: \"\\\x00\xff")
	body, err := encodeModule(moduleMsg{ID: 7, Binary: bin, Prepared: true, Options: wasm.ModuleOptions{Name: "x.y", Pooled: true}})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(body, bin) {
		t.Error("the module is not sent as it is")
	}
	m, err := decodeModule(body)
	if err != nil || m.ID != 7 || !m.Prepared || m.Options.Name != "x.y" || !m.Options.Pooled || !bytes.Equal(m.Binary, bin) {
		t.Errorf("decoded %+v, %v", m, err)
	}
	for _, bad := range [][]byte{nil, {0, 0, 0}, {0, 0, 1, 0, '{'}, {0xff, 0xff, 0xff, 0xff}, {0, 0, 0, 2, '{', 'x'}} {
		if _, err := decodeModule(bad); err == nil {
			t.Errorf("% x: no error", bad)
		}
	}
}
