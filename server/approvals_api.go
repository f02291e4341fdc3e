package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/internal/strictjson"
)

// maxReasonChars bounds a denial's reason, which the denied call's error
// message carries to the model.
const maxReasonChars = 1000

// handleGetApprovals lists a run's calls waiting for a decision, so that a
// client that joined after approval_required went out can still answer. A
// run of another replica of the cluster is answered by that replica.
func (s *Server) handleGetApprovals(w http.ResponseWriter, r *http.Request, runID string) *httpError {
	answer, herr := s.pendingApprovals(runID)
	if herr != nil && !s.approvals.has(runID) {
		if done, ferr := s.forwardApprovals(w, r, runID, nil); done {
			return ferr
		}
	}
	if herr != nil {
		return herr
	}
	writeJSON(w, http.StatusOK, answer)
	return nil
}

// pendingApprovals is GET /v1/runs/{runId}/approvals's answer, from this
// replica's runs.
func (s *Server) pendingApprovals(runID string) (any, *httpError) {
	reqs, ok := s.approvals.pending(runID)
	if !ok {
		return nil, notFound("run %s has no calls waiting for approval", quoteID(runID))
	}
	return struct {
		RunID     string                   `json:"runId"`
		Approvals []engine.ApprovalRequest `json:"approvals"`
	}{runID, reqs}, nil
}

// handlePostApprovals decides some or all of a run's waiting calls. A run
// of another replica of the cluster is decided by that replica.
func (s *Server) handlePostApprovals(w http.ResponseWriter, r *http.Request, runID string) *httpError {
	data, herr := s.readJSONBody(w, r)
	if herr != nil {
		return herr
	}
	// A body that is not JSON is refused here as the owner would refuse
	// it (before looking the run up), and cannot be forwarded as JSON.
	if !s.approvals.has(runID) && json.Valid(data) {
		if done, ferr := s.forwardApprovals(w, r, runID, data); done {
			return ferr
		}
	}
	answer, herr := s.decideApprovals(runID, data)
	if herr != nil {
		return herr
	}
	writeJSON(w, http.StatusOK, answer)
	return nil
}

// decideApprovals is POST /v1/runs/{runId}/approvals's answer, for a run
// of this replica's.
func (s *Server) decideApprovals(runID string, data []byte) (any, *httpError) {
	var body struct {
		Decisions []decision `json:"decisions"`
	}
	p := strictjson.Decode(data, &body)
	if p.Broken() { // not JSON of the right shape at all: nothing to look up a run for
		return nil, badRequest("%v", p.Err())
	}
	{
		if !p.Given("decisions") {
			p.Addf("decisions", `missing: want {"decisions": [{"callId": "...", "approved": true}]}`)
		} else if len(body.Decisions) == 0 {
			p.Addf("decisions", "empty: decide at least one call")
		}
		for i, d := range body.Decisions {
			at := strictjson.Index("decisions", i)
			if d.CallID == "" {
				p.Addf(at+".callId", "missing")
			}
			if d.Approved == nil {
				p.Addf(at+".approved", "missing: true to run the call, false to deny it")
			}
			if n := len([]rune(d.Reason)); n > maxReasonChars {
				p.Addf(at+".reason", "%d characters, more than the %d allowed", n, maxReasonChars)
			}
		}
	}
	var problems []string
	for _, q := range p.List() {
		problems = append(problems, q.Error())
	}
	if extra := p.Len() - len(p.List()); extra > 0 {
		problems = append(problems, fmt.Sprintf("and %d more problems", extra))
	}
	pending, more, err := s.approvals.decide(runID, body.Decisions, p.Len() > 0)
	if err != nil {
		return nil, notFound("run %s has no calls waiting for approval", quoteID(runID))
	}
	if problems = append(problems, more...); len(problems) > 0 {
		return nil, badRequest("%s", strings.Join(problems, "; "))
	}
	if pending == nil {
		pending = []string{}
	}
	return struct {
		RunID   string   `json:"runId"`
		Pending []string `json:"pending"`
	}{runID, pending}, nil
}
