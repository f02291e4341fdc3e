package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestHostileBoardFlood: a client creating boards without end is stopped at
// MaxBoards, also when its creations come all at once: past it, 409 with
// limit_exceeded saying to delete boards; a board deleted makes room again.
// Before, every creation added a board to the store, without bound.
func TestHostileBoardFlood(t *testing.T) {
	const maxBoards, clients = 5, 40
	store := slowCountStore{NewMemoryStore()}
	s := newTestServer(t, Options{Store: store, MaxBoards: maxBoards})
	createBoard(t, s, "mine")
	statuses := make([]int, clients)
	bodies := make([][]byte, clients)
	var wg sync.WaitGroup
	for i := range clients {
		wg.Go(func() {
			body := `{}`
			if i%2 == 0 {
				body = fmt.Sprintf(`{"id": "flood-%d"}`, i)
			}
			res, data := do(t, s, "POST", "/v1/boards", body)
			statuses[i], bodies[i] = res.StatusCode, data
		})
	}
	wg.Wait()
	created := 0
	for i, status := range statuses {
		switch status {
		case http.StatusCreated:
			created++
		case http.StatusConflict:
			code, msg := errorOf(t, bodies[i])
			if want := "this server keeps at most 5 boards and has 5: delete boards first"; code != "limit_exceeded" || msg != want {
				t.Errorf("client %d: 409 %s %q, want limit_exceeded %q", i, code, msg, want)
			}
		default:
			t.Errorf("client %d: %d\n%s", i, status, bodies[i])
		}
	}
	if n, err := store.CountBoards(t.Context()); created != maxBoards-1 || n != maxBoards || err != nil {
		t.Errorf("%d created, the store holds %d (%v); want %d and %d", created, n, err, maxBoards-1, maxBoards)
	}
	if res, data := do(t, s, "DELETE", "/v1/boards/mine", ""); res.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %d\n%s", res.StatusCode, data)
	}
	createBoard(t, s, "again")
	if res, data := do(t, s, "POST", "/v1/boards", `{"id": "one-too-many"}`); res.StatusCode != http.StatusConflict {
		t.Errorf("full again: %d\n%s", res.StatusCode, data)
	}
}

// slowCountStore counts slowly, so that creations at once would all see
// room if counting and creating did not take turns.
type slowCountStore struct{ Store }

func (s slowCountStore) CountBoards(ctx context.Context) (int, error) {
	n, err := s.Store.CountBoards(ctx)
	time.Sleep(10 * time.Millisecond)
	return n, err
}

// listPage is GET /v1/boards's answer.
type listPage struct {
	Boards []BoardInfo `json:"boards"`
	Next   *string     `json:"next"`
}

func getPage(t *testing.T, s http.Handler, query string) listPage {
	t.Helper()
	res, data := do(t, s, "GET", "/v1/boards"+query, "")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET /v1/boards%s: %d\n%s", query, res.StatusCode, data)
	}
	var p listPage
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil || p.Boards == nil {
		t.Fatalf("GET /v1/boards%s: %v\n%s", query, err, data)
	}
	return p
}

// Paging through GET /v1/boards with its next cursor lists every board
// exactly once, in id order, whatever the page size; the last page has no
// next (and is never empty, unless there are no boards); a board deleted
// between pages does not lose the place. Without limit, a page is 100.
func TestBoardPaging(t *testing.T) {
	s := newTestServer(t, Options{})
	if p := getPage(t, s, ""); len(p.Boards) != 0 || p.Next != nil {
		t.Errorf("no boards: %+v", p)
	}
	var want []string
	for i := range 20 {
		res, data := do(t, s, "POST", "/v1/boards", `{}`)
		if res.StatusCode != http.StatusCreated {
			t.Fatalf("%d\n%s", res.StatusCode, data)
		}
		want = append(want, decode(t, data)["id"].(string))
		if i%4 == 0 {
			id := fmt.Sprintf("named-%d", i)
			createBoard(t, s, id)
			want = append(want, id)
		}
	}
	slices.Sort(want)
	for _, limit := range []int{1, 2, 5, 25, 26, 1000} {
		var got []string
		pages := 0
		for query := fmt.Sprintf("?limit=%d", limit); ; pages++ {
			p := getPage(t, s, query)
			if len(p.Boards) == 0 || len(p.Boards) > limit {
				t.Fatalf("limit %d, page %d: %d boards", limit, pages, len(p.Boards))
			}
			for _, b := range p.Boards {
				got = append(got, b.ID)
			}
			if p.Next == nil {
				break
			}
			if *p.Next != p.Boards[len(p.Boards)-1].ID {
				t.Errorf("limit %d: next %q, the page ends with %q", limit, *p.Next, p.Boards[len(p.Boards)-1].ID)
			}
			query = fmt.Sprintf("?after=%s&limit=%d", *p.Next, limit)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("limit %d: the boards listed (-want +got):\n%s", limit, diff)
		}
	}
	// The cursor's board deleted: the next page starts where it was.
	p := getPage(t, s, "?limit=3")
	if res, _ := do(t, s, "DELETE", "/v1/boards/"+*p.Next, ""); res.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %d", res.StatusCode)
	}
	if p := getPage(t, s, "?limit=2&after="+*p.Next); p.Boards[0].ID != want[3] {
		t.Errorf("after a deleted board: %s first, want %s", p.Boards[0].ID, want[3])
	}

	// The default page.
	for i := range 101 - (len(want) - 1) { // 101 boards
		createBoard(t, s, fmt.Sprintf("z%03d", i))
	}
	if p := getPage(t, s, ""); len(p.Boards) != 100 || p.Next == nil || *p.Next != p.Boards[99].ID {
		t.Errorf("default: %d boards, next %v", len(p.Boards), p.Next)
	}
}

// A query GET /v1/boards cannot follow is refused with 400, every problem
// at once, never a partial or default list.
func TestBoardListBadQuery(t *testing.T) {
	s := newTestServer(t, Options{})
	for query, want := range map[string]string{
		"?limit=0":                    `limit "0": want a whole number from 1 to 1000`,
		"?limit=-1":                   `limit "-1": want a whole number from 1 to 1000`,
		"?limit=1001":                 `limit "1001": want a whole number from 1 to 1000`,
		"?limit=1.5":                  `limit "1.5": want a whole number from 1 to 1000`,
		"?limit=":                     `limit "": want a whole number from 1 to 1000`,
		"?limit=99999999999999999999": `limit "99999999999999999999": want a whole number from 1 to 1000`,
		"?after=":                     `after "": want a board id, the next of the page before`,
		"?after=a%2Fb":                `after "a/b": want a board id, the next of the page before`,
		"?limit=1&limit=2":            `limit is given 2 times`,
		"?page=2&cursor=x":            `unknown query parameter "cursor"; GET /v1/boards takes limit and after; unknown query parameter "page"; GET /v1/boards takes limit and after`,
		"?limit=x&after=%20":          `limit "x": want a whole number from 1 to 1000; after " ": want a board id, the next of the page before`,
		"?after=%zz":                  `the query "after=%zz" is malformed: invalid URL escape "%zz"`,
	} {
		res, data := do(t, s, "GET", "/v1/boards"+query, "")
		if res.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: %d\n%s", query, res.StatusCode, data)
			continue
		}
		if code, msg := errorOf(t, data); code != "bad_request" || msg != want {
			t.Errorf("%s: %s %q\nwant %q", query, code, msg, want)
		}
	}
}
