package server

import (
	"net/http"
)

// handleBoardEvents is a board's event stream: every event of every run on
// it, from any client, and the board's own events (board, board_deleted),
// so that every open view of the board follows it live. It begins with the
// board as it is now, or, for a client resuming with Last-Event-ID, with the
// events it missed. It ends when the board is deleted, the client goes away
// or falls too far behind, or the server shuts down. Past MaxWatchers
// streams, or MaxWatchersPerBoard on the board, it is a 503.
func (s *Server) handleBoardEvents(w http.ResponseWriter, r *http.Request, id string) *httpError {
	if s.shuttingDown() {
		return errShuttingDown()
	}
	lb, herr := s.boards.acquire(r.Context(), id)
	if herr != nil {
		return herr
	}
	defer s.boards.release(lb)
	if r.Method == http.MethodHead {
		startStream(w, nil) // the headers of a stream, without one
		return nil
	}
	if herr := s.watch(); herr != nil {
		return herr
	}
	defer s.unwatch()
	if s.cluster != nil {
		if herr := s.watchFromCluster(r.Context(), lb); herr != nil {
			return herr
		}
	}
	q, herr := lb.hub.subscribe(r.Header.Get("Last-Event-ID"), lb.committed)
	if herr != nil {
		return herr
	}
	defer lb.hub.unsubscribe(q)
	if s.cluster != nil {
		// A change of another replica's that is open in the log was
		// replayed to this watcher: check on it (its holder may be dead),
		// as for the watchers who saw it begin.
		lb.hub.mu.Lock()
		s.checkOpenLater(lb)
		lb.hub.mu.Unlock()
	}
	startStream(w, nil)
	s.pump(w, r, q, nil, s.done)
	return nil
}
