// Package storetest is the conformance suite of server.Store: every store —
// server.NewMemoryStore, server/sqlitestore, a shared database one day —
// runs it from its own tests and must pass it, under -race:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) server.Store {
//			s, err := mystore.Open(...)
//			if err != nil {
//				t.Fatal(err)
//			}
//			return s
//		}, storetest.MaxHistory(100))
//	}
//
// What it holds a store to, beyond the comments of server.Store:
//   - a board is created at version 1 with no history; a zero Created is set
//     to the time of the call, a given one is kept; Updated starts at Created
//     unless given, and is set to the time of every commit, undo and redo;
//   - ListBoards orders by id, byte by byte, and pages from any id, a
//     board's or not; a limit below 1 is an error; CountBoards agrees with it;
//   - a board created without a document has {"objects":[]};
//   - documents come back as the same JSON, up to insignificant white space
//     (member order and the spelling of numbers and strings kept), and a
//     store neither keeps nor returns a caller's buffer;
//   - a document that is not JSON is refused and changes nothing;
//   - versions go up by exactly one with every commit, undo and redo, and by
//     nothing else (failed calls included);
//   - ids are [A-Za-z0-9_-]{1,64}, case-sensitive;
//   - errors are tested with errors.Is against the server.Err* sentinels;
//   - a call whose context is already cancelled fails with the context's
//     error and changes nothing;
//   - after Close every call fails (no panic), and Close again does not panic;
//     calls under way when Close is called succeed or fail, without a panic;
//   - history is bounded only if MaxHistory is passed: the store then keeps
//     exactly that many undo steps, dropping the oldest.
package storetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/codemode-dev/codemode/server"
)

// An Option tells the suite about the store under test.
type Option func(*config)

type config struct {
	maxHistory int // 0 = unbounded
}

// MaxHistory tells the suite the store keeps n undo steps per board and drops
// older ones; the suite checks it does exactly that. Without it the suite
// expects a store to keep at least 150 steps.
func MaxHistory(n int) Option { return func(c *config) { c.maxHistory = n } }

// Run runs the suite. open returns a new, empty store for one subtest; the
// suite closes it when the subtest ends (open may register cleanups of its
// own, e.g. to check the store's files afterwards).
func Run(t *testing.T, open func(t *testing.T) server.Store, opts ...Option) {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	h := &harness{open: open, cfg: cfg}
	tests := []struct {
		name string
		fn   func(*testing.T, server.Store)
	}{
		{"CreateListLoadDelete", h.testCreateListLoadDelete},
		{"Errors", h.testErrors},
		{"Times", h.testTimes},
		{"ListOrder", h.testListOrder},
		{"CommitUndoRedo", h.testCommitUndoRedo},
		{"Conflict", h.testConflict},
		{"Documents", h.testDocuments},
		{"NotJSON", h.testNotJSON},
		{"BuffersNotShared", h.testBuffersNotShared},
		{"IDs", h.testIDs},
		{"History", h.testHistory},
		{"ConcurrentOneBoard", h.testConcurrentOneBoard},
		{"ConcurrentSameBase", h.testConcurrentSameBase},
		{"ConcurrentManyBoards", h.testConcurrentManyBoards},
		{"CancelledContext", h.testCancelledContext},
		{"AfterClose", h.testAfterClose},
		{"CloseWhileBusy", h.testCloseWhileBusy},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := open(t)
			if s == nil {
				t.Fatal("open returned a nil store")
			}
			t.Cleanup(func() {
				if err := s.Close(); err != nil && tc.name != "AfterClose" {
					t.Errorf("Close: %v", err)
				}
			})
			tc.fn(t, s)
		})
	}
}

type harness struct {
	open func(t *testing.T) server.Store
	cfg  config
}

var ctx = context.Background()

// doc makes a small board document that names what made it.
func doc(label string) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"objects":[{"id":"s1","type":"sticky","text":%q}]}`, label))
}

// sameJSON reports whether a and b are the same JSON up to white space.
func sameJSON(a, b []byte) bool {
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return false
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

// want is what a test expects of a board state; zero times are not checked.
type want struct {
	id, name        string
	version         int64
	doc             json.RawMessage
	undo, redo      int
	created         time.Time
	updatedFrom, to time.Time // Updated within [updatedFrom, to] when set
}

func check(t *testing.T, what string, got server.BoardState, w want) {
	t.Helper()
	if got.ID != w.id || got.Name != w.name || got.Version != w.version || got.UndoSteps != w.undo || got.RedoSteps != w.redo {
		t.Errorf("%s: got id %q name %q version %d undo %d redo %d, want id %q name %q version %d undo %d redo %d",
			what, got.ID, got.Name, got.Version, got.UndoSteps, got.RedoSteps, w.id, w.name, w.version, w.undo, w.redo)
	}
	if w.doc != nil && !sameJSON(got.Doc, w.doc) {
		t.Errorf("%s: document\n%s\nwant\n%s", what, got.Doc, w.doc)
	}
	if !w.created.IsZero() && !got.Created.Equal(w.created) {
		t.Errorf("%s: Created %v, want %v", what, got.Created, w.created)
	}
	if !w.updatedFrom.IsZero() {
		within(t, what+": Updated", got.Updated, w.updatedFrom, w.to)
	}
}

// within checks that a store's time is in [from, to], allowing a store to
// keep times to the microsecond.
func within(t *testing.T, what string, got, from, to time.Time) {
	t.Helper()
	if got.Before(from.Truncate(time.Microsecond)) || got.After(to) {
		t.Errorf("%s = %v, want within [%v, %v]", what, got, from, to)
	}
}

// load loads a board and checks it, so every change is checked as the store
// returned it and as it keeps it.
func load(t *testing.T, s server.Store, what string, w want) server.BoardState {
	t.Helper()
	got, err := s.LoadBoard(ctx, w.id)
	if err != nil {
		t.Fatalf("%s: LoadBoard(%q): %v", what, w.id, err)
	}
	check(t, what+" (loaded)", got, w)
	return got
}

func mustCreate(t *testing.T, s server.Store, id string, d json.RawMessage) server.BoardState {
	t.Helper()
	st, err := s.CreateBoard(ctx, server.BoardInfo{ID: id}, d)
	if err != nil {
		t.Fatalf("CreateBoard(%q): %v", id, err)
	}
	return st
}

func mustCommit(t *testing.T, s server.Store, id string, base int64, d json.RawMessage) server.BoardState {
	t.Helper()
	st, err := s.Commit(ctx, id, server.Commit{Base: base, Doc: d, RunID: "run_test"})
	if err != nil {
		t.Fatalf("Commit(%q, base %d): %v", id, base, err)
	}
	return st
}

func (h *harness) testCreateListLoadDelete(t *testing.T, s server.Store) {
	before := time.Now()
	a, err := s.CreateBoard(ctx, server.BoardInfo{ID: "a", Name: "Plans ✏️"}, doc("a"))
	after := time.Now()
	if err != nil {
		t.Fatalf("CreateBoard: %v", err)
	}
	wa := want{id: "a", name: "Plans ✏️", version: 1, doc: doc("a")}
	check(t, "created", a, wa)
	within(t, "Created", a.Created, before, after)
	if !a.Updated.Equal(a.Created) {
		t.Errorf("Updated %v, want Created %v", a.Updated, a.Created)
	}
	wa.created = a.Created
	load(t, s, "a", wa)

	b := mustCreate(t, s, "b", nil)
	wb := want{id: "b", version: 1, doc: json.RawMessage(`{"objects":[]}`)}
	check(t, "created without a document", b, wb)

	list, err := listAll(s)
	if err != nil {
		t.Fatalf("ListBoards: %v", err)
	}
	if diff := cmp.Diff([]server.BoardInfo{a.BoardInfo, b.BoardInfo}, list); diff != "" {
		t.Errorf("ListBoards (-want +got):\n%s", diff)
	}

	if err := s.DeleteBoard(ctx, "a"); err != nil {
		t.Fatalf("DeleteBoard: %v", err)
	}
	if _, err := s.LoadBoard(ctx, "a"); !errors.Is(err, server.ErrNotFound) {
		t.Errorf("LoadBoard after DeleteBoard: %v, want ErrNotFound", err)
	}
	if err := s.DeleteBoard(ctx, "a"); !errors.Is(err, server.ErrNotFound) {
		t.Errorf("DeleteBoard again: %v, want ErrNotFound", err)
	}
	list, err = listAll(s)
	if err != nil {
		t.Fatalf("ListBoards: %v", err)
	}
	if diff := cmp.Diff([]server.BoardInfo{b.BoardInfo}, list); diff != "" {
		t.Errorf("ListBoards after DeleteBoard (-want +got):\n%s", diff)
	}
	load(t, s, "b", wb)

	// A board with the id of a deleted one starts afresh: its history went
	// with the old board.
	mustCommit(t, s, "b", 1, doc("b2"))
	if err := s.DeleteBoard(ctx, "b"); err != nil {
		t.Fatalf("DeleteBoard: %v", err)
	}
	st := mustCreate(t, s, "b", doc("new b"))
	check(t, "re-created", st, want{id: "b", version: 1, doc: doc("new b")})
	if _, err := s.Undo(ctx, "b"); !errors.Is(err, server.ErrNothingToUndo) {
		t.Errorf("Undo on a re-created board: %v, want ErrNothingToUndo", err)
	}
	if list, err := listAll(s); err != nil || len(list) != 1 || list[0].ID != "b" {
		t.Errorf("ListBoards = %v, %v; want just b", list, err)
	}

	if err := s.DeleteBoard(ctx, "b"); err != nil {
		t.Fatalf("DeleteBoard: %v", err)
	}
	list, err = listAll(s)
	if err != nil || len(list) != 0 {
		t.Errorf("ListBoards of an empty store = %#v, %v; want none", list, err)
	}
}

func (h *harness) testErrors(t *testing.T, s server.Store) {
	a := mustCreate(t, s, "a", doc("a"))
	if _, err := s.CreateBoard(ctx, server.BoardInfo{ID: "a", Name: "other"}, doc("other")); !errors.Is(err, server.ErrExists) {
		t.Errorf("CreateBoard of a taken id: %v, want ErrExists", err)
	}
	load(t, s, "unchanged by the refused CreateBoard", want{id: "a", version: 1, doc: doc("a"), created: a.Created})

	for name, call := range map[string]func() error{
		"LoadBoard":   func() error { _, err := s.LoadBoard(ctx, "nope"); return err },
		"DeleteBoard": func() error { return s.DeleteBoard(ctx, "nope") },
		"Commit":      func() error { _, err := s.Commit(ctx, "nope", server.Commit{Base: 1, Doc: doc("x")}); return err },
		"Undo":        func() error { _, err := s.Undo(ctx, "nope"); return err },
		"Redo":        func() error { _, err := s.Redo(ctx, "nope"); return err },
	} {
		if err := call(); !errors.Is(err, server.ErrNotFound) {
			t.Errorf("%s of an unknown board: %v, want ErrNotFound", name, err)
		}
	}
	if _, err := s.Undo(ctx, "a"); !errors.Is(err, server.ErrNothingToUndo) {
		t.Errorf("Undo of a new board: %v, want ErrNothingToUndo", err)
	}
	if _, err := s.Redo(ctx, "a"); !errors.Is(err, server.ErrNothingToRedo) {
		t.Errorf("Redo of a new board: %v, want ErrNothingToRedo", err)
	}
	// None of that moved the board.
	load(t, s, "after the failed calls", want{id: "a", version: 1, doc: doc("a"), created: a.Created, updatedFrom: a.Updated, to: a.Updated})
	if list, err := listAll(s); err != nil || len(list) != 1 {
		t.Errorf("ListBoards = %v, %v; want just a", list, err)
	}
}

func (h *harness) testTimes(t *testing.T, s server.Store) {
	a := mustCreate(t, s, "a", doc("0"))
	version := a.Version
	for i, step := range []struct {
		name string
		call func() (server.BoardState, error)
	}{
		{"Commit", func() (server.BoardState, error) {
			return s.Commit(ctx, "a", server.Commit{Base: version, Doc: doc("1")})
		}},
		{"Undo", func() (server.BoardState, error) { return s.Undo(ctx, "a") }},
		{"Redo", func() (server.BoardState, error) { return s.Redo(ctx, "a") }},
	} {
		time.Sleep(2 * time.Millisecond) // so a store that does not move Updated shows it
		before := time.Now()
		st, err := step.call()
		after := time.Now()
		if err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		version = st.Version
		undo := 1
		if step.name == "Undo" {
			undo = 0
		}
		w := want{id: "a", version: int64(i + 2), undo: undo, redo: 1 - undo, created: a.Created, updatedFrom: before, to: after}
		check(t, step.name, st, w)
		load(t, s, step.name, w)
		list, err := listAll(s)
		if err != nil || len(list) != 1 {
			t.Fatalf("ListBoards = %v, %v", list, err)
		}
		if !list[0].Updated.Equal(st.Updated) || !list[0].Created.Equal(a.Created) {
			t.Errorf("after %s, ListBoards has Created %v Updated %v, want %v %v", step.name, list[0].Created, list[0].Updated, a.Created, st.Updated)
		}
	}

	// Times a caller gives are kept.
	created := time.Date(2024, 2, 29, 12, 30, 15, 123456000, time.UTC)
	updated := created.Add(time.Hour)
	b, err := s.CreateBoard(ctx, server.BoardInfo{ID: "b", Created: created, Updated: updated}, nil)
	if err != nil {
		t.Fatalf("CreateBoard: %v", err)
	}
	w := want{id: "b", version: 1, created: created, updatedFrom: updated, to: updated}
	check(t, "created with times", b, w)
	load(t, s, "created with times", w)
	c, err := s.CreateBoard(ctx, server.BoardInfo{ID: "c", Created: created}, nil)
	if err != nil {
		t.Fatalf("CreateBoard: %v", err)
	}
	check(t, "created with a time", c, want{id: "c", version: 1, created: created, updatedFrom: created, to: created})
}

// listAll lists every board by pages of two, as a client pages through
// them, and checks CountBoards agrees.
func listAll(s server.Store) ([]server.BoardInfo, error) {
	all := []server.BoardInfo{}
	after := ""
	for {
		page, err := s.ListBoards(ctx, after, 2)
		if err != nil {
			return nil, err
		}
		if len(page) > 2 {
			return nil, fmt.Errorf("ListBoards(%q, 2) has %d boards", after, len(page))
		}
		all = append(all, page...)
		if len(page) < 2 {
			break
		}
		after = page[1].ID
	}
	n, err := s.CountBoards(ctx)
	if err != nil {
		return nil, err
	}
	if n != len(all) {
		return nil, fmt.Errorf("CountBoards is %d, the list has %d", n, len(all))
	}
	return all, nil
}

func (h *harness) testListOrder(t *testing.T, s server.Store) {
	// In the byte order of the ids, whatever the order or times of their
	// creation; a page starts after its cursor, a board or not.
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, b := range []struct {
		id string
		at time.Time
	}{
		{"z", time.Time{}},
		{"m", t0},
		{"b", t0.Add(time.Minute)},
		{"Y", t0},
		{"a", t0},
		{"a-", t0},
		{"_", t0},
		{"9", t0},
	} {
		if _, err := s.CreateBoard(ctx, server.BoardInfo{ID: b.id, Created: b.at}, nil); err != nil {
			t.Fatalf("CreateBoard(%q): %v", b.id, err)
		}
	}
	ids := func(list []server.BoardInfo) []string {
		got := []string{}
		for _, b := range list {
			got = append(got, b.ID)
		}
		return got
	}
	for _, tc := range []struct {
		after string
		limit int
		want  []string
	}{
		{"", 100, []string{"9", "Y", "_", "a", "a-", "b", "m", "z"}},
		{"", 3, []string{"9", "Y", "_"}},
		{"_", 3, []string{"a", "a-", "b"}},
		{"a", 1, []string{"a-"}},
		{"a-", 100, []string{"b", "m", "z"}},
		{"c", 2, []string{"m", "z"}}, // no board c
		{"-", 1, []string{"9"}},
		{"z", 5, []string{}},
		{"zz", 5, []string{}},
	} {
		list, err := s.ListBoards(ctx, tc.after, tc.limit)
		if err != nil {
			t.Fatalf("ListBoards(%q, %d): %v", tc.after, tc.limit, err)
		}
		if diff := cmp.Diff(tc.want, ids(list)); diff != "" {
			t.Errorf("ListBoards(%q, %d) (-want +got):\n%s", tc.after, tc.limit, diff)
		}
	}
	// After a board deleted since: the list goes on from its place.
	if err := s.DeleteBoard(ctx, "a-"); err != nil {
		t.Fatal(err)
	}
	if list, err := s.ListBoards(ctx, "a-", 2); err != nil || !cmp.Equal(ids(list), []string{"b", "m"}) {
		t.Errorf("ListBoards after a deleted board = %v, %v; want b, m", ids(list), err)
	}
	if n, err := s.CountBoards(ctx); err != nil || n != 7 {
		t.Errorf("CountBoards = %d, %v; want 7", n, err)
	}
	for _, limit := range []int{0, -1} {
		if list, err := s.ListBoards(ctx, "", limit); err == nil {
			t.Errorf("ListBoards with limit %d = %v, no error", limit, ids(list))
		}
	}
}

func (h *harness) testCommitUndoRedo(t *testing.T, s server.Store) {
	mustCreate(t, s, "a", doc("d0"))
	d := func(i int) json.RawMessage { return doc(fmt.Sprintf("d%d", i)) }
	type step struct {
		op      string // commit, undo, redo
		base    int64
		err     error
		version int64
		doc     int
		undo    int
		redo    int
		run     string // an undo's or redo's StepRunID: the run of the step it moved over (commit i is run_i)
	}
	steps := []step{
		{op: "commit", base: 1, version: 2, doc: 1, undo: 1},
		{op: "commit", base: 2, version: 3, doc: 2, undo: 2},
		{op: "undo", version: 4, doc: 1, undo: 1, redo: 1, run: "run_1"},
		{op: "undo", version: 5, doc: 0, undo: 0, redo: 2, run: "run_0"},
		{op: "undo", err: server.ErrNothingToUndo, version: 5, doc: 0, undo: 0, redo: 2},
		{op: "redo", version: 6, doc: 1, undo: 1, redo: 1, run: "run_0"},
		{op: "redo", version: 7, doc: 2, undo: 2, redo: 0, run: "run_1"},
		{op: "redo", err: server.ErrNothingToRedo, version: 7, doc: 2, undo: 2},
		{op: "undo", version: 8, doc: 1, undo: 1, redo: 1, run: "run_1"},
		// A commit after an undo drops what could be redone.
		{op: "commit", base: 8, version: 9, doc: 3, undo: 2},
		{op: "redo", err: server.ErrNothingToRedo, version: 9, doc: 3, undo: 2},
		{op: "undo", version: 10, doc: 1, undo: 1, redo: 1, run: "run_9"},
		{op: "undo", version: 11, doc: 0, undo: 0, redo: 2, run: "run_0"},
		{op: "redo", version: 12, doc: 1, undo: 1, redo: 1, run: "run_0"},
		{op: "redo", version: 13, doc: 3, undo: 2, redo: 0, run: "run_9"},
		{op: "commit", base: 13, version: 14, doc: 4, undo: 3},
	}
	for i, st := range steps {
		var got server.BoardState
		var err error
		switch st.op {
		case "commit":
			got, err = s.Commit(ctx, "a", server.Commit{Base: st.base, Doc: d(st.doc), RunID: fmt.Sprintf("run_%d", i)})
		case "undo":
			got, err = s.Undo(ctx, "a")
		case "redo":
			got, err = s.Redo(ctx, "a")
		}
		what := fmt.Sprintf("step %d (%s)", i+1, st.op)
		w := want{id: "a", version: st.version, doc: d(st.doc), undo: st.undo, redo: st.redo}
		if st.err != nil {
			if !errors.Is(err, st.err) {
				t.Fatalf("%s: %v, want %v", what, err, st.err)
			}
		} else {
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			check(t, what, got, w)
			if got.StepRunID != st.run {
				t.Errorf("%s: StepRunID %q, want %q", what, got.StepRunID, st.run)
			}
		}
		load(t, s, what, w)
	}
}

func (h *harness) testConflict(t *testing.T, s server.Store) {
	mustCreate(t, s, "a", doc("d0"))
	mustCommit(t, s, "a", 1, doc("d1"))
	for _, base := range []int64{1, 0, -1, 3, 1 << 40} {
		if _, err := s.Commit(ctx, "a", server.Commit{Base: base, Doc: doc("stale")}); !errors.Is(err, server.ErrConflict) {
			t.Errorf("Commit with base %d on a board at version 2: %v, want ErrConflict", base, err)
		}
	}
	load(t, s, "after the refused commits", want{id: "a", version: 2, doc: doc("d1"), undo: 1})
	// An undo moves the version too: a run that started before it is stale.
	if _, err := s.Undo(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Commit(ctx, "a", server.Commit{Base: 2, Doc: doc("stale")}); !errors.Is(err, server.ErrConflict) {
		t.Errorf("Commit with the base before an undo: %v, want ErrConflict", err)
	}
	load(t, s, "after the refused commit", want{id: "a", version: 3, doc: doc("d0"), redo: 1})
	mustCommit(t, s, "a", 3, doc("d2"))
	load(t, s, "after a commit on the right base", want{id: "a", version: 4, doc: doc("d2"), undo: 1})
}

// documents are the kinds of JSON a board document may hold.
func documents() map[string]json.RawMessage {
	var big strings.Builder
	big.WriteString(`{"objects":[`)
	for i := range 150 {
		if i > 0 {
			big.WriteString(",")
		}
		fmt.Fprintf(&big, `{"id":"o%d","type":"sticky","x":%d.5,"y":-%d,"w":160,"h":120,"text":"note %d: \"quoted\", <tag> & ünïcödé 🎉","color":"yellow"}`, i, i*37, i*11, i)
	}
	big.WriteString(`],"meta":{"z":1,"a":2}}`)
	return map[string]json.RawMessage{
		"empty":     json.RawMessage(`{"objects":[]}`),
		"spaced":    json.RawMessage("{ \"objects\" : [ {\"id\": \"a\"} ] ,\n\t\"x\": 1 }\n"),
		"order":     json.RawMessage(`{"z":1,"objects":[],"a":{"y":2,"b":3}}`),
		"numbers":   json.RawMessage(`{"objects":[],"n":[12345678901234567890,1e400,-0,0.1000,1E-7,3.0]}`),
		"strings":   json.RawMessage(`{"objects":[],"s":["\u00e9 é","\u2028\u2029","\ud83c\udf89 🎉","\"\\\/\b\f\n\r\t","\u0000",""]}`),
		"deep":      json.RawMessage(`{"objects":[[[[[[[[[[{"a":[null,true,false]}]]]]]]]]]]}`),
		"20KB":      json.RawMessage(big.String()),
		"not-board": json.RawMessage(`[1,"two",null]`),
	}
}

func (h *harness) testDocuments(t *testing.T, s server.Store) {
	docs := documents()
	if n := len(docs["20KB"]); n < 20000 {
		t.Fatalf("the big document has %d bytes", n)
	}
	mustCreate(t, s, "c", nil)
	version := int64(1)
	commits := 0
	for name, d := range docs {
		st, err := s.CreateBoard(ctx, server.BoardInfo{ID: "b-" + name}, d)
		if err != nil {
			t.Errorf("CreateBoard with the %s document: %v", name, err)
			continue
		}
		check(t, "created with "+name, st, want{id: "b-" + name, version: 1, doc: d})
		load(t, s, "created with "+name, want{id: "b-" + name, version: 1, doc: d})

		st, err = s.Commit(ctx, "c", server.Commit{Base: version, Doc: d})
		if err != nil {
			t.Fatalf("Commit of the %s document: %v", name, err)
		}
		version = st.Version
		commits++
		undo := min(commits, h.cfg.maxHistoryOr(1<<30))
		w := want{id: "c", version: version, doc: d, undo: undo}
		check(t, "committed "+name, st, w)
		load(t, s, "committed "+name, w)
		// And back through undo and redo.
		if _, err := s.Undo(ctx, "c"); err != nil {
			t.Fatal(err)
		}
		st, err = s.Redo(ctx, "c")
		if err != nil {
			t.Fatal(err)
		}
		version = st.Version
		check(t, "redone "+name, st, want{id: "c", version: version, doc: d, undo: undo})
	}
}

func (c config) maxHistoryOr(n int) int {
	if c.maxHistory > 0 {
		return c.maxHistory
	}
	return n
}

func (h *harness) testNotJSON(t *testing.T, s server.Store) {
	mustCreate(t, s, "a", doc("d0"))
	for _, bad := range []string{`{"objects":[}`, `{"objects":[]} x`, `nope`, "\xff", `{"a":1`} {
		if _, err := s.CreateBoard(ctx, server.BoardInfo{ID: "bad"}, json.RawMessage(bad)); err == nil {
			t.Errorf("CreateBoard with %q: no error", bad)
		}
		if _, err := s.Commit(ctx, "a", server.Commit{Base: 1, Doc: json.RawMessage(bad)}); err == nil {
			t.Errorf("Commit of %q: no error", bad)
		}
	}
	if _, err := s.Commit(ctx, "a", server.Commit{Base: 1}); err == nil {
		t.Errorf("Commit without a document: no error")
	}
	if _, err := s.LoadBoard(ctx, "bad"); !errors.Is(err, server.ErrNotFound) {
		t.Errorf("a board created with a bad document: LoadBoard says %v, want ErrNotFound", err)
	}
	load(t, s, "after the refused commits", want{id: "a", version: 1, doc: doc("d0")})
}

func (h *harness) testBuffersNotShared(t *testing.T, s server.Store) {
	buf := []byte(`{"objects":["created"]}`)
	mustCreate(t, s, "a", buf)
	copy(buf, `{"objects":["CHANGED"]}`)
	load(t, s, "after the caller reused the create buffer", want{id: "a", version: 1, doc: json.RawMessage(`{"objects":["created"]}`)})

	buf = []byte(`{"objects":["committed"]}`)
	mustCommit(t, s, "a", 1, buf)
	copy(buf, `{"objects":["CHANGED!!"]}`)
	st := load(t, s, "after the caller reused the commit buffer", want{id: "a", version: 2, doc: json.RawMessage(`{"objects":["committed"]}`), undo: 1})

	copy(st.Doc, `{"objects":["SCRIBBLE!"]}`)
	load(t, s, "after the caller wrote to a loaded document", want{id: "a", version: 2, doc: json.RawMessage(`{"objects":["committed"]}`), undo: 1})
	st, err := s.Undo(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	copy(st.Doc, `{"objects":["SCRIBBLE"]}`)
	st, err = s.Redo(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	copy(st.Doc, `{"objects":["SCRIBBLE!"]}`)
	load(t, s, "after the caller wrote to undone and redone documents", want{id: "a", version: 4, doc: json.RawMessage(`{"objects":["committed"]}`), undo: 1})
	if _, err := s.Undo(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	load(t, s, "undone", want{id: "a", version: 5, doc: json.RawMessage(`{"objects":["created"]}`), redo: 1})
}

// IDs are every kind of id a server accepts.
var IDs = []string{
	"a", "A", "z", "Z", "0", "9", "_", "-", "--", "__init__", "-leading", "trailing-",
	"b_0123456789ab", "Board-One_2",
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-", // 64
	strings.Repeat("x", 64),
	strings.Repeat("Z9_-", 16),
}

func (h *harness) testIDs(t *testing.T, s server.Store) {
	for _, id := range IDs {
		if len(id) > 64 {
			t.Fatalf("id %q is too long", id)
		}
		mustCreate(t, s, id, doc(id))
	}
	list, err := listAll(s)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range list {
		got = append(got, b.ID)
	}
	if diff := cmp.Diff(slices.Sorted(slices.Values(IDs)), got); diff != "" {
		t.Errorf("ListBoards (-want +got):\n%s", diff)
	}
	for _, id := range IDs {
		load(t, s, id, want{id: id, version: 1, doc: doc(id)})
		mustCommit(t, s, id, 1, doc(id+" 2"))
	}
	for _, id := range IDs {
		load(t, s, id, want{id: id, version: 2, doc: doc(id + " 2"), undo: 1})
		if _, err := s.Undo(ctx, id); err != nil {
			t.Errorf("Undo(%q): %v", id, err)
		}
		load(t, s, id, want{id: id, version: 3, doc: doc(id), redo: 1})
	}
	// Ids differ by case: deleting "a" leaves "A".
	if err := s.DeleteBoard(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	load(t, s, "A after deleting a", want{id: "A", version: 3, doc: doc("A"), redo: 1})
	for _, id := range IDs[1:] {
		if err := s.DeleteBoard(ctx, id); err != nil {
			t.Errorf("DeleteBoard(%q): %v", id, err)
		}
	}
	if list, err := listAll(s); err != nil || len(list) != 0 {
		t.Errorf("ListBoards after deleting them all = %v, %v", list, err)
	}
}

func (h *harness) testHistory(t *testing.T, s server.Store) {
	bound := h.cfg.maxHistory
	n := bound + 7 // commits
	if bound == 0 {
		n = 150
	}
	d := func(i int) json.RawMessage { return doc(fmt.Sprintf("d%d", i)) }
	mustCreate(t, s, "a", d(0))
	mustCreate(t, s, "other", d(0)) // its history is not touched
	mustCommit(t, s, "other", 1, d(1))
	version := int64(1)
	for i := 1; i <= n; i++ {
		st := mustCommit(t, s, "a", version, d(i))
		version = st.Version
		w := want{id: "a", version: int64(1 + i), doc: d(i), undo: min(i, h.cfg.maxHistoryOr(n))}
		check(t, fmt.Sprintf("commit %d", i), st, w)
	}
	kept := h.cfg.maxHistoryOr(n)
	load(t, s, "after the commits", want{id: "a", version: version, doc: d(n), undo: kept})
	for i := 1; i <= kept; i++ {
		st, err := s.Undo(ctx, "a")
		if err != nil {
			t.Fatalf("undo %d of %d: %v", i, kept, err)
		}
		check(t, fmt.Sprintf("undo %d", i), st, want{id: "a", version: version + int64(i), doc: d(n - i), undo: kept - i, redo: i})
	}
	version += int64(kept)
	if _, err := s.Undo(ctx, "a"); !errors.Is(err, server.ErrNothingToUndo) {
		t.Errorf("undo past the %d kept steps: %v, want ErrNothingToUndo", kept, err)
	}
	load(t, s, "at the oldest kept state", want{id: "a", version: version, doc: d(n - kept), redo: kept})
	// Redo all the way; then half back and a commit, which drops the rest.
	for i := 1; i <= kept; i++ {
		if _, err := s.Redo(ctx, "a"); err != nil {
			t.Fatalf("redo %d of %d: %v", i, kept, err)
		}
	}
	version += int64(kept)
	load(t, s, "redone", want{id: "a", version: version, doc: d(n), undo: kept})
	half := kept / 2
	for range half {
		if _, err := s.Undo(ctx, "a"); err != nil {
			t.Fatal(err)
		}
	}
	version += int64(half)
	st := mustCommit(t, s, "a", version, d(-1))
	check(t, "commit after undoing half", st, want{id: "a", version: version + 1, doc: d(-1), undo: kept - half + 1})
	load(t, s, "other board", want{id: "other", version: 2, doc: d(1), undo: 1})
}

// testConcurrentSameBase: runs that started from the same version commit at
// once, round after round: exactly one wins each round.
func (h *harness) testConcurrentSameBase(t *testing.T, s server.Store) {
	const writers, rounds = 8, 20
	mustCreate(t, s, "a", doc("start"))
	base := int64(1)
	for r := range rounds {
		var wg sync.WaitGroup
		errs := make([]error, writers)
		start := make(chan struct{})
		for w := range writers {
			wg.Go(func() {
				<-start
				_, errs[w] = s.Commit(ctx, "a", server.Commit{Base: base, Doc: doc(fmt.Sprintf("r%d w%d", r, w))})
			})
		}
		close(start)
		wg.Wait()
		winner := -1
		for w, err := range errs {
			switch {
			case err == nil && winner >= 0:
				t.Errorf("round %d: writers %d and %d both committed on base %d", r, winner, w, base)
			case err == nil:
				winner = w
			case !errors.Is(err, server.ErrConflict):
				t.Errorf("round %d, writer %d: %v, want ErrConflict", r, w, err)
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: no writer committed", r)
		}
		base++
		load(t, s, fmt.Sprintf("round %d", r), want{id: "a", version: base, doc: doc(fmt.Sprintf("r%d w%d", r, winner)), undo: min(r+1, h.cfg.maxHistoryOr(rounds))})
	}
}

// testConcurrentOneBoard: writers that retry on a conflict, and others that
// undo and redo, all on one board; versions account for every success.
func (h *harness) testConcurrentOneBoard(t *testing.T, s server.Store) {
	const writers, commits, movers, moves = 6, 15, 2, 15
	mustCreate(t, s, "a", doc("start"))
	var wg sync.WaitGroup
	var mu sync.Mutex
	successes, conflicts := 0, 0
	for w := range writers {
		wg.Go(func() {
			for i := 0; i < commits; {
				st, err := s.LoadBoard(ctx, "a")
				if err != nil {
					t.Errorf("writer %d: LoadBoard: %v", w, err)
					return
				}
				_, err = s.Commit(ctx, "a", server.Commit{Base: st.Version, Doc: doc(fmt.Sprintf("w%d c%d", w, i))})
				mu.Lock()
				switch {
				case err == nil:
					successes++
					i++
				case errors.Is(err, server.ErrConflict):
					conflicts++
				default:
					t.Errorf("writer %d: Commit: %v", w, err)
					mu.Unlock()
					return
				}
				mu.Unlock()
			}
		})
	}
	for m := range movers {
		wg.Go(func() {
			for i := range moves {
				var err error
				if i%2 == 0 {
					_, err = s.Undo(ctx, "a")
				} else {
					_, err = s.Redo(ctx, "a")
				}
				mu.Lock()
				switch {
				case err == nil:
					successes++
				case errors.Is(err, server.ErrNothingToUndo), errors.Is(err, server.ErrNothingToRedo):
				default:
					t.Errorf("mover %d: %v", m, err)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	st, err := s.LoadBoard(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if st.Version != int64(1+successes) {
		t.Errorf("version %d after %d successful commits, undos and redos; want %d", st.Version, successes, 1+successes)
	}
	if st.UndoSteps+st.RedoSteps < 1 || st.UndoSteps+st.RedoSteps > writers*commits {
		t.Errorf("undo %d + redo %d steps after %d commits", st.UndoSteps, st.RedoSteps, writers*commits)
	}
	t.Logf("%d successes, %d conflicts retried", successes, conflicts)
}

// testConcurrentManyBoards: one goroutine per board, each checking that its
// board holds exactly what it did to it.
func (h *harness) testConcurrentManyBoards(t *testing.T, s server.Store) {
	const boards, ops = 12, 40
	var wg sync.WaitGroup
	for b := range boards {
		wg.Go(func() {
			id := fmt.Sprintf("board-%d", b)
			if _, err := s.CreateBoard(ctx, server.BoardInfo{ID: id}, doc(id)); err != nil {
				t.Errorf("CreateBoard(%q): %v", id, err)
				return
			}
			// The model: states, oldest first, and the current one.
			states := []string{id}
			cur := 0
			version := int64(1)
			for i := range ops {
				var st server.BoardState
				var err error
				switch {
				case (i+b)%5 == 3 && cur > 0:
					st, err = s.Undo(ctx, id)
					cur--
				case (i+b)%7 == 4 && cur < len(states)-1:
					st, err = s.Redo(ctx, id)
					cur++
				default:
					label := fmt.Sprintf("%s op %d", id, i)
					st, err = s.Commit(ctx, id, server.Commit{Base: version, Doc: doc(label)})
					states = append(states[:cur+1], label)
					if drop := len(states) - 1 - h.cfg.maxHistoryOr(ops); drop > 0 {
						states = states[drop:]
					}
					cur = len(states) - 1
				}
				if err != nil {
					t.Errorf("%s op %d: %v", id, i, err)
					return
				}
				version++
				if st.Version != version || !sameJSON(st.Doc, doc(states[cur])) || st.UndoSteps != cur || st.RedoSteps != len(states)-1-cur {
					t.Errorf("%s op %d: version %d undo %d redo %d doc %s; want %d %d %d %s", id, i,
						st.Version, st.UndoSteps, st.RedoSteps, st.Doc, version, cur, len(states)-1-cur, doc(states[cur]))
					return
				}
			}
			if b%3 == 0 {
				if err := s.DeleteBoard(ctx, id); err != nil {
					t.Errorf("DeleteBoard(%q): %v", id, err)
				}
			}
		})
	}
	wg.Wait()
	list, err := listAll(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != boards-(boards+2)/3 {
		t.Errorf("ListBoards has %d boards, want %d", len(list), boards-(boards+2)/3)
	}
}

func (h *harness) testCancelledContext(t *testing.T, s server.Store) {
	mustCreate(t, s, "a", doc("d0"))
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	for name, call := range calls(cctx, s) {
		if err := call(); !errors.Is(err, context.Canceled) {
			t.Errorf("%s with a cancelled context: %v, want context.Canceled", name, err)
		}
	}
	load(t, s, "after the cancelled calls", want{id: "a", version: 1, doc: doc("d0")})
	if list, err := listAll(s); err != nil || len(list) != 1 {
		t.Errorf("ListBoards = %v, %v; want just a", list, err)
	}
}

// calls are one call of every method but Close, on a store holding board "a"
// at version 1.
func calls(ctx context.Context, s server.Store) map[string]func() error {
	return map[string]func() error{
		"CreateBoard": func() error { _, err := s.CreateBoard(ctx, server.BoardInfo{ID: "new"}, nil); return err },
		"ListBoards":  func() error { _, err := s.ListBoards(ctx, "", 10); return err },
		"CountBoards": func() error { _, err := s.CountBoards(ctx); return err },
		"LoadBoard":   func() error { _, err := s.LoadBoard(ctx, "a"); return err },
		"Commit":      func() error { _, err := s.Commit(ctx, "a", server.Commit{Base: 1, Doc: doc("x")}); return err },
		"Undo":        func() error { _, err := s.Undo(ctx, "a"); return err },
		"Redo":        func() error { _, err := s.Redo(ctx, "a"); return err },
		"DeleteBoard": func() error { return s.DeleteBoard(ctx, "a") },
	}
}

func (h *harness) testAfterClose(t *testing.T, s server.Store) {
	mustCreate(t, s, "a", doc("d0"))
	mustCommit(t, s, "a", 1, doc("d1"))
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	for name, call := range calls(ctx, s) {
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("%s after Close panicked: %v", name, p)
				}
			}()
			err := call()
			if err == nil {
				t.Errorf("%s after Close: no error", name)
			}
			for _, sentinel := range []error{server.ErrNotFound, server.ErrExists, server.ErrConflict, server.ErrNothingToUndo, server.ErrNothingToRedo} {
				if errors.Is(err, sentinel) {
					t.Errorf("%s after Close: %v, which says %q; a closed store should say it is closed", name, err, sentinel)
				}
			}
		}()
	}
	func() {
		defer func() {
			if p := recover(); p != nil {
				t.Errorf("Close again panicked: %v", p)
			}
		}()
		_ = s.Close()
	}()
}

// testCloseWhileBusy closes a store while goroutines commit, undo, load and
// list: each call succeeds or fails, none panics or hangs.
func (h *harness) testCloseWhileBusy(t *testing.T, s server.Store) {
	const workers = 8
	for w := range workers {
		mustCreate(t, s, fmt.Sprint("w", w), doc("0"))
	}
	var wg sync.WaitGroup
	var started sync.WaitGroup
	started.Add(workers)
	for w := range workers {
		wg.Go(func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("worker %d panicked: %v", w, p)
				}
			}()
			id := fmt.Sprint("w", w)
			version := int64(1)
			for i := 0; ; i++ {
				if i == 3 {
					started.Done()
				}
				st, err := s.Commit(ctx, id, server.Commit{Base: version, Doc: doc(fmt.Sprint(i))})
				if err != nil {
					return
				}
				version = st.Version
				if _, err := s.LoadBoard(ctx, id); err != nil {
					return
				}
				if i%4 == 0 {
					if _, err := s.ListBoards(ctx, "", 10); err != nil {
						return
					}
					if _, err := s.Undo(ctx, id); err != nil {
						return
					}
					st, err := s.Redo(ctx, id)
					if err != nil {
						return
					}
					version = st.Version
				}
			}
		})
	}
	started.Wait()
	done := make(chan error, 1)
	go func() { done <- s.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Close: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return within 10 s")
	}
	wg.Wait()
}
