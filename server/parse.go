package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/internal/strictjson"
	"github.com/codemode-dev/codemode/internal/suggest"
)

// runSpec is a parsed run request: a batch or a script, whether a failed
// run is rolled back (the default) or keeps its partial work, and whether it
// only previews its effect on a copy of the board (preview.go).
type runSpec struct {
	kind    engine.RunKind // engine.RunBatch or engine.RunScript
	batch   engine.BatchRequest
	exec    engine.ExecuteRequest
	atomic  bool
	preview bool
}

// boardMembers are the members of a board's run request that the server
// reads itself, all booleans; the engine parses the rest.
var boardMembers = []string{"atomic", "preview"}

// parseRun reads a run request as strictly as the CLI does — unknown
// fields, wrong types and every other problem reported at once — and, on a
// board (onBoard), also the server's own members (boardMembers). These are
// taken out before the engine parses the rest, and their problems, if any,
// are reported together with the engine's.
func parseRun(kind engine.RunKind, data []byte, onBoard bool) (runSpec, *httpError) {
	spec := runSpec{kind: kind, atomic: true}
	var problems []string
	if onBoard {
		rest, values, ps := takeBools(data, boardMembers)
		data = rest
		if v := values["atomic"]; v != nil {
			spec.atomic = *v
		}
		if v := values["preview"]; v != nil {
			spec.preview = *v
		}
		problems = append(problems, ps...)
	}
	var err error
	if kind == engine.RunBatch {
		spec.batch, err = engine.ParseBatchRequest(data)
		if err != nil && bytes.HasPrefix(bytes.TrimSpace(data), []byte("[")) {
			// The operations alone: the likeliest mistake with a batch.
			err = engine.Errorf(engine.CodeBadRequest, `%s (a batch request is an object: {"operations": [...]})`, engine.AsError(err, engine.CodeBadRequest).Message)
		}
	} else {
		spec.exec, err = engine.ParseExecuteRequest(data)
	}
	if err != nil {
		problems = append(problems, engineProblems(err, onBoard)...)
	}
	if len(problems) > 0 {
		return runSpec{}, badRequest("%s", strings.Join(problems, "; "))
	}
	return spec, nil
}

// takeBools removes the named top-level members from a JSON object and
// returns the rest, the value of each member given as a boolean, and the
// problems with them (not a boolean, given more than once), in names'
// order. Anything that is not a valid JSON object is returned as it is, for
// the engine's parser to describe (a position in a malformed document must
// stay the client's).
func takeBools(data []byte, names []string) (rest []byte, values map[string]*bool, problems []string) {
	if !json.Valid(data) || !bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
		return data, nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil { // {
		return data, nil, nil
	}
	values = make(map[string]*bool, len(names))
	seen := make(map[string]int, len(names))
	bad := make(map[string]string, len(names))
	var b bytes.Buffer
	b.WriteByte('{')
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return data, nil, nil
		}
		name, _ := tok.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return data, nil, nil
		}
		if !slices.Contains(names, name) {
			if b.Len() > 1 {
				b.WriteByte(',')
			}
			b.Write(jsonString(name))
			b.WriteByte(':')
			b.Write(value)
			continue
		}
		seen[name]++
		if string(value) == "null" {
			continue // null is not given, as everywhere in a request
		}
		var v bool
		if p := strictjson.Decode(value, &v); p.Len() > 0 {
			bad[name] = name + ": " + problemText(p.Err())
			continue
		}
		values[name] = &v
	}
	b.WriteByte('}')
	for _, name := range names {
		switch n := seen[name]; {
		case n == 2:
			values[name], bad[name] = nil, name+": given twice"
		case n > 2:
			values[name], bad[name] = nil, fmt.Sprintf("%s: given %d times", name, n)
		}
		if bad[name] != "" {
			problems = append(problems, bad[name])
		}
	}
	return b.Bytes(), values, problems
}

// problemText is a strictjson error's message without its (empty) path.
func problemText(err error) string {
	var se *strictjson.Error
	if errors.As(err, &se) && len(se.Problems) == 1 {
		return se.Problems[0].Message
	}
	return err.Error()
}

// engineProblems lists the problems of the engine's parse error. On a board
// the request has members more than the engine knows (boardMembers), so
// that an unknown member near one of them is pointed to it, and a list of
// the known members includes them.
func engineProblems(err error, onBoard bool) []string {
	var se *strictjson.Error
	if !onBoard || !errors.As(err, &se) {
		return []string{engine.AsError(err, engine.CodeBadRequest).Message}
	}
	var out []string
	for _, p := range se.Problems {
		top := !strings.ContainsAny(p.Path, ".[")
		if top && p.Path != "" && strings.HasPrefix(p.Message, "unknown field") {
			if near := suggest.Names(p.Path, boardMembers); len(near) > 0 {
				p.Message = fmt.Sprintf("unknown field (did you mean %q?)", near[0])
			} else if list, ok := strings.CutSuffix(p.Message, ")"); ok && strings.Contains(list, "(the fields here are ") {
				p.Message = list + ", " + strings.Join(boardMembers, ", ") + ")"
			}
		}
		out = append(out, p.Error())
	}
	if se.More > 0 {
		out = append(out, fmt.Sprintf("and %d more problems", se.More))
	}
	return out
}
