package server_test

import (
	"context"
	"errors"
	"testing"

	"github.com/codemode-dev/codemode/server"
)

func TestMemoryStoreBasics(t *testing.T) {
	ctx := context.Background()
	s := server.NewMemoryStore()
	defer s.Close()
	st, err := s.CreateBoard(ctx, server.BoardInfo{ID: "b1"}, nil)
	if err != nil || st.Version != 1 || string(st.Doc) != `{"objects":[]}` {
		t.Fatalf("CreateBoard = %+v, %v", st, err)
	}
	st, err = s.Commit(ctx, "b1", server.Commit{Base: 1, Doc: []byte(`{"objects":[1]}`)})
	if err != nil || st.Version != 2 || st.UndoSteps != 1 {
		t.Fatalf("Commit = %+v, %v", st, err)
	}
	if _, err := s.Commit(ctx, "b1", server.Commit{Base: 1, Doc: []byte(`{}`)}); !errors.Is(err, server.ErrConflict) {
		t.Fatalf("stale Commit: %v", err)
	}
	st, err = s.Undo(ctx, "b1")
	if err != nil || st.Version != 3 || string(st.Doc) != `{"objects":[]}` || st.RedoSteps != 1 {
		t.Fatalf("Undo = %+v, %v", st, err)
	}
}
