package wasmtool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/codemode-dev/codemode/engine"
)

// encoding/json matches field names without regard to case and lets a
// repeated key overwrite the first, so "MEMORY" or a second "memory" would be
// taken silently. checkFieldNames holds a manifest to the exact names, once
// each, in the manifest itself, its annotations and its mounts; it returns
// the top-level names given.
func checkFieldNames(data []byte) (given map[string]bool, errs []error) {
	top, errs := exactKeys(data, reflect.TypeFor[Manifest](), "")
	given = map[string]bool{}
	for k := range top {
		given[k] = true
	}
	if a, ok := top["annotations"]; ok {
		_, e := exactKeys(a, reflect.TypeFor[engine.Annotations](), "annotations.")
		errs = append(errs, e...)
	}
	var mounts []json.RawMessage
	if json.Unmarshal(top["mounts"], &mounts) == nil {
		for i, mt := range mounts {
			_, e := exactKeys(mt, reflect.TypeFor[MountSpec](), fmt.Sprintf("mounts[%d].", i))
			errs = append(errs, e...)
		}
	}
	return given, errs
}

// exactKeys reads a JSON object's members and reports keys that are not
// exactly one of t's JSON field names, and keys given twice.
func exactKeys(raw json.RawMessage, t reflect.Type, prefix string) (map[string]json.RawMessage, []error) {
	names := map[string]bool{}
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		names[name] = true
	}
	members := map[string]json.RawMessage{}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return members, nil // not an object: the decoder has said so
	}
	var errs []error
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			break
		}
		switch _, dup := members[key]; {
		case dup:
			errs = append(errs, fmt.Errorf("%s%s: given twice", prefix, key))
		case !names[key]:
			errs = append(errs, fmt.Errorf("%s%s: no such field (names are case-sensitive)", prefix, key))
		}
		members[key] = v
	}
	return members, errs
}
