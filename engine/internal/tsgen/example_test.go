package tsgen_test

import (
	"encoding/json"
	"fmt"

	"github.com/codemode-dev/codemode/engine/internal/tsgen"
)

func ExampleDeclarations() {
	tools := []tsgen.Tool{
		{
			Name:        "createStickyNote",
			Description: "Create a sticky note.",
			InputSchema: json.RawMessage(`{"type": "object", "properties": {
				"text": {"type": "string", "description": "The note's text."},
				"x": {"type": "number"},
				"y": {"type": "number"},
				"color": {"type": "string", "enum": ["yellow", "pink"], "default": "yellow"}
			}, "required": ["text", "x", "y"]}`),
			OutputSchema: json.RawMessage(`{"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}`),
		},
		{
			Name:        "board.getState",
			Description: "Read the whole board.",
			InputSchema: json.RawMessage(`{"type": "object", "properties": {}}`),
		},
	}
	fmt.Print(tsgen.Declarations(tools))
	// Output:
	// declare const tools: {
	//   board: {
	//     /** Read the whole board. */
	//     getState(args?: {}): Promise<unknown>;
	//   };
	//   /** Create a sticky note. */
	//   createStickyNote(args: {
	//     /** The note's text. */
	//     text: string;
	//     x: number;
	//     y: number;
	//     /** @default "yellow" */
	//     color?: "yellow" | "pink";
	//   }): Promise<{ id: string }>;
	// };
	// declare const input: unknown;
	// declare const console: { log(...args: unknown[]): void; info(...args: unknown[]): void; warn(...args: unknown[]): void; error(...args: unknown[]): void; debug(...args: unknown[]): void };
}
