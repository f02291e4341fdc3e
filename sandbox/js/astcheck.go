package js

import (
	"fmt"
	"math/big"
	"reflect"
	"sync"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/token"
)

// maxFoldWork bounds the work goja's compiler does folding constant
// expressions, in the units foldCost counts (one visit of an expression
// node). The compiler revisits operands: a chain a+b+c+… costs the square of
// its length, a chain 0||0||… doubles with every operator (22 operators took
// 0.55 s). A million visits is about 15–100 ms depending on the node kind; a
// chain of 1,000 additions costs half of it.
const maxFoldWork = 1_000_000

// checkAST refuses, before goja compiles it, what its compiler would evaluate
// outside every budget: BigInt literals (goja folds constant BigInt
// arithmetic while compiling, and 1n << 10n**12n ends the process out of
// memory) and expressions whose constant folding would take too long. It
// walks the tree once.
func checkAST(prg *ast.Program, src string) *Error {
	w := astWalker{src: src}
	for _, st := range prg.Body {
		c, e, _ := w.node(reflect.ValueOf(st))
		w.work = sat(w.work, sat(c, e))
		if w.err != nil {
			return w.err
		}
	}
	if w.work > maxFoldWork {
		return &Error{Code: CodeLimitExceeded, Message: fmt.Sprintf("the code's operator chains are too costly to compile (over %d units of work): split long chains like a+b+c+… or 0||0||… into statements", maxFoldWork)}
	}
	return nil
}

type astWalker struct {
	src  string // the parsed code, for positions
	work uint64
	err  *Error
}

const bigIntRefused = "BigInt is not available in the sandbox (tools exchange JSON, which has no BigInt)"

var (
	bigIntType     = reflect.TypeOf((*big.Int)(nil))
	declarationsOf = "DeclarationList" // repeats declarations the body holds: walking it twice per scope would be exponential
)

// node walks one value of the tree and returns what goja's compiler spends on
// it: c for its constant() check, e for emitting it (emitGetter, or evalConst
// when constant), and whether it may be constant. The figures follow the
// compiler's recursion (compiler_expr.go); where they are not exact they are
// larger.
func (w *astWalker) node(v reflect.Value) (c, e uint64, constant bool) {
	if w.err != nil || !v.IsValid() {
		return 0, 0, false
	}
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return 0, 0, false
		}
	}
	if v.Kind() == reflect.Interface {
		v = v.Elem()
	}
	switch n := v.Interface().(type) {
	case *ast.NumberLiteral:
		if _, ok := n.Value.(*big.Int); ok {
			w.fail(n.Idx, bigIntRefused)
		}
		return 1, 1, true
	case *ast.StringLiteral, *ast.BooleanLiteral, *ast.NullLiteral:
		return 1, 1, true
	case *ast.UnaryExpression:
		oc, oe, ok := w.node(reflect.ValueOf(n.Operand))
		switch n.Operator {
		case token.MINUS, token.PLUS, token.VOID: // emitExpr: constant() then emit
			return sat(1, oc), sat(1, sat(oc, oe)), ok
		default: // emitGetter of the operand directly
			return sat(1, oc), sat(1, oe), ok
		}
	case *ast.BinaryExpression:
		lc, le, lok := w.node(reflect.ValueOf(n.Left))
		rc, re, rok := w.node(reflect.ValueOf(n.Right))
		emit := sat(1, sat(sat(lc, le), sat(rc, re)))
		switch n.Operator {
		case token.LOGICAL_OR, token.LOGICAL_AND, token.COALESCE:
			if !lok {
				return sat(1, lc), emit, false
			}
			// constant() evaluates the left operand, then asks the right.
			return sat(1, sat(sat(lc, le), rc)), emit, true
		}
		if !lok {
			return sat(1, lc), emit, false
		}
		return sat(1, sat(lc, rc)), emit, rok
	}
	// Any other node: not constant; its parts are emitted once each.
	e = 1
	w.children(v, func(cc, ce uint64) { e = sat(e, sat(cc, ce)) })
	return 1, e, false
}

// children walks the parts of v that are nodes or hold nodes.
func (w *astWalker) children(v reflect.Value, add func(c, e uint64)) {
	switch v.Kind() {
	case reflect.Pointer:
		v = v.Elem()
		if v.Kind() != reflect.Struct {
			return
		}
		fallthrough
	case reflect.Struct:
		for _, i := range nodeFields(v.Type()) {
			f := v.Field(i)
			switch f.Kind() {
			case reflect.Slice:
				for j := 0; j < f.Len(); j++ {
					c, e, _ := w.node(f.Index(j))
					add(c, e)
				}
			case reflect.Struct:
				w.children(f, add)
			default:
				c, e, _ := w.node(f)
				add(c, e)
			}
		}
	}
}

var fieldCache sync.Map // reflect.Type → []int

// nodeFields lists the fields of a node struct that may hold nodes:
// interfaces, pointers to structs of package ast, slices of them, embedded
// structs.
func nodeFields(t reflect.Type) []int {
	if f, ok := fieldCache.Load(t); ok {
		return f.([]int)
	}
	astPkg := reflect.TypeOf(ast.Program{}).PkgPath()
	holds := func(t reflect.Type) bool {
		switch t.Kind() {
		case reflect.Interface:
			return t.PkgPath() == astPkg
		case reflect.Pointer:
			return t != bigIntType && t.Elem().Kind() == reflect.Struct && t.Elem().PkgPath() == astPkg
		case reflect.Struct:
			return t.PkgPath() == astPkg
		}
		return false
	}
	var idx []int
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() || f.Name == declarationsOf {
			continue
		}
		ft := f.Type
		if ft.Kind() == reflect.Slice {
			ft = ft.Elem()
		}
		if holds(ft) {
			idx = append(idx, i)
		}
	}
	fieldCache.Store(t, idx)
	return idx
}

func (w *astWalker) fail(at file.Idx, msg string) {
	e := &Error{Code: CodeSyntaxError, Message: msg}
	if off := int(at) - 1; off >= 0 && off <= len(w.src) {
		e.Line, e.Column = jsPosition(w.src, off)
	}
	w.err = e
}

// sat adds without overflowing: costs that large are refused anyway.
func sat(a, b uint64) uint64 {
	if s := a + b; s >= a {
		return s
	}
	return ^uint64(0)
}
