package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-dev/codemode/engine"
)

// The engine's Observer and Approver are fixed when it is built, but
// progress and elicitation belong to one MCP request. The request's
// session and progress token travel on the call's context, which the
// engine hands to observers and approvers; the hooks below find them there.

type sessionKey struct{}

// requestSession is what a tools/call request lends its engine run.
type requestSession struct {
	session *sdk.ServerSession
	token   any // the client's progress token; nil when it asked for none

	mu   sync.Mutex // keeps progress values increasing in the order sent
	done int
}

func withSession(ctx context.Context, req *sdk.CallToolRequest) context.Context {
	if req.Session == nil {
		return ctx
	}
	return context.WithValue(ctx, sessionKey{}, &requestSession{session: req.Session, token: req.Params.GetProgressToken()})
}

func sessionFrom(ctx context.Context) *requestSession {
	s, _ := ctx.Value(sessionKey{}).(*requestSession)
	return s
}

// ProgressObserver returns an engine Observer that sends the MCP client a
// progress notification each time a tool call of its request finishes —
// a direct call, a batch operation or a script's call — when the client
// sent a progress token. Events of runs not started by the MCP server are
// ignored, so the observer may sit beside others on a shared engine.
//
// A notification is written before the run goes on: a client that stops
// reading its transport slows its own request, and its request only.
func ProgressObserver() engine.Observer {
	return engine.ObserverFunc(func(ctx context.Context, ev engine.Event) {
		if ev.Type != engine.EventToolCallEnd {
			return
		}
		s := sessionFrom(ctx)
		if s == nil || s.token == nil {
			return
		}
		status := "ok"
		if !ev.Success {
			status = "failed"
			if ev.Error != nil {
				status = string(ev.Error.Code)
			}
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		s.done++
		_ = s.session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{
			ProgressToken: s.token,
			Progress:      float64(s.done),
			Message:       fmt.Sprintf("%s: %s", ev.Tool, status),
		}) // a lost notification must not fail the call
	})
}

// Approver returns an engine Approver that asks the MCP client's user
// through elicitation when the client supports it on a protocol version
// before 2026-07-28 (see multiRoundTripVersion). When the client cannot be
// asked (or the run was not started by the MCP server) it defers to
// fallback; a nil fallback is DenyUnasked(""): a gated call that nobody
// can be asked about is denied, never run, because a server that gates a
// call means it to be decided by a person.
//
// One elicitation covers a set (see engine.Approver): the message lists
// its calls and the user accepts or refuses them together. Declining,
// cancelling or a failed elicitation denies the set with that reason.
func Approver(fallback engine.Approver) engine.Approver {
	if fallback == nil {
		fallback = DenyUnasked("")
	}
	return engine.ApproverFunc(func(ctx context.Context, reqs []engine.ApprovalRequest) ([]engine.Decision, error) {
		s := sessionFrom(ctx)
		if s == nil || unaskable(s.session) != "" {
			return fallback.Approve(ctx, reqs)
		}
		res, err := s.session.Elicit(ctx, &sdk.ElicitParams{
			Mode:            "form",
			Message:         approvalMessage(reqs),
			RequestedSchema: json.RawMessage(approveSchema),
		})
		if err != nil {
			return nil, fmt.Errorf("asking the MCP client: %w", err)
		}
		if res.Action != "accept" {
			return decide(len(reqs), engine.Decision{Reason: "the user chose " + res.Action}), nil
		}
		if ok, _ := res.Content["approve"].(bool); !ok {
			return decide(len(reqs), engine.Decision{Reason: "the user did not approve"}), nil
		}
		return decide(len(reqs), engine.Decision{Approved: true}), nil
	})
}

// DenyUnasked returns a fallback for Approver that denies every call,
// saying why the MCP client could not be asked and then advice, when not
// empty: what the user can do to run such calls (a command-line flag, say).
// Used alone as an engine's Approver, it denies every gated call.
func DenyUnasked(advice string) engine.Approver {
	return engine.ApproverFunc(func(ctx context.Context, reqs []engine.ApprovalRequest) ([]engine.Decision, error) {
		reason := "no MCP client to ask for approval (the run did not come from one)"
		if s := sessionFrom(ctx); s != nil {
			reason = "the MCP client was not asked for approval" // DenyUnasked used alone, not as a fallback
			if why := unaskable(s.session); why != "" {
				reason = "this MCP client cannot be asked for approval (" + why + ")"
			}
		}
		if advice != "" {
			reason += "; " + advice
		}
		return decide(len(reqs), engine.Decision{Reason: reason}), nil
	})
}

// approveSchema is the form shown to the user: one checkbox.
const approveSchema = `{"type":"object","properties":{"approve":{"type":"boolean","title":"Approve",` +
	`"description":"Run these tool calls"}},"required":["approve"]}`

// multiRoundTripVersion is the first MCP protocol version that forbids a
// server's own elicitation requests while it serves a tools/call (SEP-2322):
// the call must instead end with input requests and be sent again, which an
// engine run — a script asks mid-run — cannot do.
const multiRoundTripVersion = "2026-07-28"

// unaskable says why the session's client cannot take elicitation
// requests in the middle of a tools/call, or returns "" when it can.
func unaskable(s *sdk.ServerSession) string {
	p := s.InitializeParams()
	switch {
	case p == nil || p.Capabilities == nil || p.Capabilities.Elicitation == nil:
		return "it does not support elicitation"
	case p.ProtocolVersion >= multiRoundTripVersion: // dates in ISO form order as strings
		return "its protocol version, " + multiRoundTripVersion + " or later, allows no elicitation during a call"
	}
	return ""
}

func decide(n int, d engine.Decision) []engine.Decision {
	out := make([]engine.Decision, n)
	for i := range out {
		out[i] = d
	}
	return out
}

// approvalMessage lists the calls of a set, each with its arguments cut
// short: the user needs to recognise the call, not read a document.
func approvalMessage(reqs []engine.ApprovalRequest) string {
	const maxArgs = 300
	var b strings.Builder
	fmt.Fprintf(&b, "Allow %d tool call(s)?", len(reqs))
	for _, r := range reqs {
		args := string(r.Args)
		if len(args) > maxArgs {
			args = strings.ToValidUTF8(args[:maxArgs], "") + "…"
		}
		fmt.Fprintf(&b, "\n- %s %s", r.Tool, args)
	}
	return b.String()
}
