package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/internal/strictjson"
	"github.com/codemode-dev/codemode/internal/suggest"
)

// runSpec is a parsed run request: a batch or a script, and whether a
// failed run is rolled back (the default) or keeps its partial work.
type runSpec struct {
	kind   engine.RunKind // engine.RunBatch or engine.RunScript
	batch  engine.BatchRequest
	exec   engine.ExecuteRequest
	atomic bool
}

// parseRun reads a run request as strictly as the CLI does — unknown
// fields, wrong types and every other problem reported at once — and, on a
// board (withAtomic), also the server's own member "atomic". That member is
// taken out before the engine parses the rest, and its problem, if any, is
// reported together with the engine's.
func parseRun(kind engine.RunKind, data []byte, withAtomic bool) (runSpec, *httpError) {
	spec := runSpec{kind: kind, atomic: true}
	var problems []string
	if withAtomic {
		rest, atomic, problem := takeAtomic(data)
		data = rest
		if atomic != nil {
			spec.atomic = *atomic
		}
		if problem != "" {
			problems = append(problems, problem)
		}
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
		problems = append(problems, engineProblems(err, withAtomic)...)
	}
	if len(problems) > 0 {
		return runSpec{}, badRequest("%s", strings.Join(problems, "; "))
	}
	return spec, nil
}

// takeAtomic removes the top-level "atomic" member from a JSON object and
// returns the rest, the member's value if it is a boolean, and the problem
// with it if any (not a boolean, given twice). Anything that is not a valid
// JSON object is returned as it is, for the engine's parser to describe (a
// position in a malformed document must stay the client's).
func takeAtomic(data []byte) (rest []byte, atomic *bool, problem string) {
	if !json.Valid(data) || !bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
		return data, nil, ""
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil { // {
		return data, nil, ""
	}
	var b bytes.Buffer
	b.WriteByte('{')
	seen := 0
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return data, nil, ""
		}
		name, _ := tok.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return data, nil, ""
		}
		if name != "atomic" {
			if b.Len() > 1 {
				b.WriteByte(',')
			}
			b.Write(jsonString(name))
			b.WriteByte(':')
			b.Write(value)
			continue
		}
		seen++
		if string(value) == "null" {
			continue // null is not given, as everywhere in a request
		}
		var v bool
		if p := strictjson.Decode(value, &v); p.Len() > 0 {
			problem = "atomic: " + problemText(p.Err())
			continue
		}
		atomic = &v
	}
	b.WriteByte('}')
	switch {
	case seen == 2:
		atomic, problem = nil, "atomic: given twice"
	case seen > 2:
		atomic, problem = nil, fmt.Sprintf("atomic: given %d times", seen)
	}
	return b.Bytes(), atomic, problem
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
// the request has one member more than the engine knows, so that an unknown
// member near "atomic" is pointed to it, and a list of the known members
// includes it.
func engineProblems(err error, withAtomic bool) []string {
	var se *strictjson.Error
	if !withAtomic || !errors.As(err, &se) {
		return []string{engine.AsError(err, engine.CodeBadRequest).Message}
	}
	var out []string
	for _, p := range se.Problems {
		top := !strings.ContainsAny(p.Path, ".[")
		if top && p.Path != "" && strings.HasPrefix(p.Message, "unknown field") {
			if near := suggest.Names(p.Path, []string{"atomic"}); len(near) > 0 {
				p.Message = `unknown field (did you mean "atomic"?)`
			} else if list, ok := strings.CutSuffix(p.Message, ")"); ok && strings.Contains(list, "(the fields here are ") {
				p.Message = list + ", atomic)"
			}
		}
		out = append(out, p.Error())
	}
	if se.More > 0 {
		out = append(out, fmt.Sprintf("and %d more problems", se.More))
	}
	return out
}
