package fakegithub

import (
	"net/http/httptest"
	"testing"
)

// BenchmarkDefault is the cost of a fresh fixture, paid once per benchmark run.
func BenchmarkDefault(b *testing.B) {
	for b.Loop() {
		Default()
	}
}

// BenchmarkListIssues is one page of the default issues listing, in process.
func BenchmarkListIssues(b *testing.B) {
	s := Default()
	r := httptest.NewRequest("GET", engine+"/issues", nil)
	for b.Loop() {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		if w.Code != 200 {
			b.Fatal(w.Code)
		}
	}
}
