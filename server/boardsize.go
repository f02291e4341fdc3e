package server

import (
	"net/http"

	"github.com/codemode-dev/codemode/engine"
)

// boardTooLarge checks a board document against MaxBoardBytes before it is
// stored: a larger board would cost every later run on it (each clones and
// stores it whole), the store for good, and every watcher that is sent it.
// The 413's message is what, the size and the limit, then advice.
func (s *Server) boardTooLarge(doc []byte, what, advice string) *httpError {
	if int64(len(doc)) <= s.maxBoard {
		return nil
	}
	return newHTTPError(http.StatusRequestEntityTooLarge, engine.CodeLimitExceeded,
		"%s would take %d bytes as JSON, more than this server's limit of %d bytes for a board; %s",
		what, len(doc), s.maxBoard, advice)
}
