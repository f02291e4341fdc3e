package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// maxMessageChars bounds what a problem of doc says: a value shown in part
// (MaxQuoteChars) and some words around it, or the list of doc's fields.
const maxMessageChars = MaxQuoteChars + 100

// millis is a custom type with its own UnmarshalJSON, like engine.Duration.
type millis int64

func (m *millis) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var n int64
	if err := json.Unmarshal(b, &n); err != nil || n <= 0 {
		return fmt.Errorf("want a positive number of milliseconds, got %s", Describe(b))
	}
	*m = millis(n)
	return nil
}

type inner struct {
	Count int     `json:"count,omitempty"`
	Ratio float64 `json:"ratio,omitempty"`
	Wait  millis  `json:"wait,omitempty"`
}

type Embedded struct {
	Shared string `json:"shared,omitempty"`
}

type doc struct {
	Embedded
	Name    string            `json:"name"`
	On      bool              `json:"on,omitempty"`
	Small   int8              `json:"small,omitempty"`
	Size    uint              `json:"size,omitempty"`
	Limits  inner             `json:"limits"`
	Opt     *inner            `json:"opt,omitempty"`
	Items   []inner           `json:"items,omitempty"`
	Tags    []string          `json:"tags,omitempty"`
	Tools   map[string]inner  `json:"tools,omitempty"`
	Raw     json.RawMessage   `json:"raw,omitempty"`
	Any     any               `json:"any,omitempty"`
	Bytes   []byte            `json:"bytes,omitempty"`
	Pair    [2]int            `json:"pair,omitempty"`
	Labels  map[string]string `json:"labels,omitempty"`
	Skipped string            `json:"-"`
	hidden  int
}

func decode(t *testing.T, in string) (doc, *Problems) {
	t.Helper()
	var d doc
	p := Decode([]byte(in), &d)
	return d, p
}

func errText(p *Problems) string {
	if err := p.Err(); err != nil {
		return err.Error()
	}
	return ""
}

func TestDecodeValid(t *testing.T) {
	in := `{"shared":"s","name":"n","on":true,"small":-5,"size":7,"limits":{"count":3,"ratio":0.5,"wait":250},
		"opt":{"count":1},"items":[{"count":1},{"wait":2}],"tags":["a","b"],"tools":{"graph.layout":{"count":9}},
		"raw":{"x":[1,2]},"any":{"k":[true,null,1.5]},"bytes":"aGk=","pair":[1,2],"labels":{}}`
	got, p := decode(t, in)
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	var want doc
	dec := json.NewDecoder(strings.NewReader(in))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(doc{})); diff != "" {
		t.Errorf("differs from encoding/json (-want +got):\n%s", diff)
	}
	for _, path := range []string{"name", "limits.wait", "tools", `tools["graph.layout"]`, `tools["graph.layout"].count`, "items[1].wait", "shared"} {
		if !p.Given(path) {
			t.Errorf("Given(%s) = false", path)
		}
	}
	if p.Given("limits.count.x") || p.Given("on.x") || p.Given("opt.wait") {
		t.Error("Given reports a member the document lacks")
	}
}

// Every problem is reported, each once, with its path, in JSON's terms.
func TestDecodeReportsEveryProblem(t *testing.T) {
	_, p := decode(t, `{"nme":"x","name":5,"limits":{"count":"3","ratio":true,"wait":-1,"cuont":1},
		"items":[{"count":1.5},{"count":1e3},{"ratio":1e999}],"tags":"a","tools":{"a":{"count":[]},"b.c":[]},
		"small":300,"size":-1,"on":"yes","opt":[],"limits":{},"NAME":"y","bytes":5,"raw":{"a":1},"zzzzzzzz":1}`)
	want := []Problem{
		{"nme", `unknown field (did you mean "name"?)`},
		{"name", `want a string, got the number 5`},
		{"limits.count", `want an integer, got the string "3"`},
		{"limits.ratio", `want a number, got true`},
		{"limits.wait", `want a positive number of milliseconds, got the number -1`},
		{"limits.cuont", `unknown field (did you mean "count"?)`},
		{"items[0].count", `want an integer, got the number 1.5`},
		{"items[1].count", `want an integer, got the number 1e3`},
		{"items[2].ratio", `1e999 is out of range`},
		{"tags", `want an array, got the string "a"`},
		{`tools.a.count`, `want an integer, got an array`},
		{`tools["b.c"]`, `want an object, got an array`},
		{"small", `300 is out of range`},
		{"size", `want a non-negative integer, got the number -1`},
		{"on", `want true or false, got the string "yes"`},
		{"opt", `want an object, got an array`},
		{"limits", `given twice`},
		{"NAME", `unknown field (did you mean "name"? names are case-sensitive)`},
		{"bytes", `want a base64 string, got the number 5`},
		{"zzzzzzzz", `unknown field (the fields here are name, on, small, size, limits, opt, items, tags, tools, raw, any, bytes, pair, labels, shared)`},
	}
	if diff := cmp.Diff(want, p.List()); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	if p.Broken() {
		t.Error("a readable object counted as broken")
	}
}

func TestDecodeDocument(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		broken   bool
	}{
		{`{"name":"a"}]`, "unexpected data after the JSON value, at line 1, column 13", false},
		{`{"name":"a"}}`, "unexpected data after the JSON value, at line 1, column 13", false},
		{"{\"name\":\"a\"}\n\n  {}", "unexpected data after the JSON value, at line 3, column 3", false},
		{`{"name":"a"} x`, "unexpected data after the JSON value, at line 1, column 14", false},
		{`{"name":"a"}   ` + "\n", "", false},
		{``, "empty input: want a JSON object", true},
		{`   `, "empty input: want a JSON object", true},
		{`{"name":`, "malformed JSON: unexpected end of input", true},
		{"{\n  \"name\": x}", "malformed JSON at line 2, column 11: invalid character 'x' looking for beginning of value", true},
		{`{"näme" "a"}`, "malformed JSON at line 1, column 9: invalid character '\"' after object key", true},
		{`[]`, "want an object, got an array", true},
		{`"x"`, `want an object, got the string "x"`, true},
		{`null`, "", false},
		{`{"name":"a","nme":1}]`, `nme: unknown field (did you mean "name"?); unexpected data after the JSON value, at line 1, column 21`, false},
	} {
		_, p := decode(t, tc.in)
		if got := errText(p); got != tc.want || p.Broken() != tc.broken {
			t.Errorf("%q: %q (broken %v), want %q (broken %v)", tc.in, got, p.Broken(), tc.want, tc.broken)
		}
	}
}

func TestNull(t *testing.T) {
	d := doc{Name: "keep", Tags: []string{"x"}, Opt: &inner{}, Raw: json.RawMessage(`1`)}
	p := Decode([]byte(`{"name":null,"tags":null,"opt":null,"raw":null,"limits":{"wait":null}}`), &d)
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	if d.Name != "keep" || d.Tags != nil || d.Opt != nil || string(d.Raw) != "null" {
		t.Errorf("null decoded unlike encoding/json: %+v", d)
	}
	if p.Given("name") || p.Given("limits.wait") {
		t.Error("a null member counts as given")
	}
}

func TestAddfSkipsWhatIsReported(t *testing.T) {
	_, p := decode(t, `{"name":5,"items":"x","limits":{"count":1}}`)
	p.Addf("name", "must not be empty")              // the type problem stands alone
	p.Addf("items[0].count", "must be positive")     // inside a value that was not decoded
	p.Addf("limits.count", "must be at least %d", 2) // a new problem
	p.Addf("", "the document as a whole")            // and one of the document
	want := `name: want a string, got the number 5; items: want an array, got the string "x"; limits.count: must be at least 2; the document as a whole`
	if got := errText(p); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	var e *Error
	if !errors.As(p.Err(), &e) || len(e.Unwrap()) != 4 {
		t.Fatalf("Err() = %#v", p.Err())
	}
	var zero Problems
	if zero.Err() != nil {
		t.Error("an empty list is an error")
	}
}

func TestPaths(t *testing.T) {
	for _, tc := range [][2]string{
		{Member("", "a"), "a"},
		{Member("a", "b_2"), "a.b_2"},
		{Member("tools", "graph.layout"), `tools["graph.layout"]`},
		{Member("", "a b"), `["a b"]`},
		{Member("x", ""), `x[""]`},
		{Member("x", "2a"), `x["2a"]`},
		{Index(Member("", "mounts"), 0) + ".guest", "mounts[0].guest"},
		{Member("", strings.Repeat("L", 300)), `["` + strings.Repeat("L", 200) + `…"]`},
	} {
		if tc[0] != tc[1] {
			t.Errorf("got %s, want %s", tc[0], tc[1])
		}
	}
}

func TestManyProblemsAreCounted(t *testing.T) {
	var b strings.Builder
	b.WriteString("{")
	for i := range maxProblems + 10 {
		fmt.Fprintf(&b, `"x%d":1,`, i)
	}
	b.WriteString(`"name":"a"}`)
	_, p := decode(t, b.String())
	if p.Len() != maxProblems+10 || len(p.List()) != maxProblems || !strings.HasSuffix(errText(p), "; and 10 more problems") {
		t.Errorf("%d problems, %d kept: ...%s", p.Len(), len(p.List()), errText(p)[len(errText(p))-40:])
	}
}

// A client's long value is shown by its first MaxQuoteChars characters, so
// that it cannot crowd the other problems out of a message of bounded size.
func TestLongValuesAreQuotedInPart(t *testing.T) {
	digits := strings.Repeat("9", 5000)
	long := strings.Repeat("x", 100_000)
	for _, tc := range []struct{ doc, path, prefix string }{
		{`{"small":` + digits + `}`, "small", strings.Repeat("9", MaxQuoteChars) + "… is out of range"},
		{`{"limits":{"count":-` + digits + `}}`, "limits.count", "-" + strings.Repeat("9", MaxQuoteChars-1) + "… is out of range"},
		{`{"size":` + digits + `}`, "size", strings.Repeat("9", MaxQuoteChars) + "… is out of range"},
		{`{"limits":{"ratio":1` + digits + `e999}}`, "limits.ratio", "1" + strings.Repeat("9", MaxQuoteChars-1) + "… is out of range"},
		{`{"any":` + digits + `e999}`, "any", strings.Repeat("9", MaxQuoteChars) + "… is out of range"},
		{`{"echo":"` + long + `"}`, "echo", "cannot read " + strings.Repeat("x", maxForeignChars-len("cannot read ")) + "…"},
		{`{"` + long + `":1}`, `["` + strings.Repeat("x", MaxQuoteChars) + `…"]`, "unknown field"},
	} {
		var v struct {
			doc
			Echo echo `json:"echo"`
		}
		p := Decode([]byte(tc.doc), &v)
		if len(p.List()) != 1 {
			t.Errorf("%.40s…: %d problems, want 1", tc.doc, len(p.List()))
			continue
		}
		q := p.List()[0]
		if q.Path != tc.path || !strings.HasPrefix(q.Message, tc.prefix) || len(q.Message) > len(tc.prefix)+200 {
			t.Errorf("%.40s…: %.300s (%d bytes), want %.300s", tc.doc, q.Error(), len(q.Error()), Problem{tc.path, tc.prefix})
		}
	}
	if got, want := NotPositive("-"+digits), "must be positive, not -"+strings.Repeat("9", MaxQuoteChars-1)+"… (leave it out for the default)"; got != want {
		t.Errorf("NotPositive = %.300s", got)
	}
	if got, want := Quote("é"+long), `"é`+strings.Repeat("x", MaxQuoteChars-1)+`…"`; got != want {
		t.Errorf("Quote = %.300s", got)
	}
	// A path through ten thousand arrays is cut too.
	_, p := decode(t, `{"any":`+strings.Repeat("[", 5000)+"1e999"+strings.Repeat("]", 5000)+`}`)
	if len(p.List()) != 1 || utf8.RuneCountInString(p.List()[0].Path) != maxPathChars+1 {
		t.Errorf("deep path: %d problems, %.100s", p.Len(), errText(p))
	}
}

// echo's UnmarshalJSON quotes what it was given whole, as other packages'
// types may.
type echo string

func (e *echo) UnmarshalJSON(b []byte) error {
	var s string
	json.Unmarshal(b, &s)
	return errors.New("cannot read " + s)
}

func TestClip(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"", 3, ""}, {"abc", 3, "abc"}, {"abcd", 3, "abc…"}, {"äöü", 3, "äöü"}, {"äöüß", 3, "äöü…"},
		{"ab\xffcd", 3, "ab\xff…"}, {"日本語", 2, "日本…"}, {"日本", 5, "日本"},
	} {
		if got := Clip(tc.s, tc.n); got != tc.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

// A wrong value inside an array or an untyped value is reported where it
// is, in words that fit it.
func TestProblemsInsideValues(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []Problem
	}{
		{`{"any":1e999}`, []Problem{{"any", "1e999 is out of range"}}},
		{`{"any":{"a":[1,-1e999,{"b":2e400}]}}`, []Problem{{"any.a[1]", "-1e999 is out of range"}, {"any.a[2].b", "2e400 is out of range"}}},
		{`{"any":{"a":1,"a":2}}`, []Problem{{"any.a", "given twice"}}},
		{`{"pair":["a",2]}`, []Problem{{"pair[0]", `want an integer, got the string "a"`}}},
		{`{"pair":[1,{}]}`, []Problem{{"pair[1]", `want an integer, got an object`}}},
		{`{"pair":[1,2,3]}`, []Problem{{"pair", "want at most 2 elements, got 3"}}},
		{`{"pair":"12"}`, []Problem{{"pair", `want an array, got the string "12"`}}},
	} {
		_, p := decode(t, tc.in)
		if diff := cmp.Diff(tc.want, p.List()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.in, diff)
		}
	}
	// What is read is what encoding/json reads.
	for _, in := range []string{`{"pair":[7]}`, `{"pair":[]}`, `{"any":{"a":[1,"x",null,true,{}],"b":[]}}`, `{"any":[]}`, `{"any":-0}`} {
		got, p := decode(t, in)
		want := doc{Pair: [2]int{5, 6}}
		got2 := doc{Pair: [2]int{5, 6}}
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatal(err)
		}
		Decode([]byte(in), &got2)
		if err := p.Err(); err != nil {
			t.Errorf("%s: %v", in, err)
		}
		var fresh doc
		json.Unmarshal([]byte(in), &fresh)
		if diff := cmp.Diff(fresh, got, cmp.AllowUnexported(doc{})); diff != "" {
			t.Errorf("%s differs from encoding/json (-want +got):\n%s", in, diff)
		}
		if diff := cmp.Diff(want, got2, cmp.AllowUnexported(doc{})); diff != "" {
			t.Errorf("%s into a filled value differs from encoding/json (-want +got):\n%s", in, diff)
		}
	}
}

// A member repeated is one problem, however many times it is repeated.
func TestRepeatedMembersReportedOnce(t *testing.T) {
	_, p := decode(t, `{"name":"a","on":true,"name":"b","name":"c","on":false,"tools":{"x":{},"x":{},"x":{},"x":{}}}`)
	want := []Problem{{"name", "given 3 times"}, {"on", "given twice"}, {"tools.x", "given 4 times"}}
	if diff := cmp.Diff(want, p.List()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	var b strings.Builder
	b.WriteString(`{"name":"a"`)
	for range 200_000 {
		b.WriteString(`,"name":"a"`)
	}
	b.WriteString(`,"nme":1}`)
	_, p = decode(t, b.String())
	want = []Problem{{"name", "given 200001 times"}, {"nme", `unknown field (did you mean "name"?)`}}
	if diff := cmp.Diff(want, p.List()); diff != "" || p.Len() != 2 {
		t.Errorf("%d problems (-want +got):\n%s", p.Len(), diff)
	}
}

// FuzzStrict: Decode never panics; what it accepts, encoding/json (with
// unknown fields disallowed) accepts too and decodes to the same value; every
// problem of a document that is not broken has a path or is about trailing
// data; and no problem says more than a few hundred characters, whatever the
// document holds (a long value is shown in part).
func FuzzStrict(f *testing.F) {
	for _, seed := range []string{
		`{"name":"n","limits":{"count":3,"wait":250},"items":[{"count":1}],"tools":{"a.b":{"ratio":0.5}},"raw":[1],"any":{"k":null}}`,
		`{"nme":"x","name":5,"limits":{"count":"3"},"tags":"a","tools":{"a":[]}}]`,
		`{"shared":"s","pair":[1,2,3],"bytes":"!!","labels":{"a":1}}`,
		`{"name":"a","name":"b","NAME":"c"}`,
		`[] {}`, `{"opt":null,"small":-129,"size":1e2}`, `{"limits":{"wait":0}}`,
		`{"any":[1e999,{"a":1,"a":2}],"pair":["a",2,3]}`,
		`{"small":` + strings.Repeat("9", 400) + `,"items":[{"ratio":-` + strings.Repeat("1", 400) + `e999}]}`,
		`{"limits":{"wait":"` + strings.Repeat("w", 400) + `"},"tags":[` + strings.Repeat("1", 400) + `]}`,
		`{"any":` + strings.Repeat("[", 600) + `1e999` + strings.Repeat("]", 600) + `}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var got doc
		p := Decode(data, &got)
		if p.Len() > 0 {
			for _, q := range p.List() {
				if q.Message == "" {
					t.Fatalf("a problem without a message: %+v", q)
				}
				if q.Path == "" && !p.Broken() && !strings.HasPrefix(q.Message, "unexpected data after") {
					t.Fatalf("a problem without a path: %+v", q)
				}
				if n := utf8.RuneCountInString(q.Message); n > maxMessageChars {
					t.Fatalf("a message of %d characters: %.400s", n, q.Message)
				}
				if n := utf8.RuneCountInString(q.Path); n > maxPathChars+1 {
					t.Fatalf("a path of %d characters: %.400s", n, q.Path)
				}
			}
			return
		}
		var want doc
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&want); err != nil {
			t.Fatalf("strict accepted what encoding/json rejects (%v): %q", err, data)
		}
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("decoded differently:\nencoding/json %+v\nstrictjson    %+v", want, got)
		}
	})
}
