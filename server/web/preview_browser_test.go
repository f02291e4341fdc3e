package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// previewScript adds a note, moves n1 and deletes n3 (a call that waits for
// approval in a run, and not in a preview).
const previewScript = `await tools.createStickyNote({text: "four", x: 600, y: 0});
await tools.moveObject({objectId: "n1", x: 0, y: 250});
await tools.deleteObject({objectId: "n3"});`

// TestPreview: Preview draws the board as it would be over the board as a
// ghost, lists the changes and changes nothing (the other tab sees none of
// it); Discard drops it; Apply commits it, and the other tab sees that
// live; a preview the board moved past can no longer be applied.
func TestPreview(t *testing.T) {
	e := newEnv(t, envOptions{})
	id := e.newBoard(threeNotes)
	a := e.open("#/boards/" + id)
	b := e.open("#/boards/" + id)
	a.boardID()
	b.boardID()
	for _, tb := range []*tab{a, b} {
		tb.wait("the notes are drawn", `document.querySelectorAll("#canvas g.items > g[data-id]").length === 3`)
	}
	a.setEditor("script", previewScript)

	a.click("Preview")
	a.runState("previewed")
	a.wait("the preview bar shows", `!document.querySelector("#preview-bar").hidden`)
	if got := a.text("#preview-bar .preview-summary"); got != "1 added · 1 changed · 1 deleted" {
		t.Errorf("summary %q", got)
	}
	var ghost struct{ Added, Updated, Old, Deleted []string }
	a.eval(`(() => {
		const ids = sel => [...document.querySelectorAll(sel)].map(g => g.getAttribute("data-id"));
		return {added: ids("#canvas g.ghost-layer > .ghost-added"), updated: ids("#canvas g.ghost-layer > .ghost-updated"),
			old: ids("#canvas g.items > .ghost-old"), deleted: ids("#canvas g.items > .ghost-deleted")};
	})()`, &ghost)
	if len(ghost.Added) != 1 || !cmp.Equal(ghost.Updated, []string{"n1"}) || !cmp.Equal(ghost.Old, []string{"n1"}) || !cmp.Equal(ghost.Deleted, []string{"n3"}) {
		t.Errorf("ghost %+v", ghost)
	}
	if got := a.text("#timeline .run-footer"); !strings.Contains(got, "nothing changed yet") {
		t.Errorf("the timeline's footer: %q", got)
	}
	// Nothing happened: not on the server, not in the other tab, no
	// approval asked.
	if diff := cmp.Diff([]string{"n1", "n2", "n3"}, boardIDs(t, e, id)); diff != "" {
		t.Errorf("board on the server after a preview (-want +got):\n%s", diff)
	}
	if n := b.count("#canvas g.ghost-layer, #canvas .ghost-old"); n != 0 || b.count("#canvas g.items > g[data-id]") != 3 {
		t.Errorf("the other tab shows the preview")
	}
	if a.count("#approval[open]") != 0 {
		t.Error("the preview asked for approval")
	}

	var pid string
	a.eval(`document.querySelector("#preview-bar").dataset.previewId`, &pid)
	a.click("Discard preview")
	a.wait("the preview is gone from the page", `document.querySelector("#preview-bar").hidden && !document.querySelector("#canvas g.ghost-layer") && !document.querySelector("#canvas .ghost-old, #canvas .ghost-deleted")`)
	a.runState("discarded")
	if status, _ := e.api(http.MethodGet, fmt.Sprintf("/v1/boards/%s/previews/%s", id, pid), ""); status != http.StatusNotFound {
		t.Errorf("the discarded preview on the server: %d", status)
	}

	a.click("Preview")
	a.wait("the preview bar shows", `!document.querySelector("#preview-bar").hidden`)
	a.click("Apply preview")
	a.runState("applied")
	for _, tb := range []*tab{a, b} {
		tb.wait("the board is as previewed", `(() => {
			const ids = [...document.querySelectorAll("#canvas g.items > g[data-id]")].map(g => g.getAttribute("data-id"));
			return ids.length === 3 && ids.includes("n1") && !ids.includes("n3") && !document.querySelector("#canvas g.ghost-layer") && document.querySelector("#canvas").textContent.includes("four")
		})()`)
	}
	a.wait("undo is offered", `!document.querySelector("#undo").disabled`)
	if got := boardIDs(t, e, id); len(got) != 3 || got[0] != "n1" || got[1] != "n2" {
		t.Errorf("board on the server after apply: %q", got)
	}

	// A preview the board moved past: Apply is off, Discard still works.
	a.setEditor("script", `await tools.createStickyNote({text: "five", x: 900, y: 0});`)
	a.click("Preview")
	a.wait("the preview bar shows", `!document.querySelector("#preview-bar").hidden && !document.querySelector("#preview-apply").disabled`)
	b.setEditor("script", `await tools.createStickyNote({text: "meanwhile", x: 0, y: 600});`)
	b.click("Run")
	b.runState("succeeded")
	a.wait("the preview says it is stale", `document.querySelector("#preview-apply").disabled && document.querySelector("#preview-bar .preview-note").classList.contains("stale")`)
	a.click("Discard preview")
	a.wait("the preview is gone", `document.querySelector("#preview-bar").hidden`)
}

// TestPreviewScreenshot: a preview over the flowchart board — the README's
// screenshot (-screenshot).
func TestPreviewScreenshot(t *testing.T) {
	e := newEnv(t, envOptions{})
	tb := e.open("")
	tb.boardID()
	tb.click("Load example flowchart.ts")
	tb.wait("the editor holds the example", `document.querySelector("#script-editor").value.includes("Flowchart of a password reset")`)
	tb.click("Run")
	tb.runState("succeeded")
	tb.setEditor("script", `// A model's change, previewed before it lands.
const find = async (text) => (await tools.findObjects({ text })).objects[0];
const inbox = await find("check your inbox");
await tools.moveObject({ objectId: inbox.id, x: inbox.x + 120, y: inbox.y + 160 });
const check = await find("Account exists?");
await tools.changeColor({ objectId: check.id, color: "yellow" });
const note = await tools.createStickyNote({ text: "Rate-limit reset links: 3 per hour", x: 700, y: 300, color: "pink" });
await tools.createConnector({ fromId: note.id, toId: (await find("Send reset link")).id, style: "arrow" });
await tools.deleteObject({ objectId: (await find("Set new password")).id });
return "previewed";`)
	tb.click("Preview")
	tb.runState("previewed")
	tb.wait("the ghost is drawn", `document.querySelectorAll("#canvas g.ghost-layer > .ghost").length > 0 && !document.querySelector("#preview-bar").hidden`)
	tb.click("Fit board to view")
	tb.wait("animations are over", `document.querySelectorAll("#canvas .fresh").length === 0`)
	tb.screenshot("preview.png")
}
