package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"runtime/debug"
	"time"
)

// EventType names an event (docs/events.md).
type EventType string

const (
	EventRunStart         EventType = "run_start"
	EventRunEnd           EventType = "run_end"
	EventToolCallStart    EventType = "tool_call_start"
	EventToolCallEnd      EventType = "tool_call_end"
	EventLog              EventType = "log"
	EventApprovalRequired EventType = "approval_required"
)

// RunKind says which front end started a run.
type RunKind string

const (
	RunBatch     RunKind = "batch"     // Engine.Batch
	RunToolCalls RunKind = "toolCalls" // Engine.HandleToolCalls: one model step
	RunCall      RunKind = "call"      // Engine.Call
	RunScript    RunKind = "script"    // code mode
)

// Event is one observation of a run. Every tool call — direct, inside a batch,
// inside a script — produces exactly one tool_call_start and one
// tool_call_end; a batch or script produces run_start and run_end, never a
// tool event of its own. Events carry enough (args, results, labels) to drive
// a live view of the run, each cut to the bounds docs/events.md lists: no
// client, tool or script can make an event unbounded.
type Event struct {
	Type  EventType `json:"type"`
	RunID string    `json:"runId"`
	Kind  RunKind   `json:"kind,omitempty"` // run_start, run_end
	// CallID identifies a tool call within its run; ParentID is the id of what
	// contains it: the run for calls made directly by a batch or script, or the
	// provider's call id of the native batch call it was unwrapped from.
	CallID   string    `json:"callId,omitempty"`
	ParentID string    `json:"parentId,omitempty"`
	Time     time.Time `json:"time"`

	Tool  string          `json:"tool,omitempty"`
	Label string          `json:"label,omitempty"` // the batch operation's label
	Args  json.RawMessage `json:"args,omitempty"`  // tool_call_start
	// Truncated marks Args or Result cut to the tool's result cap: the value
	// is then a JSON string holding the start of its JSON text.
	Truncated bool `json:"truncated,omitempty"`

	// tool_call_end and run_end:
	Success   bool            `json:"success,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *Error          `json:"error,omitempty"`
	ElapsedMS float64         `json:"elapsed_ms,omitempty"`

	// log: the line, cut to the configured maxOutputChars (ending in "…").
	Level   string `json:"level,omitempty"`
	Message string `json:"message,omitempty"`

	// approval_required: the set of calls sent to the Approver together.
	Approvals []ApprovalRequest `json:"approvals,omitempty"`
}

// Observer receives events. Observe is called synchronously on the goroutine
// that made the event, from many goroutines at once: it must be safe for
// concurrent use and should return quickly. ctx is the run's context (for
// run_start, the caller's), so tracing observers can parent their spans.
//
// A panic in Observe does not reach the run: the engine recovers it, logs it
// with its stack through slog.Default() (at Error, message "codemode:
// observer panicked"), and goes on. The event is lost for that observer
// only — the others (see Observers) still get it — and the run continues as
// if nothing happened: its calls, result and later events are unaffected.
type Observer interface {
	Observe(ctx context.Context, e Event)
}

// ObserverFunc adapts a function to Observer.
type ObserverFunc func(ctx context.Context, e Event)

func (f ObserverFunc) Observe(ctx context.Context, e Event) { f(ctx, e) }

// Observers fans events out to several observers in order.
func Observers(obs ...Observer) Observer {
	var list multiObserver
	for _, o := range obs {
		if o != nil {
			list = append(list, o)
		}
	}
	if len(list) == 1 {
		return list[0]
	}
	return list
}

type multiObserver []Observer

// Observe gives e to each observer in turn; one that panics does not keep
// the event from the others.
func (m multiObserver) Observe(ctx context.Context, e Event) {
	for _, o := range m {
		observe(ctx, o, e)
	}
}

// observe delivers e to o, recovering a panic of o's: an observer's bug
// costs it the event and a log line, never the run or the process (an
// event may be emitted on a goroutine of the engine's, where nothing
// above would recover it).
func observe(ctx context.Context, o Observer, e Event) {
	defer func() {
		if p := recover(); p != nil {
			slog.Default().Error("codemode: observer panicked", "runId", e.RunID, "event", string(e.Type),
				"callId", e.CallID, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		}
	}()
	o.Observe(ctx, e)
}

// MarshalJSON writes success and elapsed_ms on every tool_call_end and
// run_end, also when false or zero, so a failure reads as "success": false
// rather than as a missing field.
func (e Event) MarshalJSON() ([]byte, error) {
	type plain Event
	if e.Type != EventToolCallEnd && e.Type != EventRunEnd {
		return json.Marshal(plain(e))
	}
	return json.Marshal(struct {
		plain
		Success   bool    `json:"success"`
		ElapsedMS float64 `json:"elapsed_ms"`
	}{plain(e), e.Success, e.ElapsedMS})
}

// ms is d in milliseconds, rounded to the microsecond: precise enough for
// timings, short enough to read.
func ms(d time.Duration) float64 { return math.Round(float64(d.Nanoseconds())/1e3) / 1e3 }
