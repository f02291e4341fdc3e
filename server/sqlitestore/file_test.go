package sqlitestore_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/codemode-dev/codemode/server"
	"github.com/codemode-dev/codemode/server/sqlitestore"
	"github.com/codemode-dev/codemode/server/storetest"
)

var ctx = context.Background()

func open(t *testing.T, path string, opts sqlitestore.Options) *sqlitestore.Store {
	t.Helper()
	s, err := sqlitestore.Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func doc(label string) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"objects":[{"id":"s1","type":"sticky","text":%q}]}`, label))
}

// A small bound, through the whole suite.
func TestConformanceSmallHistory(t *testing.T) {
	storetest.Run(t, func(t *testing.T) server.Store {
		s, err := sqlitestore.Open(filepath.Join(t.TempDir(), "boards.db"), sqlitestore.Options{MaxHistory: 3})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}, storetest.MaxHistory(3))
}

// states loads every board of a store.
func states(t *testing.T, s server.Store) []server.BoardState {
	t.Helper()
	list, err := s.ListBoards(ctx, "", 1000)
	if err != nil {
		t.Fatal(err)
	}
	var out []server.BoardState
	for _, b := range list {
		st, err := s.LoadBoard(ctx, b.ID)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, st)
	}
	return out
}

var cmpState = cmp.Options{cmpopts.EquateEmpty(), cmp.Comparer(func(a, b json.RawMessage) bool { return bytes.Equal(a, b) })}

func TestReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "boards.db")
	s, err := sqlitestore.Open(path, sqlitestore.Options{MaxHistory: 5})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateBoard(ctx, server.BoardInfo{ID: "a", Name: "A board"}, doc("a0")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateBoard(ctx, server.BoardInfo{ID: "b"}, nil); err != nil {
		t.Fatal(err)
	}
	version := int64(1)
	for i := 1; i <= 8; i++ {
		st, err := s.Commit(ctx, "a", server.Commit{Base: version, Doc: doc(fmt.Sprintf("a%d", i)), RunID: "run_x"})
		if err != nil {
			t.Fatal(err)
		}
		version = st.Version
	}
	for range 2 {
		if _, err := s.Undo(ctx, "a"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Commit(ctx, "b", server.Commit{Base: 1, Doc: doc("b1")}); err != nil {
		t.Fatal(err)
	}
	before := states(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = open(t, path, sqlitestore.Options{MaxHistory: 5})
	after := states(t, s)
	if diff := cmp.Diff(before, after, cmpState); diff != "" {
		t.Fatalf("boards after reopening (-before +after):\n%s", diff)
	}
	if after[0].Version != 11 || after[0].UndoSteps != 3 || after[0].RedoSteps != 2 {
		t.Errorf("board a: version %d, undo %d, redo %d; want 11, 3, 2", after[0].Version, after[0].UndoSteps, after[0].RedoSteps)
	}
	// The history came along: redo, and undo down to the oldest kept step.
	st, err := s.Redo(ctx, "a")
	if err != nil || string(st.Doc) != string(doc("a7")) {
		t.Fatalf("Redo after reopening = %s, %v; want a7", st.Doc, err)
	}
	for range 4 {
		if st, err = s.Undo(ctx, "a"); err != nil {
			t.Fatal(err)
		}
	}
	if string(st.Doc) != string(doc("a3")) || st.UndoSteps != 0 || st.Version != 16 {
		t.Errorf("at the oldest step: %s, undo %d, version %d; want a3, 0, 16", st.Doc, st.UndoSteps, st.Version)
	}
}

// The file keeps no more steps than the bound: undone steps that a commit
// made unreachable and steps beyond MaxHistory are deleted, not just hidden.
func TestHistoryDeletedFromFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "boards.db")
	s := open(t, path, sqlitestore.Options{MaxHistory: 4})
	for _, id := range []string{"a", "b"} {
		if _, err := s.CreateBoard(ctx, server.BoardInfo{ID: id}, doc("0")); err != nil {
			t.Fatal(err)
		}
	}
	version := int64(1)
	for i := range 30 {
		st, err := s.Commit(ctx, "a", server.Commit{Base: version, Doc: doc(fmt.Sprint(i))})
		if err != nil {
			t.Fatal(err)
		}
		if i%5 == 4 { // and some redo steps to drop
			if st, err = s.Undo(ctx, "a"); err != nil {
				t.Fatal(err)
			}
		}
		version = st.Version
	}
	if _, err := s.Commit(ctx, "b", server.Commit{Base: 1, Doc: doc("1")}); err != nil {
		t.Fatal(err)
	}
	rows := stepRows(t, path)
	if rows["a"] != 5 || rows["b"] != 2 {
		t.Errorf("steps kept in the file: %v; want a: 5 (4 undo steps and the current), b: 2", rows)
	}
	if err := s.DeleteBoard(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if rows := stepRows(t, path); len(rows) != 1 || rows["b"] != 2 {
		t.Errorf("steps kept after deleting a: %v; want b: 2", rows)
	}
}

// stepRows counts the steps each board has in the file, read on a
// connection of its own.
func stepRows(t *testing.T, path string) map[string]int {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT coalesce(b.id, '(none)'), count(*) FROM steps s LEFT JOIN boards b ON b.seq = s.board GROUP BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := map[string]int{}
	for rows.Next() {
		var id string
		var c int
		if err := rows.Scan(&id, &c); err != nil {
			t.Fatal(err)
		}
		n[id] = c
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

// rawExec runs SQL on the file outside the store.
func rawExec(t *testing.T, path, query string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(query); err != nil {
		t.Fatal(err)
	}
}

func TestRefusedFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// A store whose first page, the schema, was overwritten.
	damaged := filepath.Join(dir, "damaged.db")
	s, err := sqlitestore.Open(damaged, sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateBoard(ctx, server.BoardInfo{ID: "a"}, doc("a")); err != nil {
		t.Fatal(err)
	}
	s.Close()
	data, err := os.ReadFile(damaged)
	if err != nil {
		t.Fatal(err)
	}
	copy(data[100:4096], bytes.Repeat([]byte{0xA5}, 4096))
	write("damaged.db", data)

	other := filepath.Join(dir, "other.db")
	rawExec(t, other, `CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('keep me')`)

	newer := filepath.Join(dir, "newer.db")
	s, err = sqlitestore.Open(newer, sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateBoard(ctx, server.BoardInfo{ID: "a"}, nil); err != nil {
		t.Fatal(err)
	}
	s.Close()
	rawExec(t, newer, `PRAGMA user_version = 2`)

	noVersion := filepath.Join(dir, "noversion.db")
	rawExec(t, noVersion, `PRAGMA application_id = 1668113506; CREATE TABLE boards (x)`) // ours, but no schema version

	for _, tc := range []struct {
		path string
		want string
	}{
		{write("notes.txt", []byte("These are my notes, not a database.\n")), "is not an SQLite database"},
		{write("zeros.db", make([]byte, 4096)), "is not an SQLite database"},
		{damaged, "is damaged"},
		{other, "is an SQLite database but not a codemode board store"},
		{newer, "was written by a newer codemode (schema version 2; this one knows up to 1)"},
		{noVersion, "has no schema version"},
	} {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			before, err := os.ReadFile(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			s, err := sqlitestore.Open(tc.path, sqlitestore.Options{})
			if err == nil {
				s.Close()
				t.Fatalf("Open succeeded")
			}
			t.Log(err)
			if !strings.Contains(err.Error(), tc.path) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Open: %v\nwant an error naming %s and saying %q", err, tc.path, tc.want)
			}
			after, err := os.ReadFile(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(before, after) {
				t.Errorf("Open changed the file it refused")
			}
		})
	}
}

func TestEmptyFileBecomesADatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "boards.db")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s := open(t, path, sqlitestore.Options{})
	if _, err := s.CreateBoard(ctx, server.BoardInfo{ID: "a"}, nil); err != nil {
		t.Fatal(err)
	}
}

func TestCreatesTheDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data", "codemode")
	s := open(t, filepath.Join(dir, "boards.db"), sqlitestore.Options{})
	if _, err := s.CreateBoard(ctx, server.BoardInfo{ID: "a"}, nil); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{dir, filepath.Dir(dir)} {
		fi, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if perm := fi.Mode().Perm(); perm&0o077 != 0 {
			t.Errorf("%s has mode %v; want no access for group and others", d, perm)
		}
	}
}

// Paths with characters a URI or the driver's parameters would take for
// something else.
func TestOddPaths(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a?b.db", "c#d.db", "e%20f.db", "g h.db", "ünï.db", "x&_pragma=y.db"} {
		path := filepath.Join(dir, name)
		s, err := sqlitestore.Open(path, sqlitestore.Options{})
		if err != nil {
			t.Errorf("Open(%q): %v", name, err)
			continue
		}
		_, err = s.CreateBoard(ctx, server.BoardInfo{ID: "a"}, nil)
		s.Close()
		if err != nil {
			t.Errorf("%s: CreateBoard: %v", name, err)
		}
		if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
			t.Errorf("%s: the database is not at the path: %v", name, err)
		}
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 6 {
		t.Errorf("files made: %q; want the six databases only", names)
	}
}

func TestCannotWrite(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, path, want string
	}{
		{"under a file", filepath.Join(file, "data", "boards.db"), "cannot create the directory of"},
		{"a directory", dir, "is a directory"},
	}
	if os.Geteuid() != 0 { // root writes anywhere
		ro := filepath.Join(dir, "ro")
		if err := os.Mkdir(ro, 0o500); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, struct{ name, path, want string }{"a read-only directory", filepath.Join(ro, "boards.db"), "cannot open"})
	} else {
		t.Log("running as root: the read-only directory case is not tried")
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := sqlitestore.Open(tc.path, sqlitestore.Options{})
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded")
			}
			t.Log(err)
			if !strings.Contains(err.Error(), tc.path) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Open: %v\nwant an error naming %s and saying %q", err, tc.path, tc.want)
			}
		})
	}
}

func TestBadOptions(t *testing.T) {
	_, err := sqlitestore.Open("", sqlitestore.Options{MaxHistory: -1, BusyTimeout: -time.Second})
	if err == nil {
		t.Fatal("Open succeeded")
	}
	for _, want := range []string{"MaxHistory is -1", "BusyTimeout is -1s", `the path "" is not a file name`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Open: %v\nwant it to say %q", err, want)
		}
	}
	for _, p := range []string{":memory:", "file:x.db?mode=memory"} {
		if _, err := sqlitestore.Open(p, sqlitestore.Options{}); err == nil || !strings.Contains(err.Error(), "server.NewMemoryStore") {
			t.Errorf("Open(%q): %v; want a pointer to server.NewMemoryStore", p, err)
		}
	}
}

// Two Stores on one file, as two processes would have: their writes take
// turns, each sees the other's, and a stale commit is a conflict, not a lost
// update.
func TestTwoStoresOneFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "boards.db")
	// Opened at once on a file that does not exist yet: one makes the
	// schema, the other waits and finds it.
	var stores [2]*sqlitestore.Store
	var wg sync.WaitGroup
	for i := range stores {
		wg.Go(func() {
			s, err := sqlitestore.Open(path, sqlitestore.Options{})
			if err != nil {
				t.Errorf("Open %d: %v", i, err)
				return
			}
			stores[i] = s
		})
	}
	wg.Wait()
	if t.Failed() {
		for _, s := range stores {
			if s != nil {
				s.Close()
			}
		}
		t.FailNow()
	}
	a, b := stores[0], stores[1]
	defer a.Close()
	defer b.Close()

	if _, err := a.CreateBoard(ctx, server.BoardInfo{ID: "shared"}, doc("0")); err != nil {
		t.Fatal(err)
	}
	if _, err := b.CreateBoard(ctx, server.BoardInfo{ID: "shared"}, doc("0")); !errors.Is(err, server.ErrExists) {
		t.Fatalf("the second store creates the same board: %v, want ErrExists", err)
	}
	const writers, commits = 3, 40
	var mu sync.Mutex
	done := 0
	for w := range 2 * writers {
		s := stores[w%2]
		wg.Go(func() {
			for i := 0; i < commits; {
				st, err := s.LoadBoard(ctx, "shared")
				if err != nil {
					t.Errorf("writer %d: %v", w, err)
					return
				}
				_, err = s.Commit(ctx, "shared", server.Commit{Base: st.Version, Doc: doc(fmt.Sprintf("w%d i%d", w, i))})
				if errors.Is(err, server.ErrConflict) {
					continue
				}
				if err != nil {
					t.Errorf("writer %d: %v", w, err)
					return
				}
				i++
				mu.Lock()
				done++
				mu.Unlock()
			}
		})
		// And a board of its own on each store.
		wg.Go(func() {
			id := fmt.Sprintf("own-%d", w)
			if _, err := s.CreateBoard(ctx, server.BoardInfo{ID: id}, nil); err != nil {
				t.Errorf("%s: %v", id, err)
				return
			}
			for i := range commits {
				if _, err := s.Commit(ctx, id, server.Commit{Base: int64(1 + i), Doc: doc(fmt.Sprint(i))}); err != nil {
					t.Errorf("%s: %v", id, err)
					return
				}
			}
		})
	}
	wg.Wait()
	sa, sb := states(t, a), states(t, b)
	if diff := cmp.Diff(sa, sb, cmpState); diff != "" {
		t.Errorf("the two stores disagree (-a +b):\n%s", diff)
	}
	shared := sa[len(sa)-1] // after the own-N boards, in id order
	if len(sa) != 1+2*writers || shared.ID != "shared" || shared.Version != int64(1+done) || done != 2*writers*commits {
		t.Errorf("%d boards, %s at version %d after %d commits; want %d boards, shared at version %d", len(sa), shared.ID, shared.Version, done, 1+2*writers, 1+2*writers*commits)
	}
}

// A commit that returned survives the process dying without Close: a child
// process commits and kills itself, and the parent finds every commit.
func TestCommittedSurvivesKill(t *testing.T) {
	if path := os.Getenv("SQLITESTORE_KILL_CHILD"); path != "" {
		s, err := sqlitestore.Open(path, sqlitestore.Options{})
		if err != nil {
			fmt.Println(err)
			os.Exit(2)
		}
		if _, err := s.CreateBoard(ctx, server.BoardInfo{ID: "a"}, nil); err != nil {
			fmt.Println(err)
			os.Exit(2)
		}
		for i := range 50 {
			if _, err := s.Commit(ctx, "a", server.Commit{Base: int64(1 + i), Doc: doc(fmt.Sprint(i))}); err != nil {
				fmt.Println(err)
				os.Exit(2)
			}
		}
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
	path := filepath.Join(t.TempDir(), "boards.db")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestCommittedSurvivesKill$")
	cmd.Env = append(os.Environ(), "SQLITESTORE_KILL_CHILD="+path)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the child did not die of SIGKILL: %v\n%s", err, out)
	}
	if _, err := os.Stat(path + "-wal"); err != nil {
		t.Logf("no write-ahead log left behind: %v", err)
	}
	s := open(t, path, sqlitestore.Options{})
	st, err := s.LoadBoard(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if st.Version != 51 || string(st.Doc) != string(doc("49")) || st.UndoSteps != 50 {
		t.Errorf("after the crash: version %d, undo %d, %s; want version 51, undo 50, the 50th commit", st.Version, st.UndoSteps, st.Doc)
	}
}

// Close while commits are under way: each commit that returned success is in
// the file when it is opened again, and nothing else is.
func TestCloseLosesNoCommit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "boards.db")
	s, err := sqlitestore.Open(path, sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const workers = 6
	last := make([]server.BoardState, workers)
	var wg, started sync.WaitGroup
	started.Add(workers)
	for w := range workers {
		id := fmt.Sprint("w", w)
		st, err := s.CreateBoard(ctx, server.BoardInfo{ID: id}, doc("0"))
		if err != nil {
			t.Fatal(err)
		}
		last[w] = st
		wg.Go(func() {
			for i := 1; ; i++ {
				if i == 5 {
					started.Done()
				}
				st, err := s.Commit(ctx, id, server.Commit{Base: last[w].Version, Doc: doc(fmt.Sprint(i))})
				if err != nil {
					if !strings.Contains(err.Error(), "closed") {
						t.Errorf("%s: %v; want a closed store's error", id, err)
					}
					return
				}
				last[w] = st
			}
		})
	}
	started.Wait()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	s = open(t, path, sqlitestore.Options{})
	for _, want := range last {
		got, err := s.LoadBoard(ctx, want.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Version != want.Version || !bytes.Equal(got.Doc, want.Doc) {
			t.Errorf("%s: version %d %s after reopening; the last commit that succeeded made %d %s", want.ID, got.Version, got.Doc, want.Version, want.Doc)
		}
	}
}
