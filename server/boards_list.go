package server

import (
	"context"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/codemode-dev/codemode/engine"
)

// A page of GET /v1/boards: limit's default and its most.
const (
	defaultListLimit = 100
	maxListLimit     = 1000
)

// boardList is GET /v1/boards's answer: a page, and the cursor of the next
// one (none after the last), so that neither the answer nor the server's
// memory grows with the number of boards.
type boardList struct {
	Boards []BoardInfo `json:"boards"`
	Next   string      `json:"next,omitempty"`
}

func (s *Server) handleListBoards(w http.ResponseWriter, r *http.Request, _ string) *httpError {
	after, limit, herr := listParams(r.URL.RawQuery)
	if herr != nil {
		return herr
	}
	ctx, cancel := s.storeCtx(r.Context())
	defer cancel()
	// One more than the page: whether it comes says whether there is a
	// next page, so the last page is never an empty one.
	list, err := s.store.ListBoards(ctx, after, limit+1)
	if err != nil {
		return s.storeFailed("listing boards", err)
	}
	page := boardList{Boards: list}
	if len(list) > limit {
		page.Boards = list[:limit]
		page.Next = list[limit-1].ID
	}
	if page.Boards == nil {
		page.Boards = []BoardInfo{}
	}
	writeJSON(w, http.StatusOK, page)
	return nil
}

// listParams reads GET /v1/boards's query, ?limit=N&after=ID, every
// problem at once.
func listParams(raw string) (after string, limit int, herr *httpError) {
	q, err := url.ParseQuery(raw)
	if err != nil {
		return "", 0, badRequest("the query %s is malformed: %v", quoteID(raw), err)
	}
	var problems []string
	for _, k := range slices.Sorted(maps.Keys(q)) {
		switch {
		case k != "limit" && k != "after":
			problems = append(problems, "unknown query parameter "+quoteID(k)+"; GET /v1/boards takes limit and after")
		case len(q[k]) > 1:
			problems = append(problems, k+" is given "+strconv.Itoa(len(q[k]))+" times")
		}
	}
	limit = defaultListLimit
	if v, ok := q["limit"]; ok {
		n, err := strconv.Atoi(v[0])
		if err != nil || n < 1 || n > maxListLimit {
			problems = append(problems, "limit "+quoteID(v[0])+": want a whole number from 1 to "+strconv.Itoa(maxListLimit))
		}
		limit = n
	}
	if v, ok := q["after"]; ok {
		after = v[0]
		if !validBoardID(after) {
			problems = append(problems, "after "+quoteID(after)+": want a board id, the next of the page before")
		}
	}
	if len(problems) > 0 {
		return "", 0, badRequest("%s", strings.Join(problems, "; "))
	}
	return after, limit, nil
}

// roomForBoard waits for its turn to create a board (ctx bounds the wait)
// and checks the store holds fewer than MaxBoards; the caller creates the
// board, then calls done.
func (s *Server) roomForBoard(ctx context.Context, r *http.Request) (done func(), herr *httpError) {
	select {
	case s.creating <- struct{}{}:
	case <-ctx.Done():
		return nil, unavailable("other boards are being created: try again shortly")
	case <-r.Context().Done():
		return nil, unavailable("the request ended while waiting to create the board")
	}
	done = func() { <-s.creating }
	n, err := s.store.CountBoards(ctx)
	if err != nil {
		done()
		return nil, s.storeFailed("counting boards", err)
	}
	if n >= s.maxBoardCount {
		done()
		return nil, newHTTPError(http.StatusConflict, engine.CodeLimitExceeded,
			"this server keeps at most %d boards and has %d: delete boards first", s.maxBoardCount, n)
	}
	return done, nil
}
