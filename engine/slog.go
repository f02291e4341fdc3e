package engine

import (
	"context"
	"log/slog"
)

// SlogObserver logs events with a structured logger: tool calls at Debug
// (failed ones at Warn), runs at Info, approvals at Info, script logs at the
// matching level. Args and results are not logged: they may hold user data.
func SlogObserver(l *slog.Logger) Observer {
	if l == nil {
		l = slog.Default()
	}
	return ObserverFunc(func(ctx context.Context, e Event) {
		attrs := []slog.Attr{slog.String("runId", e.RunID)}
		level := slog.LevelDebug
		msg := string(e.Type)
		switch e.Type {
		case EventRunStart:
			level = slog.LevelInfo
			attrs = append(attrs, slog.String("kind", string(e.Kind)))
		case EventRunEnd:
			level = slog.LevelInfo
			attrs = append(attrs, slog.String("kind", string(e.Kind)), slog.Bool("success", e.Success), slog.Float64("elapsed_ms", e.ElapsedMS))
		case EventToolCallStart:
			attrs = append(attrs, slog.String("callId", e.CallID), slog.String("parentId", e.ParentID), slog.String("tool", e.Tool))
		case EventToolCallEnd:
			attrs = append(attrs, slog.String("callId", e.CallID), slog.String("parentId", e.ParentID), slog.String("tool", e.Tool),
				slog.Bool("success", e.Success), slog.Float64("elapsed_ms", e.ElapsedMS))
		case EventLog:
			level = logLevel(e.Level)
			msg = e.Message
			attrs = append(attrs, slog.String("source", "script"))
		case EventApprovalRequired:
			level = slog.LevelInfo
			tools := make([]string, len(e.Approvals))
			for i, a := range e.Approvals {
				tools[i] = a.Tool
			}
			attrs = append(attrs, slog.Any("tools", tools))
		}
		if e.Error != nil {
			if level < slog.LevelWarn {
				level = slog.LevelWarn
			}
			attrs = append(attrs, slog.String("error.code", string(e.Error.Code)), slog.String("error.message", e.Error.Message))
		}
		l.LogAttrs(ctx, level, msg, attrs...)
	})
}

func logLevel(s string) slog.Level {
	switch s {
	case "debug":
		return slog.LevelDebug
	case "warn":
		return slog.LevelWarn
	case "error":
		return slog.LevelError
	}
	return slog.LevelInfo
}
