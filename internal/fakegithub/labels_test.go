package fakegithub

import (
	"time"

	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRepoLabels: create, the duplicate's 422, get, update, delete.
func TestRepoLabels(t *testing.T) {
	s := Default()
	l := must(t, s, 200, "GET", engine+"/labels", "").list(t)
	if len(l) != 8 || l[3]["name"] != "good first issue" || l[3]["default"] != true || l[3]["url"] != "https://api.github.com/repos/codemode-dev/engine/labels/good%20first%20issue" {
		t.Errorf("engine's labels: %v", l)
	}
	a := must(t, s, 201, "POST", engine+"/labels", `{"name":"crash","color":"B60205","description":"Something crashes"}`)
	o := a.object(t)
	if o["name"] != "crash" || o["color"] != "b60205" || o["description"] != "Something crashes" || o["default"] != false || a.header.Get("Location") != "https://api.github.com/repos/codemode-dev/engine/labels/crash" {
		t.Errorf("created: %v, Location %q", o, a.header.Get("Location"))
	}
	for _, name := range []string{"crash", "CRASH", "Bug"} {
		a := must(t, s, 422, "POST", engine+"/labels", `{"name":"`+name+`","color":"ffffff"}`)
		want := map[string]any{
			"message":           "Validation Failed",
			"errors":            []any{map[string]any{"resource": "Label", "code": "already_exists", "field": "name"}},
			"documentation_url": "https://docs.github.com/rest/issues/labels#create-a-label",
			"status":            "422",
		}
		if d := cmp.Diff(want, a.object(t)); d != "" {
			t.Errorf("duplicate %q (-want +got):\n%s", name, d)
		}
	}
	o = must(t, s, 201, "POST", "/repos/codemode-dev/web/labels", `{"name":"area/ui"}`).object(t)
	if o["color"] != defaultColor || o["description"] != nil {
		t.Errorf("a label without colour or description: %v", o)
	}
	must(t, s, 200, "GET", "/repos/codemode-dev/web/labels/area%2Fui", "")
	must(t, s, 200, "GET", engine+"/labels/Good%20First%20Issue", "")

	o = must(t, s, 200, "PATCH", engine+"/labels/bug", `{"new_name":"defect","color":"ee0701","description":null}`).object(t)
	if o["name"] != "defect" || o["color"] != "ee0701" || o["description"] != nil {
		t.Errorf("updated: %v", o)
	}
	if got := s.Issues(Owner, "engine")[8].Labels; !cmp.Equal(got, []string{"defect"}) {
		t.Errorf("#9's labels after the rename: %v", got)
	}
	must(t, s, 404, "GET", engine+"/labels/bug", "")
	must(t, s, 422, "PATCH", engine+"/labels/defect", `{"new_name":"Docs"}`)
	must(t, s, 200, "PATCH", engine+"/labels/defect", `{"new_name":"Defect"}`)
	must(t, s, 422, "PATCH", engine+"/labels/defect", `{"color":"red"}`)

	must(t, s, 204, "DELETE", engine+"/labels/pinned", "")
	for _, i := range s.Issues(Owner, "engine") {
		for _, l := range i.Labels {
			if l == "pinned" {
				t.Errorf("#%d still carries the deleted label", i.Number)
			}
		}
	}
	if n := len(s.Labels(Owner, "engine")); n != 8 {
		t.Errorf("%d labels after one created and one deleted, want 8", n)
	}
	l = must(t, s, 200, "GET", engine+"/labels?per_page=5&page=2", "").list(t)
	if len(l) != 3 || l[0]["name"] != "performance" {
		t.Errorf("page 2 of labels: %v", l)
	}
}

// TestIssueLabels: add (creating unknown labels), set, remove one, remove all.
func TestIssueLabels(t *testing.T) {
	s := Default()
	names := func(a answer) []string {
		out := []string{}
		for _, o := range a.list(t) {
			out = append(out, o["name"].(string))
		}
		return out
	}
	if got := names(must(t, s, 200, "GET", engine+"/issues/10/labels", "")); !cmp.Equal(got, []string{"docs", "good first issue"}) {
		t.Errorf("#10's labels: %v", got)
	}
	got := names(must(t, s, 200, "POST", engine+"/issues/9/labels", `{"labels":["crash","BUG"]}`))
	if !cmp.Equal(got, []string{"bug", "crash"}) {
		t.Errorf("after adding crash and BUG: %v", got)
	}
	ls := s.Labels(Owner, "engine")
	if ls[1].Name != "crash" || ls[1].Color != defaultColor || ls[1].Description != "" {
		t.Errorf("the label added by name: %+v", ls[1])
	}
	if i := s.Issues(Owner, "engine")[8]; i.UpdatedAt != Start {
		t.Errorf("#9 updated at %s, want %s", i.UpdatedAt, Start)
	}
	got = names(must(t, s, 200, "POST", engine+"/issues/9/labels", `["security",{"name":"crash"}]`))
	if !cmp.Equal(got, []string{"bug", "crash", "security"}) {
		t.Errorf("after adding an array: %v", got)
	}
	got = names(must(t, s, 200, "PUT", engine+"/issues/9/labels", `{"labels":["question"]}`))
	if !cmp.Equal(got, []string{"question"}) {
		t.Errorf("after setting: %v", got)
	}
	got = names(must(t, s, 200, "DELETE", engine+"/issues/9/labels/Question", ""))
	if len(got) != 0 {
		t.Errorf("after removing: %v", got)
	}
	a := must(t, s, 404, "DELETE", engine+"/issues/9/labels/question", "")
	if msg := a.object(t)["message"]; msg != "Label does not exist" {
		t.Errorf("removing a label #9 lacks: %v", msg)
	}
	must(t, s, 404, "DELETE", engine+"/issues/9/labels/no-such-label", "")
	must(t, s, 200, "PUT", engine+"/issues/10/labels", `{"labels":[]}`)
	if got := s.Issues(Owner, "engine")[9].Labels; len(got) != 0 {
		t.Errorf("#10 after setting none: %v", got)
	}
	must(t, s, 204, "DELETE", engine+"/issues/55/labels", "")
	if got := s.Issues(Owner, "engine")[54]; len(got.Labels) != 0 || got.UpdatedAt != Start.Add(5*time.Second) {
		t.Errorf("#55 after removing all: %v, updated %s", got.Labels, got.UpdatedAt)
	}
	// web's own labels are not engine's.
	must(t, s, 200, "POST", "/repos/codemode-dev/web/issues/1/labels", `{"labels":["crash"]}`)
	if got := s.Labels(Owner, "web"); len(got) != 4 || got[1].Name != "crash" || got[1].ID == ls[1].ID {
		t.Errorf("web's labels: %+v", got)
	}
}
