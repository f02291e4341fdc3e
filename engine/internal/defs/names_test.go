package defs

import "testing"

func TestWireName(t *testing.T) {
	for _, tc := range []struct{ name, wire string }{
		{"createFrame", "createFrame"},
		{"board.getState", "board-getState"},
		{"a.b_c.__d", "a-b_c-__d"},
		{"a__b", "a__b"}, // "__" would have been ambiguous with "a.b"
	} {
		if got := WireName(tc.name); got != tc.wire {
			t.Errorf("WireName(%q) = %q, want %q", tc.name, got, tc.wire)
		}
		if got := CanonicalName(tc.wire); got != tc.name {
			t.Errorf("CanonicalName(%q) = %q, want %q", tc.wire, got, tc.name)
		}
	}
}

func TestValidName(t *testing.T) {
	for name, want := range map[string]bool{
		"a": true, "_a1.b_2": true, "board.getState": true,
		"": false, "1a": false, "a.": false, ".a": false, "a..b": false, "a-b": false, "a b": false,
	} {
		if got := ValidName(name); got != want {
			t.Errorf("ValidName(%q) = %v, want %v", name, got, want)
		}
	}
}
