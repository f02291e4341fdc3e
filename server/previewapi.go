package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/codemode-dev/codemode/internal/strictjson"
)

// The endpoints of a preview (preview.go): GET and DELETE
// /v1/boards/{id}/previews/{previewId}, and POST .../apply. In a cluster a
// preview is kept by the replica that ran it; the others forward to it.

// previewEndpoint is the endpoint of /v1/boards/{id}/previews/{previewId}
// and what follows it (sub is the path after "previews").
func (s *Server) previewEndpoint(sub []string) (endpoint, bool) {
	pid := sub[0]
	switch {
	case len(sub) == 1:
		return endpoint{
			get: func(w http.ResponseWriter, r *http.Request, id string) *httpError {
				return s.previewOp(w, r, id, pid, "get")
			},
			delete: func(w http.ResponseWriter, r *http.Request, id string) *httpError {
				return s.previewOp(w, r, id, pid, "discard")
			},
		}, true
	case len(sub) == 2 && sub[1] == "apply":
		return endpoint{post: func(w http.ResponseWriter, r *http.Request, id string) *httpError {
			return s.previewOp(w, r, id, pid, "apply")
		}}, true
	}
	return endpoint{}, false
}

// previewGone is the 404 of a preview not kept (here, or anywhere in a
// cluster).
func previewGone(boardID, id string) *httpError {
	return notFound("board %s has no preview %s: it was applied, discarded or has expired", quoteID(boardID), quoteID(id))
}

// previewOp serves op ("get", "discard", "apply") on board boardID's
// preview id, here or, in a cluster, on the replica that keeps it.
func (s *Server) previewOp(w http.ResponseWriter, r *http.Request, boardID, id, op string) *httpError {
	if op == "apply" {
		data, herr := s.readJSONBody(w, r)
		if herr != nil {
			return herr
		}
		var none struct{}
		if err := strictjson.Decode(data, &none).Err(); err != nil {
			return badRequest("%v (apply takes no parameters: send {} or nothing)", err)
		}
	}
	if !validBoardID(id) {
		return previewGone(boardID, id)
	}
	if s.previews.get(boardID, id) == nil && s.cluster != nil {
		ctx, cancel := s.storeCtx(r.Context())
		out, err := s.cluster.Forward(ctx, id, mustJSON(forwarded{Method: r.Method, Op: "preview." + op, Board: boardID}))
		cancel()
		switch {
		case err == nil:
			return s.answerForwarded(w, id, out, nil)
		case !errors.Is(err, ErrNoOwner):
			s.log.Error("server: forwarding a request about a preview to its replica failed", "preview", id, "err", err)
			return unavailable("preview %s is kept by another replica, which cannot be reached now: try again shortly", quoteID(id))
		}
	}
	status, answer, herr := s.previewLocal(r.Context(), boardID, id, op)
	if herr != nil {
		return herr
	}
	if status == http.StatusNoContent {
		w.WriteHeader(status)
		return nil
	}
	writeJSON(w, status, answer)
	return nil
}

// previewLocal does op on a preview this server keeps.
func (s *Server) previewLocal(ctx context.Context, boardID, id, op string) (int, any, *httpError) {
	p := s.previews.get(boardID, id)
	if p == nil {
		return 0, nil, previewGone(boardID, id)
	}
	switch op {
	case "get":
		return http.StatusOK, p.json(), nil
	case "discard":
		if !s.previews.remove(p) {
			return 0, nil, previewGone(boardID, id)
		}
		return http.StatusNoContent, nil, nil
	}
	answer, herr := s.applyPreview(ctx, p)
	return http.StatusOK, answer, herr
}

// appliedAnswer is an apply's answer: the board as it is now, and what was
// applied.
type appliedAnswer struct {
	boardJSON
	AppliedPreview string `json:"appliedPreview"`
	RunID          string `json:"runId"`
}

// applyPreview commits p as one undo step, if its board is still at p's
// base version, and forgets p: a preview applies once.
func (s *Server) applyPreview(ctx context.Context, p *preview) (any, *httpError) {
	ctx, done, herr := s.startChangeCtx(ctx) // refuses while the server shuts down
	if herr != nil {
		return nil, herr
	}
	defer done()
	lb, release, herr := s.holdBoard(ctx, p.boardID)
	if herr != nil {
		return nil, herr
	}
	defer release()
	if s.previews.get(p.boardID, p.id) != p { // an apply or discard got there first
		return nil, previewGone(p.boardID, p.id)
	}
	st, _ := lb.committed()
	if !st.Created.Equal(p.created) {
		// Not the board the preview was made of: it was deleted since,
		// and made again (its previews went with it here, not on the
		// replica that keeps this one, nor if the run was under way).
		s.previews.remove(p)
		return nil, notFound("board %s was deleted and made again since preview %s was made: nothing was applied, and the preview is gone",
			quoteID(p.boardID), quoteID(p.id))
	}
	if st.Version != p.base {
		return nil, conflict("board %s is at version %d, not %d as when preview %s was made: nothing was applied; preview the run again on the board as it is now",
			quoteID(p.boardID), st.Version, p.base, quoteID(p.id))
	}
	if !s.previews.take(p) { // a discard (which takes no board lock) got there first
		return nil, previewGone(p.boardID, p.id)
	}
	if p.changes.changed() {
		sctx, cancel := s.storeCtx(ctx)
		next, err := s.store.Commit(sctx, p.boardID, Commit{Base: p.base, Doc: p.doc, RunID: p.runID})
		cancel()
		if err != nil {
			return nil, s.applyFailed(lb, p, err)
		}
		lb.setCommitted(next, p.board, p.doc)
	}
	releaseAll([]*preview{p})
	if p.changes.changed() {
		lb.hub.publishBoard(lb, field{"appliedPreview", jsonString(p.id)}, field{"appliedRun", jsonString(p.runID)})
	}
	return appliedAnswer{boardJSON: boardBody(lb.committed()), AppliedPreview: p.id, RunID: p.runID}, nil
}

// applyFailed is the answer to an apply whose commit the store refused
// (p taken from the previews); the board is loaded again, as after a run's
// (settle). A preview that may still apply is kept again.
func (s *Server) applyFailed(lb *liveBoard, p *preview, err error) *httpError {
	s.reload(lb)
	switch {
	case errors.Is(err, ErrConflict):
		s.previews.add(p) // to be discarded; it can never apply
		return conflict("board %s changed since preview %s was made (another server committed to it): nothing was applied; preview the run again on the board as it is now",
			quoteID(p.boardID), quoteID(p.id))
	case errors.Is(err, ErrNotFound):
		releaseAll([]*preview{p})
		return notFound("board %s was deleted: preview %s was not applied", quoteID(p.boardID), quoteID(p.id))
	}
	s.log.Error("server: applying a preview failed", "board", lb.id, "preview", p.id, "err", err)
	s.previews.add(p)
	if errors.Is(err, ErrUnavailable) {
		return unavailable("preview %s was not applied: the board store cannot be reached now: apply it again shortly", quoteID(p.id))
	}
	return internal(fmt.Errorf("preview %s was not applied: the board store failed; the server's log has the details", quoteID(p.id)))
}
