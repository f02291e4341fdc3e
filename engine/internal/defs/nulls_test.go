package defs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// manyMembers returns createStickyNote arguments with n members besides the
// tool's own, "m0" to "m<n-1>", and one null the plan drops ("color"). Each
// extra member is about 13 bytes: 80,000 of them make a megabyte.
func manyMembers(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"text":"a","x":1,"y":2,"color":null`)
	for i := range n {
		fmt.Fprintf(&b, `,"m%d":%d`, i, i)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// timeDrop is the CPU time (see cpuTime) of one run of Drop on args, on a
// freshly collected heap.
func timeDrop(t testing.TB, n *Nulls, args []byte) time.Duration {
	t.Helper()
	runtime.GC()
	start := cpuTime()
	out, changed := n.Drop(args)
	d := cpuTime() - start
	if !changed || bytes.Contains(out, []byte("null")) {
		t.Fatalf("Drop did not take the null out of %d bytes", len(args))
	}
	return d
}

// TestNullsDropIsLinear: Drop runs on a model's arguments before they are
// validated, so their size is the model's to choose, and its cost must grow
// with it linearly. Sixteen times the members (5,000 and 80,000, a
// megabyte) may take at most 64 times as long: linear is 16, and the
// quadratic scan this replaced took over 200 times as long, 20 seconds for
// the megabyte. Each size is timed five times, in turns, and the fastest
// run counts: the one a busy machine disturbed least. The times are CPU
// times, which other processes do not inflate.
func TestNullsDropIsLinear(t *testing.T) {
	plan := Strict(createStickyNote.InputSchema).Nulls
	small, large := manyMembers(5_000), manyMembers(80_000)
	if len(large) < 1<<20 {
		t.Fatalf("the large case is %d bytes, not a megabyte", len(large))
	}
	timeDrop(t, plan, small) // warm up
	ts, tl := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
	for range 5 {
		ts, tl = min(ts, timeDrop(t, plan, small)), min(tl, timeDrop(t, plan, large))
		if tl > 10*time.Second {
			break // says enough
		}
	}
	ratio := float64(tl) / float64(max(ts, time.Microsecond))
	t.Logf("5,000 members: %v; 80,000 members (%d bytes): %v; ratio %.1f", ts, len(large), tl, ratio)
	if ratio > 64 {
		t.Errorf("16 times the members took %.1f times as long: Drop is not linear", ratio)
	}
	if tl > 10*time.Second {
		t.Errorf("a megabyte of members took %v to drop", tl)
	}
}

// TestNullsDropRepeatedKeys: when Drop changes arguments, a key sent twice
// counts once, at its first place, with its last value, as encoding/json
// (which validation decodes with) reads it, in objects of every size. What
// it returns then repeats no key, so the validator and the tool cannot read
// different values from it. Arguments it drops nothing from come back as
// sent, to be read as any other arguments are.
func TestNullsDropRepeatedKeys(t *testing.T) {
	plan := Strict(createStickyNote.InputSchema).Nulls
	var filler strings.Builder // enough members that large objects take another path than small ones
	for i := range 100 {
		fmt.Fprintf(&filler, `,"m%d":%d`, i, i)
	}
	for _, tc := range []struct{ name, sent, want string }{
		{"a null after a value drops the member",
			`{"text":"a","color":"red","x":1,"y":2,"color":null}`,
			`{"text":"a","x":1,"y":2}`},
		{"a value after a null keeps the member, in its first place",
			`{"text":"a","color":null,"x":1,"y":2,"width":null,"color":"red"}`,
			`{"text":"a","color":"red","x":1,"y":2}`},
		{"a required member sent twice keeps its last value",
			`{"text":"a","x":1,"y":2,"width":null,"text":"b"}`,
			`{"text":"b","x":1,"y":2}`},
		{"large object: a null after a value",
			`{"text":"a","color":"red","x":1,"y":2` + filler.String() + `,"color":null,"m0":"again"}`,
			`{"text":"a","x":1,"y":2` + strings.Replace(filler.String(), `"m0":0`, `"m0":"again"`, 1) + `}`},
		{"large object: a value after a null",
			`{"text":"a","color":null,"x":1,"y":2` + filler.String() + `,"width":null,"color":"red","text":"b"}`,
			`{"text":"b","color":"red","x":1,"y":2` + filler.String() + `}`},
		{"nothing dropped: as sent",
			`{"text":"a","color":null,"x":1,"y":2,"color":"red"}`,
			`{"text":"a","color":null,"x":1,"y":2,"color":"red"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, changed := plan.Drop(json.RawMessage(tc.sent))
			if changed != (tc.want != tc.sent) {
				t.Errorf("Drop reports changed = %v", changed)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("Drop (-want +got):\n%s", diff)
			}
			// The same members as encoding/json reads from what was sent,
			// less the nulls the plan drops.
			var sent, kept map[string]any
			if err := json.Unmarshal([]byte(tc.sent), &sent); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(got, &kept); err != nil {
				t.Fatal(err)
			}
			for k, v := range sent {
				if m := plan.members[k]; changed && m != nil && m.drop && v == nil {
					delete(sent, k)
				}
			}
			if diff := cmp.Diff(sent, kept); diff != "" {
				t.Errorf("Drop's members differ from encoding/json's reading (-sent +kept):\n%s", diff)
			}
		})
	}
}

// TestNullsDropTooDeep: arguments nested deeper than encoding/json reads
// (which validation decodes with) come back as sent, without descending
// into them: validation rejects them.
func TestNullsDropTooDeep(t *testing.T) {
	plan := Strict(json.RawMessage(strictable["recursion through the root, draft-07 definitions, untyped object"])).Nulls
	if plan == nil {
		t.Fatal("no plan")
	}
	// The object holding "children" is one level; its arrays make the rest.
	deep := func(levels int) string {
		arrays := levels - 1
		return `{"value":"a","extra":null,"children":` + strings.Repeat("[", arrays) + strings.Repeat("]", arrays) + `}`
	}
	in := deep(maxParseDepth + 1)
	if err := json.Unmarshal([]byte(in), new(any)); err == nil {
		t.Fatal("encoding/json reads the arguments; the case shows nothing")
	}
	got, changed := plan.Drop(json.RawMessage(in))
	if changed || string(got) != in {
		t.Errorf("Drop changed arguments nested %d deep", maxParseDepth+1)
	}
	// At the bound, it still drops.
	in = deep(maxParseDepth)
	if err := json.Unmarshal([]byte(in), new(any)); err != nil {
		t.Fatalf("encoding/json does not read %d levels: %v", maxParseDepth, err)
	}
	if _, changed := plan.Drop(json.RawMessage(in)); !changed {
		t.Errorf("Drop left the null in arguments nested %d deep", maxParseDepth)
	}
}

// BenchmarkNullsDrop: dropping one null from arguments of 10,000 members
// (about 130 KB).
func BenchmarkNullsDrop(b *testing.B) {
	plan := Strict(createStickyNote.InputSchema).Nulls
	args := manyMembers(10_000)
	b.SetBytes(int64(len(args)))
	b.ReportAllocs()
	for b.Loop() {
		if _, changed := plan.Drop(args); !changed {
			b.Fatal("nothing dropped")
		}
	}
}
