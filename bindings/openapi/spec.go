package openapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/internal/strictjson"
	yaml "go.yaml.in/yaml/v4"
)

// MaxSpecBytes bounds a document: GitHub's REST description, among the
// largest there are, is 13 MB.
const MaxSpecBytes = 64 << 20

// Spec is a parsed OpenAPI 3.x document: its operations, ready to become
// tools. It is immutable and safe for concurrent use.
type Spec struct {
	// Version is the document's "openapi" ("3.0.3", "3.1.0").
	Version string
	// Title is info.title.
	Title string
	// ServerURL is the first of "servers", the base URL calls go to when
	// none is configured; "" when the document names none.
	ServerURL string
	// Operations are the document's operations, by path then method.
	Operations []Operation

	schemas *schemaSet // the document's component schemas, converted on demand
}

// Load reads an OpenAPI document from a file: JSON, or YAML (a document
// that does not start with "{").
func Load(path string) (*Spec, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, engine.WrapError(engine.CodeBadRequest, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxSpecBytes+1))
	if err != nil {
		return nil, engine.WrapError(engine.CodeBadRequest, err)
	}
	s, err := Parse(data)
	if err != nil {
		return nil, engine.Errorf(engine.CodeBadRequest, "OpenAPI document %s: %s", path, engine.AsError(err, engine.CodeBadRequest).Message)
	}
	return s, nil
}

// Parse reads an OpenAPI 3.x document, JSON or YAML. Every problem is
// reported at once, each with its JSON path
// (paths["/pets/{id}"].get.parameters[0].in), in one bad_request
// *engine.Error whose message lists them separated by "; ".
func Parse(data []byte) (*Spec, error) {
	if len(data) > MaxSpecBytes {
		return nil, engine.Errorf(engine.CodeBadRequest, "the document is over %d MiB", MaxSpecBytes>>20)
	}
	doc, err := decode(data)
	if err != nil {
		return nil, engine.Errorf(engine.CodeBadRequest, "%v", err)
	}
	var p strictjson.Problems
	s := read(doc, &p)
	if err := p.Err(); err != nil {
		return nil, engine.WrapError(engine.CodeBadRequest, err)
	}
	return s, nil
}

// decode reads JSON (numbers kept as written) or YAML into the same tree:
// map[string]any, []any, string, json.Number, bool and nil.
func decode(data []byte) (map[string]any, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 {
		return nil, errors.New("the document is empty")
	}
	var v any
	if trimmed[0] == '{' {
		d := json.NewDecoder(bytes.NewReader(data))
		d.UseNumber()
		if err := d.Decode(&v); err != nil {
			// A position, since the document may be 13 MB of one line.
			where, why := strictjson.SyntaxProblem(data, err)
			if where != "" {
				return nil, fmt.Errorf("not valid JSON at %s: %s", where, why)
			}
			return nil, fmt.Errorf("not valid JSON: %s", why)
		}
		if _, err := d.Token(); err != io.EOF {
			return nil, errors.New("not valid JSON: data after the document")
		}
	} else {
		// The YAML decoder refuses excessive aliasing ("billion laughs").
		err := yaml.Unmarshal(trimmed, &v)
		if err == nil {
			v, err = fromYAML(v, 0)
		}
		if err != nil {
			return nil, fmt.Errorf("not valid YAML: %v", err)
		}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("the document is not an object")
	}
	return m, nil
}

// maxDepth bounds the nesting of a document's values and of the schemas
// made from them.
const maxDepth = 200

// fromYAML makes a YAML value what JSON decodes to: string keys, numbers
// as json.Number.
func fromYAML(v any, depth int) (any, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("nested over %d deep", maxDepth)
	}
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			c, err := fromYAML(e, depth+1)
			if err != nil {
				return nil, err
			}
			v[k] = c
		}
		return v, nil
	case map[any]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			c, err := fromYAML(e, depth+1)
			if err != nil {
				return nil, err
			}
			m[fmt.Sprint(k)] = c
		}
		return m, nil
	case []any:
		for i, e := range v {
			c, err := fromYAML(e, depth+1)
			if err != nil {
				return nil, err
			}
			v[i] = c
		}
		return v, nil
	case int:
		return json.Number(fmt.Sprint(v)), nil
	case int64, uint64, uint, float64:
		b, err := json.Marshal(v)
		if err != nil { // NaN or an infinity
			return nil, fmt.Errorf("the number %v has no JSON form", v)
		}
		return json.Number(b), nil
	case string, bool, nil:
		return v, nil
	default: // a timestamp, binary
		return fmt.Sprint(v), nil
	}
}

// read checks the document's top level and reads its operations.
func read(doc map[string]any, p *strictjson.Problems) *Spec {
	s := &Spec{}
	version, _ := doc["openapi"].(string)
	switch {
	case doc["swagger"] != nil:
		p.Addf("swagger", "a Swagger 2.0 document; convert it to OpenAPI 3 first (for example with swagger2openapi)")
		return s
	case version == "":
		p.Addf("openapi", `missing: want the OpenAPI version, such as "3.0.3" or "3.1.0"`)
		return s
	case !strings.HasPrefix(version, "3."):
		p.Addf("openapi", "want OpenAPI 3.x, got %s", strictjson.Quote(version))
		return s
	}
	s.Version = version
	if info, ok := doc["info"].(map[string]any); ok {
		s.Title, _ = info["title"].(string)
	}
	if servers, ok := doc["servers"].([]any); ok && len(servers) > 0 {
		if first, ok := servers[0].(map[string]any); ok {
			s.ServerURL, _ = first["url"].(string)
			s.ServerURL = serverURL(s.ServerURL, first["variables"])
		}
	}
	s.schemas = newSchemaSet(doc, strings.HasPrefix(version, "3.0"))
	s.Operations = readPaths(doc, s.schemas, p)
	s.schemas.problems(p)
	return s
}

// serverURL fills a server URL's {variables} with their defaults.
func serverURL(u string, vars any) string {
	m, _ := vars.(map[string]any)
	for name, v := range m {
		vm, _ := v.(map[string]any)
		if def, ok := vm["default"].(string); ok {
			u = strings.ReplaceAll(u, "{"+name+"}", def)
		}
	}
	return u
}
