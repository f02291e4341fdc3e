package server

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"

	"github.com/codemode-dev/codemode/internal/strictjson"
	"github.com/codemode-dev/codemode/tools/whiteboard"
)

// maxNameChars bounds a board's name.
const maxNameChars = 200

// boardJSON is a board as GET /v1/boards/{id} answers it.
type boardJSON struct {
	BoardState
	Objects []whiteboard.Object `json:"objects"`
}

func boardBody(st BoardState, b *whiteboard.Board) boardJSON {
	objs := b.Objects()
	if objs == nil {
		objs = []whiteboard.Object{}
	}
	return boardJSON{BoardState: st, Objects: objs}
}

// storeCtx bounds one store call; it outlives the request's cancelation,
// so that a client going away never leaves a change half-recorded.
func (s *Server) storeCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), s.storeTimeout)
}

// createRequest is POST /v1/boards's body.
type createRequest struct {
	ID      *string         `json:"id"`
	Name    string          `json:"name"`
	Objects json.RawMessage `json:"objects"`
}

func (s *Server) handleCreateBoard(w http.ResponseWriter, r *http.Request, _ string) *httpError {
	if s.shuttingDown() {
		return errShuttingDown()
	}
	data, herr := s.readJSONBody(w, r)
	if herr != nil {
		return herr
	}
	var req createRequest
	p := strictjson.Decode(data, &req)
	var doc json.RawMessage
	if !p.Broken() {
		if req.ID != nil && !validBoardID(*req.ID) {
			p.Addf("id", "%s is not a board id: want 1 to 64 of A-Z a-z 0-9 _ -", strictjson.Quote(*req.ID))
		}
		if n := len([]rune(req.Name)); n > maxNameChars {
			p.Addf("name", "%d characters, more than the %d allowed", n, maxNameChars)
		}
		// Stored as the whiteboard writes it (connector geometry derived).
		b := whiteboard.NewBoard()
		if err := b.UnmarshalJSON(mustJSON(map[string]json.RawMessage{"objects": orEmpty(req.Objects)})); err != nil {
			addBoardProblems(p, err)
		}
		doc = mustJSON(b)
	}
	if err := p.Err(); err != nil {
		return badRequest("%v", err)
	}
	if herr := s.boardTooLarge(doc, "the board", "send fewer objects or shorter texts"); herr != nil {
		return herr
	}
	cctx, finish, herr := s.startChange(r)
	if herr != nil {
		return herr
	}
	defer finish()
	ctx, cancel := s.storeCtx(cctx)
	defer cancel()
	done, herr := s.roomForBoard(ctx, r)
	if herr != nil {
		return herr
	}
	info := BoardInfo{Name: req.Name}
	var st BoardState
	var err error
	func() {
		defer done() // before the answer is written: a slow reader must not hold up creations
		for try := 0; ; try++ {
			info.ID = newBoardID()
			if req.ID != nil {
				info.ID = *req.ID
			}
			st, err = s.store.CreateBoard(ctx, info, doc)
			if !errors.Is(err, ErrExists) || req.ID != nil || try == 3 {
				break
			}
		}
	}()
	switch {
	case errors.Is(err, ErrExists):
		return conflict("board %s exists", quoteID(info.ID))
	case err != nil:
		return s.storeFailed("creating board "+quoteID(info.ID), err)
	}
	b, err := parseDoc(st)
	if err != nil {
		return s.storeFailed("creating board "+quoteID(info.ID), err)
	}
	st.Doc = nil
	w.Header().Set("Location", "/v1/boards/"+st.ID)
	writeJSON(w, http.StatusCreated, boardBody(st, b))
	return nil
}

func orEmpty(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("[]")
	}
	return raw
}

// addBoardProblems adds the whiteboard's problems with a document to p, by
// their paths (objects[2].color).
func addBoardProblems(p *strictjson.Problems, err error) {
	var se *strictjson.Error
	if errors.As(err, &se) {
		for _, q := range se.Problems {
			p.Addf(q.Path, "%s", q.Message)
		}
		return
	}
	p.Addf("objects", "%s", strings.TrimPrefix(err.Error(), "whiteboard: "))
}

// newBoardID is "b_" and 12 base-36 digits.
func newBoardID() string {
	id := strconv.FormatUint(rand.Uint64(), 36)
	if len(id) > 12 {
		id = id[:12]
	}
	return "b_" + strings.Repeat("0", 12-len(id)) + id
}

// storeFailed is a 500 for a store that failed (and a log line): the
// server's fault, not the client's.
func (s *Server) storeFailed(what string, err error) *httpError {
	s.log.Error("server: store failed", "what", what, "err", err)
	if errors.Is(err, ErrUnavailable) {
		return unavailable("%s: the board store cannot be reached now: try again shortly", what)
	}
	return internal(errors.New(what + ": the board store failed; the server's log has the details"))
}

func (s *Server) handleGetBoard(w http.ResponseWriter, r *http.Request, id string) *httpError {
	lb, herr := s.boards.acquire(r.Context(), id)
	if herr != nil {
		return herr
	}
	defer s.boards.release(lb)
	st, b := lb.committed()
	writeJSON(w, http.StatusOK, boardBody(st, b))
	return nil
}

func (s *Server) handleBoardSVG(w http.ResponseWriter, r *http.Request, id string) *httpError {
	lb, herr := s.boards.acquire(r.Context(), id)
	if herr != nil {
		return herr
	}
	defer s.boards.release(lb)
	_, b := lb.committed()
	writeBody(w, http.StatusOK, "image/svg+xml", boardSVG(b))
	return nil
}
