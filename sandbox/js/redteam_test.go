package js

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Attacks on the array-like paths through primitives: a number, boolean or
// symbol has no length of its own, so the array methods (which make this
// an object), concat (whose this is made an object and may be spreadable)
// and String.raw (whose template and raw are made objects) read the length
// their prototype has, which a script can make 2**40. Each must end as on
// {length: 2**40} (hugeArrayLikeOutcomes): within the run's limits, and not
// go on in Go after the run was answered.
func TestHostilePrimitiveThisLength(t *testing.T) {
	const setup = `Object.defineProperty(Number.prototype, "length", {get() { return 2 ** 40 }, set(v) {}});
Number.prototype[Symbol.isConcatSpreadable] = true;
`
	exprs := map[string]struct {
		expr string
		want Code
	}{
		"String.raw raw":      {`String.raw({raw: 5}, 1)`, CodeMemoryLimit},
		"String.raw template": {`(Number.prototype.raw = {length: 2 ** 40}, String.raw(5, 1))`, CodeMemoryLimit},
	}
	for _, k := range arrayMethods {
		name, expr := methodExpr(k)
		want, ok := hugeArrayLikeOutcomes[name]
		if !ok {
			t.Fatalf("hugeArrayLikeOutcomes has no outcome for %s", name)
		}
		exprs[name] = struct {
			expr string
			want Code
		}{expr + ".call(5, () => 0)", want}
	}
	exprs["concat"] = struct {
		expr string
		want Code
	}{"Array.prototype.concat.call(5)", CodeTimeout} // this is spreadable here
	for name, c := range exprs {
		t.Run(name, func(t *testing.T) {
			code := setup + "try { " + c.expr + " } catch (e) { return 'caught ' + e.name }\nreturn 'done'"
			if c.want == CodeTimeout {
				requireStopsAtTimeout(t, code)
				return
			}
			res, _ := runCode(t, code, Options{Limits: Limits{Timeout: 10 * time.Second}})
			var got Code
			if res.Err != nil {
				got = res.Err.Code
			}
			if got != c.want {
				t.Errorf("err = %v (value %s), want %q", res.Err, res.Value, c.want)
			}
		})
	}
}

// primitiveThisScripts are array methods, concat and String.raw on
// primitives whose prototypes have a length and elements: the same in the
// sandbox as in bare goja.
var primitiveThisScripts = map[string]string{
	"number": `Object.defineProperty(Number.prototype, "length", {value: 3, configurable: true});
Number.prototype[0] = "a"; Number.prototype[2] = "c";
return [Array.prototype.join.call(5, "-"), Array.prototype.indexOf.call(5, "c"), Array.prototype.map.call(5, (x) => x + x),
  Array.prototype.map.call(5, (x, i, o) => typeof o), Array.prototype.includes.call(Symbol(), "c"),
  Array.prototype.lastIndexOf.call(7, "a"), Array.prototype.slice.call(5, 1), Array.prototype.at.call(5, -1)]`,
	"concat": `Boolean.prototype[Symbol.isConcatSpreadable] = true;
Object.defineProperty(Boolean.prototype, "length", {value: 2}); Boolean.prototype[1] = "x";
return [Array.prototype.concat.call(true, [1]), Array.prototype.concat.call(5, [1]).length, typeof Array.prototype.concat.call(5)[0]]`,
	"concat nullish": `const r = (f) => { try { return f() } catch (e) { return e.name } };
return [r(() => Array.prototype.concat.call(undefined, {})), r(() => Array.prototype.concat.call(null, 1)),
  r(() => Array.prototype.map.call(null, (x) => x)), r(() => Array.prototype.join.call(undefined))]`,
	"String.raw": `Object.defineProperty(Number.prototype, "length", {value: 2, configurable: true});
Number.prototype[0] = "a"; Number.prototype[1] = "b"; Number.prototype.raw = 7;
const r = (f) => { try { return f() } catch (e) { return e.name } };
return [String.raw({raw: 5}, "-"), String.raw(5, "+"), String.raw({raw: "xyz"}, 1, 2), r(() => String.raw({raw: null})), r(() => String.raw(undefined))]`,
	"symbol": `Object.defineProperty(Symbol.prototype, "length", {value: 2}); Symbol.prototype[0] = 1;
return [Array.prototype.reduce.call(Symbol(), (a, b) => a + (b === undefined ? 0 : b), 10), Array.prototype.filter.call(Symbol.iterator, (x) => x === 1)]`,
}

func TestPrimitiveThisSameAsGoja(t *testing.T) {
	for name, code := range primitiveThisScripts {
		t.Run(name, func(t *testing.T) {
			want := bareGoja(t, code)
			res, _ := runCode(t, code, Options{Limits: Limits{Timeout: 10 * time.Second}})
			if res.Err != nil {
				t.Fatalf("sandbox: %v (bare goja: %s)", res.Err, want)
			}
			if diff := cmp.Diff(want, string(res.Value)); diff != "" {
				t.Errorf("sandbox differs from goja (-goja +sandbox):\n%s", diff)
			}
		})
	}
}
