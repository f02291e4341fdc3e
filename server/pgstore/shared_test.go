package pgstore_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/codemode-dev/codemode/internal/pgtest"
	"github.com/codemode-dev/codemode/server"
	"github.com/codemode-dev/codemode/server/pgstore"
)

func doc(label string) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"objects":[{"id":"s1","type":"sticky","text":%q}]}`, label))
}

// Two Stores on one database, as two replicas have: runs that started from
// the same version commit at once through both, round after round, and
// exactly one wins each round; the others get ErrConflict.
func TestTwoStoresSameBase(t *testing.T) {
	url := pgtest.URL(t)
	stores := []*pgstore.Store{open(t, url, pgstore.Options{}), open(t, url, pgstore.Options{})}
	if _, err := stores[0].CreateBoard(ctx, server.BoardInfo{ID: "a"}, doc("start")); err != nil {
		t.Fatal(err)
	}
	const writers, rounds = 8, 25
	for r := range rounds {
		base := int64(1 + r)
		var wg sync.WaitGroup
		errs := make([]error, writers)
		start := make(chan struct{})
		for w := range writers {
			wg.Go(func() {
				<-start
				_, errs[w] = stores[w%2].Commit(ctx, "a", server.Commit{Base: base, Doc: doc(fmt.Sprintf("r%d w%d", r, w))})
			})
		}
		close(start)
		wg.Wait()
		winner := -1
		for w, err := range errs {
			switch {
			case err == nil && winner >= 0:
				t.Fatalf("round %d: writers %d and %d both committed on base %d", r, winner, w, base)
			case err == nil:
				winner = w
			case !errors.Is(err, server.ErrConflict):
				t.Fatalf("round %d, writer %d: %v, want ErrConflict", r, w, err)
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: no writer committed", r)
		}
		st, err := stores[(r+1)%2].LoadBoard(ctx, "a")
		if err != nil || st.Version != base+1 || string(st.Doc) != string(doc(fmt.Sprintf("r%d w%d", r, winner))) {
			t.Fatalf("round %d: the other store loads version %d %s (%v), want %d and writer %d's", r, st.Version, st.Doc, err, base+1, winner)
		}
	}
}

// Writers on two Stores retry on conflicts until each has committed its
// share: every commit that succeeded is in the board's history, in the
// order of its version, and none that failed is.
func TestTwoStoresNothingLost(t *testing.T) {
	url := pgtest.URL(t)
	const writers, commits = 6, 12
	opts := pgstore.Options{MaxHistory: writers*commits + 1}
	stores := []*pgstore.Store{open(t, url, opts), open(t, url, opts)}
	if _, err := stores[0].CreateBoard(ctx, server.BoardInfo{ID: "a"}, doc("start")); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	committed := map[int64]string{} // version → label
	var wg sync.WaitGroup
	for w := range writers {
		s := stores[w%2]
		wg.Go(func() {
			for i := 0; i < commits; {
				st, err := s.LoadBoard(ctx, "a")
				if err != nil {
					t.Errorf("writer %d: %v", w, err)
					return
				}
				label := fmt.Sprintf("w%d c%d", w, i)
				st, err = s.Commit(ctx, "a", server.Commit{Base: st.Version, Doc: doc(label), RunID: label})
				switch {
				case err == nil:
					mu.Lock()
					if old, dup := committed[st.Version]; dup {
						t.Errorf("version %d committed twice: %s and %s", st.Version, old, label)
					}
					committed[st.Version] = label
					mu.Unlock()
					i++
				case !errors.Is(err, server.ErrConflict):
					t.Errorf("writer %d: %v", w, err)
					return
				}
			}
		})
	}
	wg.Wait()
	if len(committed) != writers*commits {
		t.Fatalf("%d commits succeeded, want %d", len(committed), writers*commits)
	}
	versions := slices.Sorted(func(yield func(int64) bool) {
		for v := range committed {
			if !yield(v) {
				return
			}
		}
	})
	// Versions 2 … N+1, each a commit.
	if versions[0] != 2 || versions[len(versions)-1] != int64(1+writers*commits) {
		t.Errorf("versions %d … %d, want 2 … %d", versions[0], versions[len(versions)-1], 1+writers*commits)
	}
	// Walk back through the history: each step is the commit of the
	// version before, newest first.
	st, err := stores[1].LoadBoard(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if st.UndoSteps != writers*commits {
		t.Fatalf("%d undo steps, want %d", st.UndoSteps, writers*commits)
	}
	for i := len(versions) - 1; i >= 0; i-- {
		if want := doc(committed[versions[i]]); string(st.Doc) != string(want) {
			t.Fatalf("step of version %d: %s, want %s", versions[i], st.Doc, want)
		}
		if st, err = stores[i%2].Undo(ctx, "a"); err != nil {
			t.Fatalf("undo: %v", err)
		}
	}
	if string(st.Doc) != string(doc("start")) || st.UndoSteps != 0 {
		t.Errorf("after undoing every commit: %s with %d undo steps, want the start", st.Doc, st.UndoSteps)
	}
}

// A board's name is kept as given, a NUL included, which PostgreSQL's text
// could not hold.
func TestNameKeptAsGiven(t *testing.T) {
	s := open(t, pgtest.URL(t), pgstore.Options{})
	name := "a\x00b ✏️ \u2028"
	if _, err := s.CreateBoard(ctx, server.BoardInfo{ID: "a", Name: name}, nil); err != nil {
		t.Fatal(err)
	}
	st, err := s.LoadBoard(ctx, "a")
	if err != nil || st.Name != name {
		t.Errorf("LoadBoard: name %q (%v), want %q", st.Name, err, name)
	}
	list, err := s.ListBoards(ctx, "", 10)
	if err != nil || len(list) != 1 || list[0].Name != name {
		t.Errorf("ListBoards = %+v, %v", list, err)
	}
}
