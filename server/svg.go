package server

import "github.com/codemode-dev/codemode/tools/whiteboard"

// boardSVG draws a board (the whiteboard's own rendering, the one the CLI's
// --svg writes).
func boardSVG(b *whiteboard.Board) []byte { return b.SVG() }
