package server

import (
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
// client that joined after approval_required went out can still answer.
func (s *Server) handleGetApprovals(w http.ResponseWriter, r *http.Request, runID string) *httpError {
	reqs, ok := s.approvals.pending(runID)
	if !ok {
		return notFound("run %s has no calls waiting for approval", quoteID(runID))
	}
	writeJSON(w, http.StatusOK, struct {
		RunID     string                   `json:"runId"`
		Approvals []engine.ApprovalRequest `json:"approvals"`
	}{runID, reqs})
	return nil
}

// handlePostApprovals decides some or all of a run's waiting calls.
func (s *Server) handlePostApprovals(w http.ResponseWriter, r *http.Request, runID string) *httpError {
	data, herr := s.readJSONBody(w, r)
	if herr != nil {
		return herr
	}
	var body struct {
		Decisions []decision `json:"decisions"`
	}
	p := strictjson.Decode(data, &body)
	if p.Broken() { // not JSON of the right shape at all: nothing to look up a run for
		return badRequest("%v", p.Err())
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
		return notFound("run %s has no calls waiting for approval", quoteID(runID))
	}
	if problems = append(problems, more...); len(problems) > 0 {
		return badRequest("%s", strings.Join(problems, "; "))
	}
	if pending == nil {
		pending = []string{}
	}
	writeJSON(w, http.StatusOK, struct {
		RunID   string   `json:"runId"`
		Pending []string `json:"pending"`
	}{runID, pending})
	return nil
}
