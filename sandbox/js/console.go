package js

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/dop251/goja"
)

// consoleObject is the frozen `console` with log, info, warn, error and
// debug. Arguments are joined by spaces: strings as they are, other values
// as JSON where they have a JSON form.
func (r *runner) consoleObject() *goja.Object {
	c := r.vm.NewObject()
	for _, level := range []string{"log", "info", "warn", "error", "debug"} {
		_ = c.DefineDataProperty(level, r.vm.ToValue(func(call goja.FunctionCall) goja.Value {
			r.log(level, call.Arguments)
			return goja.Undefined()
		}), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE)
	}
	_ = c.DefineDataProperty("trace", c.Get("debug"), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE)
	if freeze, ok := goja.AssertFunction(r.vm.GlobalObject().Get("Object").(*goja.Object).Get("freeze")); ok {
		_, _ = freeze(goja.Undefined(), c)
	}
	return c
}

// log writes one console line, cut to maxMessageChars.
func (r *runner) log(level string, args []goja.Value) {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(r.format(a))
		if b.Len() > 4*maxMessageChars { // no use building more than can be kept
			break
		}
	}
	msg := b.String()
	if utf8.RuneCountInString(msg) > maxMessageChars {
		msg = cutChars(msg, maxMessageChars) + "…"
	}
	kept, ok, overrun := r.out.add(Log{Level: level, Message: msg}, r.lim.MaxOutputChars)
	if ok && r.opt.OnLog != nil {
		r.opt.OnLog(kept) // only what the result keeps: a script cannot flood the host with lines past its budget
	}
	if overrun {
		r.abort(&Error{Code: CodeOutputLimit, Message: fmt.Sprintf(
			"the script went on writing logs long after they passed the output limit of %d characters", r.lim.MaxOutputChars)})
	}
}

// format renders one console argument.
func (r *runner) format(v goja.Value) string {
	switch {
	case v == nil || goja.IsUndefined(v):
		return "undefined"
	case goja.IsNull(v):
		return "null"
	}
	obj, ok := v.(*goja.Object)
	if !ok {
		return clip(v, maxMessageChars)
	}
	if obj.ClassName() == "Error" {
		msg, _, _ := r.describe(obj)
		return msg
	}
	if _, isFunc := goja.AssertFunction(obj); isFunc {
		return "[Function]"
	}
	s, err := r.stringifyJSON(v)
	if err != nil || s == nil || goja.IsUndefined(s) {
		if err != nil {
			if _, budget := err.(*goja.InterruptedError); budget {
				panic(err)
			}
		}
		return "[object]"
	}
	return clip(s, maxMessageChars)
}

// output keeps console lines up to the output budget. It is shared between
// the loop and a caller reading it after abandoning a stuck run.
type output struct {
	mu        sync.Mutex
	logs      []Log
	chars     int // of the budget used by the lines kept (LineChars each)
	dropped   int // characters not kept
	truncated bool
}

// add keeps what fits of l within limit characters and returns what it
// kept (l, or l cut to the room left), ok false when nothing of it was kept.
// A line costs its characters and at least one, so that empty lines use up
// the budget too (LineChars); a line that does not fit whole uses up the
// rest, so no later line is kept. overrun reports that the script has written more than limit
// characters past the budget: it is only burning its time.
func (o *output) add(l Log, limit int) (kept Log, ok, overrun bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := LineChars(l.Message)
	if room := limit - o.chars; n > room {
		o.truncated = true
		o.dropped += n - max(room, 0)
		if room <= 0 {
			o.chars = max(o.chars, limit)
			return Log{}, false, o.dropped > limit
		}
		l.Message = cutChars(l.Message, room)
		n = room
	}
	o.logs = append(o.logs, l)
	o.chars += n
	return l, true, o.dropped > limit
}

// LineChars is what a console line costs of the output budget: its
// characters, and at least one. Both runners, in process and in a worker
// process, count a line so.
func LineChars(msg string) int { return max(utf8.RuneCountInString(msg), 1) }

func (o *output) snapshot() ([]Log, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]Log(nil), o.logs...), o.truncated
}

// cutChars returns the first n characters of s, or all of s when shorter.
func cutChars(s string, n int) string {
	i := 0
	for range n {
		if i >= len(s) {
			return s
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}
