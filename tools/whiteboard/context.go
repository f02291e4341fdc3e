package whiteboard

import "context"

// boardKey is the context key of the call's board.
type boardKey struct{}

// NewContext returns a context whose tool calls work on b. A server puts each
// request's (or session's) board here, so that requests never share state
// even though they share one tool registry.
func NewContext(ctx context.Context, b *Board) context.Context {
	return context.WithValue(ctx, boardKey{}, b)
}

// FromContext returns the board NewContext put into ctx, if any (a nil board
// counts as none).
func FromContext(ctx context.Context) (*Board, bool) {
	b, _ := ctx.Value(boardKey{}).(*Board)
	return b, b != nil
}
