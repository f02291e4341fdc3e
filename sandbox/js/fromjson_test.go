package js

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/dop251/goja"
)

// describeJS writes v out with everything JSON.parse decides: key order,
// own and enumerable properties, prototypes, UTF-16 code units, the sign of
// zero.
func describeJS(r *runner, v goja.Value) string {
	objectProto := r.vm.GlobalObject().Get("Object").(*goja.Object).Get("prototype").(*goja.Object)
	arrayProto := r.vm.GlobalObject().Get("Array").(*goja.Object).Get("prototype").(*goja.Object)
	var b strings.Builder
	var walk func(v goja.Value)
	walk = func(v goja.Value) {
		switch x := v.(type) {
		case nil:
			b.WriteString("<nil>")
		case *goja.Object:
			switch x.ClassName() {
			case "Array":
				fmt.Fprintf(&b, "array(proto ok %t)[", x.Prototype() == arrayProto)
				for i := range toLength(x.Get("length")) {
					walk(x.Get(fmt.Sprint(i)))
					b.WriteString(",")
				}
				b.WriteString("]")
			default:
				fmt.Fprintf(&b, "%s(proto ok %t, enumerable %q){", x.ClassName(), x.Prototype() == objectProto, x.Keys())
				for _, k := range x.GetOwnPropertyNames() {
					fmt.Fprintf(&b, "%q:", k)
					walk(x.Get(k))
					b.WriteString(",")
				}
				b.WriteString("}")
			}
		case goja.String:
			b.WriteString("string(")
			for i := range x.Length() {
				fmt.Fprintf(&b, "%04x ", x.CharAt(i))
			}
			b.WriteString(")")
		default:
			switch {
			case goja.IsNull(v):
				b.WriteString("null")
			case goja.IsNumber(v):
				fmt.Fprintf(&b, "number(%s %x)", v.ExportType(), math.Float64bits(v.ToFloat()))
			default:
				fmt.Fprintf(&b, "%s(%s)", v.ExportType(), v)
			}
		}
	}
	walk(v)
	return b.String()
}

// bothParses parses text with parseJSON and with goja's JSON.parse.
func bothParses(t testing.TB, text []byte) (sandbox, builtin string) {
	t.Helper()
	r := jsonRunner(t)
	outcome := func(v goja.Value, err error) string {
		if err != nil {
			if ex, ok := err.(*goja.Exception); ok {
				return "throws " + ex.Value().String()
			}
			return "error " + err.Error()
		}
		return describeJS(r, v)
	}
	sandbox = outcome(r.parseJSON(text))
	return sandbox, outcome(r.jsonParse(goja.Undefined(), r.vm.ToValue(string(text))))
}

// The host's JSON becomes the values goja's JSON.parse makes of it, with
// the same exceptions.
func TestParseJSONMatchesBuiltin(t *testing.T) {
	texts := []string{
		`{"ok":true,"n":3}`,
		`{"objects":[{"id":"a1","x":10,"y":20.5,"tags":["a","b"]},{"id":"a2","x":-3,"y":1e3,"text":null}],"count":2}`,
		` [ 1 , 2.5e-3 , -0 , 0 , 1E400 ] `, `-1e400`, `1e-400`, `9007199254740993`, `123456789012345678901234567890`, `0.1`,
		`"\ud800"`, `"\udc00\ud800"`, `"\ud83d\ude00"`, `"\u2028\u2029"`, `"a\"b\\c\/d\b\f\n\r\t"`, `"é\u00e9"`, "\"\xff\xfe\"", "\"\xe2\x82\"",
		`{"__proto__":{"polluted":1},"b":2}`, `{"a":1,"a":2,"b":3}`, `{"b":1,"2":2,"1":3,"-1":4,"01":5,"4294967295":6}`,
		`{"":1,"toJSON":2,"length":3}`, `[]`, `{}`, `[[],{},[{}]]`, `true`, `false`, `null`, `""`,
		``, ` `, `{`, `[1,]`, `01`, `1 2`, `nul`, `{"a"}`, `"\x"`, `[1]]`, "\"\x01\"", `{"a":1,}`,
		strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
		`[` + strings.Repeat(`{"k":"v","n":1},`, 3000) + `0]`,
	}
	for _, text := range texts {
		sandbox, builtin := bothParses(t, []byte(text))
		if sandbox != builtin {
			t.Errorf("%.80q:\nparseJSON:  %.300s\nJSON.parse: %.300s", text, sandbox, builtin)
		}
	}
}

// Host JSON nested deeper than the sandbox's JSON.parse accepts is refused
// before anything is built: goja's JSON.parse would recurse natively as deep
// as the text goes.
func TestHostileToolResultTooDeep(t *testing.T) {
	r := jsonRunner(t)
	for _, text := range []string{
		strings.Repeat("[", maxJSONDepth+1) + strings.Repeat("]", maxJSONDepth+1),
		strings.Repeat(`{"a":`, maxJSONDepth+1) + "1" + strings.Repeat("}", maxJSONDepth+1),
		strings.Repeat("[", 1_000_000), // not even JSON: refused at the limit, not parsed to the end
	} {
		if _, err := r.parseJSON([]byte(text)); err != errJSONTooDeep {
			t.Errorf("%.20s... (%d bytes): err %v, want %v", text, len(text), err, errJSONTooDeep)
		}
	}
	h := newTestHost()
	h.tools["deep"] = func(json.RawMessage) (json.RawMessage, *Error) {
		return json.RawMessage(strings.Repeat("[", 20000) + strings.Repeat("]", 20000)), nil
	}
	res, _ := runCode(t, "try { await tools.deep() } catch (e) { return e.message }", Options{Host: h})
	if want := `"the tool's result is not valid JSON"`; res.Err != nil || string(res.Value) != want {
		t.Errorf("value %s, err %v; want %s", res.Value, res.Err, want)
	}
}

// FuzzParseJSON compares parseJSON with goja's JSON.parse.
func FuzzParseJSON(f *testing.F) {
	for _, seed := range []string{`{"ok":true,"n":3}`, `[1,"a",null,{"b":[]}]`, `"\ud800x"`, `{"__proto__":1}`, `1e400`, "\"\xff\"", `{"a":1,"a":2}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		sandbox, builtin := bothParses(t, text)
		if sandbox == "error "+errJSONTooDeep.Error() {
			return // refused by the sandbox, parsed by goja: TestHostileToolResultTooDeep
		}
		if sandbox != builtin {
			t.Errorf("%q:\nparseJSON:  %.300s\nJSON.parse: %.300s", text, sandbox, builtin)
		}
	})
}

// A tool result with a "__proto__" key gets an own property of that name,
// as JSON.parse makes it: the result's prototype stays Object.prototype.
func TestHostileToolResultProto(t *testing.T) {
	h := newTestHost()
	h.tools["proto"] = func(json.RawMessage) (json.RawMessage, *Error) {
		return json.RawMessage(`{"__proto__":{"polluted":true,"toString":1},"ok":1}`), nil
	}
	code := `const r = await tools.proto();
return [Object.getPrototypeOf(r) === Object.prototype, r.polluted === undefined, Object.keys(r), String(r), ({}).polluted === undefined]`
	res, _ := runCode(t, code, Options{Host: h})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if want := `[true,true,["__proto__","ok"],"[object Object]",true]`; string(res.Value) != want {
		t.Errorf("value %s, want %s", res.Value, want)
	}
}

// A result so large that decoding it takes longer than the run's timeout:
// the decoding stops when the run is ended, and the run is not abandoned.
func TestHostileToolResultStopsOnTimeout(t *testing.T) {
	big := json.RawMessage(`[` + strings.Repeat(`{"k":"v","n":[1,2,3]},`, 1_000_000) + `0]`)
	h := newTestHost()
	h.tools["big"] = func(json.RawMessage) (json.RawMessage, *Error) { return big, nil }
	s, err := Compile("const r = await tools.big(); return r.length", 0)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res := Run(context.Background(), s, Options{Tools: h.names(), Host: h, Limits: Limits{Timeout: 50 * time.Millisecond}})
	h.wg.Wait()
	if res.Err == nil || (res.Err.Code != CodeTimeout && res.Err.Code != CodeMemoryLimit) {
		t.Fatalf("err %v (value %s); want timeout", res.Err, res.Value)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("ended after %v; want about 50 ms", d)
	}
	if n := Abandoned(); n != 0 {
		t.Errorf("Abandoned() = %d: the decoding went on after the run was ended", n)
	}
}
