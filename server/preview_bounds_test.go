package server

import (
	"math"
	"testing"
)

// TestPreviewBoundsHugeMaxBoard: an operator who lifts the board cap
// (MaxBoardBytes: math.MaxInt64, "no limit") must still get MaxPreviews
// previews per board. 4*maxBoard overflows in newPreviewsFor, the per-board
// byte bound goes negative, and every new preview pushes out the board's
// others: the first of two previews is a 404.
func TestPreviewBoundsHugeMaxBoard(t *testing.T) {
	s := newTestServer(t, Options{MaxBoardBytes: math.MaxInt64})
	if s.previews.boardBytes <= 0 || s.previews.maxBytes <= 0 {
		t.Errorf("bounds %d a board, %d in all", s.previews.boardBytes, s.previews.maxBytes)
	}
	twoStickies(t, s, "b")
	first := previewID(t, s, "b", previewBatch("one"))
	previewID(t, s, "b", previewBatch("two"))
	if res, data := do(t, s, "GET", "/v1/boards/b/previews/"+first, ""); res.StatusCode != 200 {
		t.Errorf("the first of 2 previews (MaxPreviews %d): %d %s", DefaultMaxPreviews, res.StatusCode, data)
	}
}
