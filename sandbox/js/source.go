package js

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/parser"
	"github.com/evanw/esbuild/pkg/api"
	"github.com/go-sourcemap/sourcemap"
)

// Script is code ready to run: parsed, transformed from TypeScript when it
// had to be, and compiled. It is immutable and may be run any number of
// times, concurrently.
type Script struct {
	prg *goja.Program
	// TypeScript reports that the code needed esbuild (TypeScript syntax, or
	// JavaScript newer than the sandbox parses) and was transformed.
	TypeScript bool
	src        *sourceText
	smap       *sourcemap.Consumer // compiled code → wrapped source, TypeScript only
}

// The code is the body of an async function, so that top-level await and
// return work. The prefix shares the first line with the code, so line
// numbers need no mapping.
const (
	wrapPrefix = `(async function () {"use strict";`
	wrapSuffix = "\n})()"
	// scriptName is the file name of the code in stack traces; runtime
	// errors are located by finding it there.
	scriptName = "script.js"
)

// Compile prepares code for running. Plain JavaScript goes straight to the
// sandbox's parser; only code that parser rejects is handed to esbuild
// (TypeScript, ES2017 target), so scripts without types pay nothing for it.
// Errors are syntax_error (with line and column in the code as sent) or
// limit_exceeded when the code is longer than maxBytes (0: the default),
// nests deeper than MaxNesting, or has constant expressions too costly to
// fold. Compiling runs outside every budget of a run, so these bounds keep
// any code within the size limit quick to compile.
//
// The script is for Hardened runs; RunJob compiles for the job's profile.
func Compile(code string, maxBytes int) (*Script, *Error) {
	return compile(code, maxBytes, Hardened)
}

// compile is Compile for runs of profile p. goja compiles regular-expression
// literals here, each taking the engine's match timeout of this moment, so
// a Hardened script needs it set first (setRegexpTimeout). A Lean one must
// not set it: nothing in a lean run tells a match that timed out from "no
// match" (only the hardened RegExp wrappers do), so once set — and it is
// process-wide, for every regexp compiled after — a lean worker's
// /^(?:(?=a)(a+)+b|a+!)$/.test('a'.repeat(23) + '!') answered false after
// 1 s instead of true (TestLeanRegexpKeepsItsAnswer in sandbox/worker).
func compile(code string, maxBytes int, p Profile) (*Script, *Error) {
	if p != Lean {
		setRegexpTimeout()
	}
	compileAhead()
	if maxBytes <= 0 {
		maxBytes = DefaultMaxCodeBytes
	}
	if len(code) > maxBytes {
		return nil, &Error{Code: CodeLimitExceeded, Message: fmt.Sprintf("the code is %d bytes; the limit is %d", len(code), maxBytes)}
	}
	if !utf8.ValidString(code) {
		return nil, &Error{Code: CodeSyntaxError, Message: "the code is not valid UTF-8"}
	}
	if err := precheck(code); err != nil {
		return nil, err
	}
	src := newSourceText(code)
	wrapped := wrapPrefix + code + wrapSuffix
	prg, jsErr, parsed := compileJS(wrapped)
	if jsErr == nil {
		return &Script{prg: prg, src: src}, nil
	}
	if parsed { // goja parses the code but refuses it: esbuild would not help
		jsErr.Line, jsErr.Column = src.fromWrapped(jsErr.Line, jsErr.Column)
		return nil, jsErr
	}
	var out api.TransformResult
	if err := guard(func() {
		out = api.Transform(wrapped, api.TransformOptions{
			Loader:     api.LoaderTS,
			Target:     api.ES2017,
			Sourcemap:  api.SourceMapExternal,
			Sourcefile: "script.ts",
			LogLevel:   api.LogLevelSilent,
		})
	}); err != nil {
		return nil, err
	}
	if len(out.Errors) > 0 {
		m := out.Errors[0]
		e := &Error{Code: CodeSyntaxError, Message: m.Text}
		if loc := m.Location; loc != nil {
			e.Line, e.Column = src.fromWrapped(loc.Line, byteToCharColumn(loc.LineText, loc.Column)+1)
		}
		return nil, e
	}
	smap, serr := sourcemap.Parse("", out.Map)
	if serr != nil {
		return nil, &Error{Code: CodeSyntaxError, Message: "cannot read the TypeScript source map: " + serr.Error()}
	}
	s := &Script{TypeScript: true, src: src, smap: smap}
	prg, perr, _ := compileJS(string(out.Code))
	if perr != nil {
		perr.Line, perr.Column = s.position(perr.Line, perr.Column)
		return nil, perr
	}
	s.prg = prg
	return s, nil
}

// compileJS parses with source maps disabled — the parser would otherwise
// read whatever file a //# sourceMappingURL= comment names — checks the tree
// (checkAST) and compiles in strict mode. parsed reports that the error came
// after parsing. Error positions are in src.
func compileJS(src string) (prg *goja.Program, e *Error, parsed bool) {
	var tree *ast.Program
	var err error
	if e := guard(func() { tree, err = parser.ParseFile(nil, scriptName, src, 0, parser.WithDisableSourceMaps) }); e != nil {
		return nil, e, false
	}
	if err != nil {
		e := &Error{Code: CodeSyntaxError, Message: err.Error()}
		if list, ok := err.(parser.ErrorList); ok && len(list) > 0 {
			e.Message = list[0].Message
			e.Line, e.Column = list[0].Position.Line, list[0].Position.Column
		}
		return nil, e, false
	}
	if e := checkAST(tree, src); e != nil {
		return nil, e, true
	}
	if e := guard(func() { prg, err = goja.CompileAST(tree, true) }); e != nil {
		return nil, e, true
	}
	if err != nil {
		return nil, &Error{Code: CodeSyntaxError, Message: strings.TrimPrefix(err.Error(), "SyntaxError: ")}, true
	}
	return prg, nil, true
}

// guard runs a parser or compiler and turns a panic into a syntax_error: no
// input may crash the host.
func guard(f func()) (e *Error) {
	defer func() {
		if p := recover(); p != nil {
			e = &Error{Code: CodeSyntaxError, Message: fmt.Sprintf("the code could not be compiled: %v", p)}
		}
	}()
	f()
	return nil
}

// position maps a line and column (1-based) of the compiled code to the code
// as sent.
func (s *Script) position(line, col int) (int, int) {
	if line <= 0 {
		return 0, 0
	}
	if s.smap != nil {
		_, _, l, c, ok := s.smap.Source(line, col-1)
		if !ok {
			return 0, 0
		}
		line, col = l, c+1
	}
	return s.src.fromWrapped(line, col)
}

// sourceText is the code as sent, for mapping positions back into it.
// Its lines end at \n, as an error's Line counts them (and precheck's);
// goja and esbuild end a line at \r and U+2028/U+2029 too.
type sourceText struct {
	lines []string
	// wrapped is the code as parsed, and jsStarts the byte offsets of its
	// lines as the parsers count them, when the code has a \r, U+2028 or
	// U+2029 (nil otherwise: the two counts agree).
	wrapped  string
	jsStarts []int
}

func newSourceText(code string) *sourceText {
	s := &sourceText{lines: strings.Split(code, "\n")}
	if strings.ContainsAny(code, "\r\u2028\u2029") {
		s.wrapped = wrapPrefix + code + wrapSuffix
		s.jsStarts = []int{0}
		for i, r := range s.wrapped {
			switch {
			case r == '\r' && strings.HasPrefix(s.wrapped[i+1:], "\n"): // one line end, at the \n
			case r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029':
				s.jsStarts = append(s.jsStarts, i+utf8.RuneLen(r))
			}
		}
	}
	return s
}

// jsPosition is the line and column of byte offset off in src, its lines
// counted as the parsers count them (ending at \n, \r\n, \r, U+2028 or
// U+2029), as fromWrapped takes them.
func jsPosition(src string, off int) (line, col int) {
	line, lineAt := 1, 0
	for i, r := range src[:off] {
		switch {
		case r == '\r' && strings.HasPrefix(src[i+1:], "\n"):
		case r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029':
			line, lineAt = line+1, i+utf8.RuneLen(r)
		}
	}
	return line, utf8.RuneCountInString(src[lineAt:off]) + 1
}

// fromJSLines turns a position in the wrapped code, its line counted as
// the parsers count lines, into one whose line ends only at \n.
func (s *sourceText) fromJSLines(line, col int) (int, int) {
	if s.jsStarts == nil || line < 1 || line > len(s.jsStarts) {
		return line, col
	}
	off := s.jsStarts[line-1]
	for ; col > 1 && off < len(s.wrapped); col-- {
		_, size := utf8.DecodeRuneInString(s.wrapped[off:])
		off += size
	}
	before := s.wrapped[:off]
	lineAt := strings.LastIndexByte(before, '\n') + 1
	return strings.Count(before, "\n") + 1, utf8.RuneCountInString(before[lineAt:]) + 1
}

// fromWrapped maps a position in the wrapped code, its line counted as the
// parsers count lines, to the code as sent: the prefix shifts columns of the
// first line; the suffix, and a column past its line's end, are clamped to
// the end.
func (s *sourceText) fromWrapped(line, col int) (int, int) {
	line, col = s.fromJSLines(line, col)
	if line == 1 {
		col -= utf8.RuneCountInString(wrapPrefix)
		if col < 1 {
			col = 1
		}
	}
	if line > len(s.lines) {
		last := s.lines[len(s.lines)-1]
		return len(s.lines), utf8.RuneCountInString(last) + 1
	}
	if line >= 1 {
		col = min(col, utf8.RuneCountInString(s.lines[line-1])+1)
	}
	return line, col
}

// byteToCharColumn turns a 0-based byte offset in line into a 0-based
// character offset.
func byteToCharColumn(line string, col int) int {
	if col > len(line) {
		col = len(line)
	}
	return utf8.RuneCountInString(line[:col])
}
