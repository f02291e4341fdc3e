// Struct fields by JSON name, as encoding/json finds them (tags, embedding).

package strictjson

import (
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/codemode-dev/codemode/internal/suggest"
)

// unknownField words an unknown member name: the nearest known name, or
// the known names when none is near.
func unknownField(name string, known []string) string {
	if s := suggest.Names(name, known); len(s) > 0 {
		if strings.EqualFold(s[0], name) {
			return fmt.Sprintf("unknown field (did you mean %q? names are case-sensitive)", s[0])
		}
		return fmt.Sprintf("unknown field (did you mean %q?)", s[0])
	}
	return "unknown field (the fields here are " + strings.Join(known, ", ") + ")"
}

// structInfo is a struct type's JSON members.
type structInfo struct {
	names  []string         // in declaration order
	byName map[string][]int // field index paths, through embedded structs
}

var structInfos sync.Map // reflect.Type → *structInfo

func structInfoOf(t reflect.Type) *structInfo {
	if v, ok := structInfos.Load(t); ok {
		return v.(*structInfo)
	}
	info := &structInfo{byName: make(map[string][]int)}
	collectFields(t, nil, info, map[reflect.Type]bool{})
	v, _ := structInfos.LoadOrStore(t, info)
	return v.(*structInfo)
}

// collectFields follows encoding/json: exported fields by their tag name (or
// Go name), "-" left out, untagged embedded structs flattened; a name at a
// shallower depth wins, and names clashing at one depth are left out.
func collectFields(t reflect.Type, index []int, info *structInfo, visiting map[reflect.Type]bool) {
	if visiting[t] {
		return
	}
	visiting[t] = true
	defer delete(visiting, t)
	type field struct {
		name  string
		index []int
	}
	var direct []field
	var embedded [][]int
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if strings.Contains(","+opts+",", ",string,") {
			panic(fmt.Sprintf("strictjson: %s.%s: the \",string\" option is not supported", t, f.Name))
		}
		idx := append(append([]int(nil), index...), i)
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				if !f.IsExported() {
					continue // a pointer to an unexported struct: encoding/json cannot set it either
				}
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				embedded = append(embedded, idx)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		direct = append(direct, field{name, idx})
	}
	for _, f := range direct {
		if _, dup := info.byName[f.name]; !dup {
			info.names = append(info.names, f.name)
			info.byName[f.name] = f.index
		}
	}
	shallow := make(map[string]bool, len(info.byName))
	for name := range info.byName {
		shallow[name] = true
	}
	deeper := &structInfo{byName: make(map[string][]int)}
	clash := map[string]bool{}
	for _, idx := range embedded {
		ft := t.FieldByIndex(idx[len(index):])
		et := ft.Type
		if et.Kind() == reflect.Pointer {
			et = et.Elem()
		}
		sub := &structInfo{byName: make(map[string][]int)}
		collectFields(et, idx, sub, visiting)
		for _, name := range sub.names {
			if shallow[name] {
				continue
			}
			if _, dup := deeper.byName[name]; dup {
				clash[name] = true
				continue
			}
			deeper.names = append(deeper.names, name)
			deeper.byName[name] = sub.byName[name]
		}
	}
	for _, name := range deeper.names {
		if !clash[name] {
			info.names = append(info.names, name)
			info.byName[name] = deeper.byName[name]
		}
	}
}

// fieldByIndex is v.FieldByIndex, allocating embedded pointers on the way.
func fieldByIndex(v reflect.Value, index []int) reflect.Value {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v
}
