package whiteboard_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/codemode-dev/codemode/tools/whiteboard"
)

// A host binds the tools once and gives each request its own board through
// the context. Here the handlers are called directly, as the engine would.
func Example() {
	tools := map[string]func(context.Context, json.RawMessage) (json.RawMessage, error){}
	for _, t := range whiteboard.Tools(nil) {
		tools[t.Name] = t.Handler
	}
	board := whiteboard.NewBoard()
	ctx := whiteboard.NewContext(context.Background(), board)
	call := func(name, args string) {
		res, err := tools[name](ctx, json.RawMessage(args))
		if err != nil {
			fmt.Println(name, "failed:", err)
			return
		}
		fmt.Println(name, string(res))
	}

	call("createFrame", `{"title":"Retro","x":0,"y":0,"width":500,"height":300}`)
	call("createStickyNote", `{"text":"Went well","x":20,"y":60,"parentId":"frame-1"}`)
	call("createStickyNote", `{"text":"Went well","x":20,"y":60,"parentId":"sticky-2"}`)
	call("moveObject", `{"objectId":"frame-1","x":100,"y":0}`) // the note moves along
	call("deleteObject", `{"objectId":"sticky-9"}`)

	if err := board.Save(os.Stdout); err != nil {
		fmt.Println(err)
	}
	// Output:
	// createFrame {"id":"frame-1","x":0,"y":0,"width":500,"height":300}
	// createStickyNote {"id":"sticky-2","x":20,"y":60,"width":200,"height":200}
	// createStickyNote failed: tool_error: parentId: "sticky-2" is a sticky, not a frame
	// moveObject {"id":"frame-1","x":100,"y":0,"width":500,"height":300}
	// deleteObject failed: tool_error: no object with id "sticky-9"
	// {
	//   "objects": [
	//     {
	//       "id": "frame-1",
	//       "type": "frame",
	//       "x": 100,
	//       "y": 0,
	//       "width": 500,
	//       "height": 300,
	//       "title": "Retro"
	//     },
	//     {
	//       "id": "sticky-2",
	//       "type": "sticky",
	//       "x": 120,
	//       "y": 60,
	//       "width": 200,
	//       "height": 200,
	//       "text": "Went well",
	//       "color": "yellow",
	//       "parentId": "frame-1"
	//     }
	//   ]
	// }
}
