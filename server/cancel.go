package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/internal/strictjson"
)

// POST /v1/runs/{runId}/cancel stops a run from any client: the run ends
// as if its own client had gone away (canceled, rolled back when atomic),
// and its answer and its watchers say so. A run is cancelable from its
// run_start on (its id is known from then: a run still waiting for its
// board has none yet) until it ends.

// cancelWait is how long a cancel waits for its run to end before it
// answers 202: a script in a loop stops within milliseconds, a tool call
// that ignores its context is abandoned at once, but a worker process that
// must be killed takes a little longer.
const cancelWait = 5 * time.Second

// ownAfter is how long a run goes before it registers in the cluster as
// this replica's, so that a cancel posted to another replica reaches it: a
// run shorter than that costs the database nothing, and a cancel that
// finds no owner waits ownAfter and a little more, and asks again.
const ownAfter = 500 * time.Millisecond

// errCanceledByClient is the cause a canceled run's error reports.
var errCanceledByClient = engine.Errorf(engine.CodeCanceled, "a client asked to stop the run")

// activate records k's run as under way once its id is known (run_start),
// and arms its registration in the cluster.
func (s *Server) activate(k *runSink, runID string) {
	s.mu.Lock()
	s.active[runID] = k
	s.mu.Unlock()
	if s.cluster != nil {
		t := time.AfterFunc(ownAfter, func() { s.ownRun(k) })
		k.mu.Lock()
		k.ownTimer = t
		k.mu.Unlock()
	}
}

// deactivate forgets k's run (its end).
func (s *Server) deactivate(k *runSink) {
	k.mu.Lock()
	id, t := k.runID, k.ownTimer
	k.mu.Unlock()
	if t != nil {
		t.Stop()
	}
	s.mu.Lock()
	if s.active[id] == k {
		delete(s.active, id)
	}
	s.mu.Unlock()
}

// activeRun is the run of id under way here, or nil.
func (s *Server) activeRun(id string) *runSink {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.active[id]
}

// cancelAnswer is POST /v1/runs/{runId}/cancel's answer.
type cancelAnswer struct {
	RunID string `json:"runId"`
	// Status is "canceled" once the run has ended, "canceling" if it had
	// not after cancelWait (202).
	Status string `json:"status"`
}

func (s *Server) handleCancelRun(w http.ResponseWriter, r *http.Request, runID string) *httpError {
	data, herr := s.readJSONBody(w, r)
	if herr != nil {
		return herr
	}
	var none struct{}
	if err := strictjson.Decode(data, &none).Err(); err != nil {
		return badRequest("%v (cancel takes no parameters: send {} or nothing)", err)
	}
	if s.activeRun(runID) == nil && s.cluster != nil {
		if done, herr := s.forwardCancel(w, r, runID); done {
			return herr
		}
	}
	status, answer, herr := s.cancelRun(r.Context(), runID)
	if herr != nil {
		return herr
	}
	writeJSON(w, status, answer)
	return nil
}

// cancelRun cancels this replica's run of id and waits (while ctx lasts)
// for it to end.
func (s *Server) cancelRun(ctx context.Context, runID string) (int, cancelAnswer, *httpError) {
	k := s.activeRun(runID)
	if k == nil {
		return 0, cancelAnswer{}, notFound("no run %s is running", quoteID(runID))
	}
	k.cancel(errCanceledByClient)
	wait := time.NewTimer(cancelWait)
	defer wait.Stop()
	select {
	case <-k.over:
	case <-wait.C:
		return http.StatusAccepted, cancelAnswer{runID, "canceling"}, nil
	case <-ctx.Done():
		return http.StatusAccepted, cancelAnswer{runID, "canceling"}, nil
	}
	// The cancel may have come as the run was ending of itself.
	k.mu.Lock()
	end := k.end
	k.mu.Unlock()
	if end == nil || end.Error == nil || end.Error.Code != engine.CodeCanceled {
		return 0, cancelAnswer{}, conflict("run %s ended before the cancel could stop it: its answer and its run_end say how", quoteID(runID))
	}
	return http.StatusOK, cancelAnswer{runID, "canceled"}, nil
}

// forwardCancel asks the replica that runs runID to cancel it; false if no
// replica does. A run that began less than ownAfter ago may not be
// registered yet: not found, it is asked for once more after that.
func (s *Server) forwardCancel(w http.ResponseWriter, r *http.Request, runID string) (bool, *httpError) {
	forward := func() ([]byte, error) {
		ctx, cancel := s.storeCtx(r.Context())
		defer cancel()
		return s.cluster.Forward(ctx, runID, mustJSON(forwarded{Method: http.MethodPost, Op: "cancel"}))
	}
	out, err := forward()
	if errors.Is(err, ErrNoOwner) {
		select {
		case <-time.After(ownAfter + 250*time.Millisecond):
		case <-r.Context().Done():
			return true, unavailable("canceled while looking for run %s: the client went away", quoteID(runID))
		}
		if s.activeRun(runID) != nil { // it was here after all (its run_start came meanwhile)
			return false, nil
		}
		out, err = forward()
	}
	if errors.Is(err, ErrNoOwner) {
		return false, nil
	}
	return true, s.answerForwarded(w, runID, out, err)
}

// answerForwarded writes the answer a replica gave a forwarded request
// about a run (or, for an id starting "pv_", a preview).
func (s *Server) answerForwarded(w http.ResponseWriter, runID string, out []byte, err error) *httpError {
	var a forwardedAnswer
	if err == nil {
		err = json.Unmarshal(out, &a)
	}
	if err != nil {
		s.log.Error("server: forwarding a request to another replica failed", "id", runID, "err", err)
		if strings.HasPrefix(runID, "pv_") {
			return unavailable("preview %s is kept by another replica, which cannot be reached now: try again shortly", quoteID(runID))
		}
		return unavailable("run %s runs on another replica, which cannot be reached now: try again shortly", quoteID(runID))
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if a.Status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "1")
	}
	w.WriteHeader(a.Status)
	w.Write(a.Body)
	return nil
}
