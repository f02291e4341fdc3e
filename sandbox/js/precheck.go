package js

import (
	"fmt"
	"unicode/utf8"
)

// MaxNesting bounds how deeply code may nest. goja's parser and compiler and
// esbuild all recurse over nesting, and esbuild's cost grows with the cube of
// nested function scopes (measured: 512 nested arrow functions with typed
// parameters take 1.2 s to transform, 128 take 40 ms), so deep nesting is
// refused before any of them runs. Ordinary code nests a few tens of levels.
const MaxNesting = 128

// precheck scans code once, before any parser sees it, and refuses nesting
// deeper than MaxNesting with limit_exceeded at the place it happens.
//
// Every construct the parsers handle by recursion counts one level: brackets
// ( [ { and template substitutions ${ open a level that lasts until they
// close; arrows => and ternaries ? open one that lasts until the next , or ;
// or statement keyword at the same bracket level (or until the bracket
// closes), and so do labels (a: b: …); prefix operators (! ~ + - ++ -- typeof void delete await new
// yield) open one that lasts until their operand.
// The scan knows strings, template literals, comments and regular
// expressions, so brackets inside them do not count. It also refuses BigInt
// literals (see checkAST). It over-counts rather
// than under-counts: its only job is to stop pathological code.
func precheck(code string) *Error {
	s := scanner{code: code, line: 1, start: true}
	s.frames = append(s.frames, frame{})
	for s.i < len(code) && s.err == nil {
		s.token()
	}
	return s.err
}

type scanner struct {
	code    string
	i       int
	line    int
	lineAt  int // byte offset where the current line starts
	frames  []frame
	kinds   []byte
	depth   int
	operand bool // the last token ends an operand: a / that follows divides
	dot     bool // the last token is a dot: a keyword that follows is a property name
	start   bool // the next token may start a statement (after ; { } or a label)
	label   bool // the last token is a word that started a statement: a : that follows makes it a label
	err     *Error
}

func (s *scanner) token() {
	c := s.code[s.i]
	switch {
	case c == '\n':
		s.newline(s.i + 1)
		s.i++
		return
	case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
		s.i++
		return
	case c == '/' && s.peek(1) == '/':
		for s.i < len(s.code) && s.code[s.i] != '\n' {
			s.i++
		}
		return
	case c == '/' && s.peek(1) == '*':
		s.i += 2
		for s.i < len(s.code) && !(s.code[s.i] == '*' && s.peek(1) == '/') {
			if s.code[s.i] == '\n' {
				s.newline(s.i + 1)
			}
			s.i++
		}
		s.i += 2
		return
	case c == '\'' || c == '"':
		s.quoted(c)
		s.set(true)
		return
	case c == '`':
		s.i++
		s.template()
		return
	case c == '/' && !s.operand:
		s.regexp()
		s.set(true)
		return
	case isDigit(c) || c == '.' && isDigit(s.peek(1)):
		at := s.i
		for s.i < len(s.code) && (isWordByte(s.code[s.i]) || s.code[s.i] == '.') {
			s.i++
		}
		if s.code[s.i-1] == 'n' {
			// esbuild would turn it into a call of BigInt; refuse it here, for
			// TypeScript as for JavaScript (checkAST is the second line).
			s.err = &Error{Code: CodeSyntaxError, Message: bigIntRefused}
			s.err.Line, s.err.Column = s.position(at)
		}
		s.set(true)
		return
	case isWordByte(c) || c == '\\' || c >= utf8.RuneSelf:
		s.word()
		return
	}
	s.punct(c)
}

// punct handles one punctuator starting with c.
func (s *scanner) punct(c byte) {
	at := s.i
	s.i++
	switch c {
	case '(', '[', '{':
		s.open(c, at)
		s.set(false)
		s.start = c == '{'
		return
	case ')', ']', '}':
		if c == '}' && len(s.kinds) > 0 && s.kinds[len(s.kinds)-1] == '$' {
			s.close()
			s.template()
			return
		}
		s.close()
		s.set(true)
		s.start = c == '}'
		return
	case ',', ';':
		s.reset()
		s.set(false)
		s.start = c == ';'
		return
	case ':':
		label := s.label
		if label { // labels nest statements without brackets: a: b: c: …
			s.nest(at)
		}
		s.set(false)
		s.start = label
		return
	case '=':
		if s.peek(0) == '>' {
			s.i++
			s.nest(at)
		}
		s.set(false)
	case '?':
		switch {
		case s.peek(0) == '?':
			s.i++
		case s.peek(0) == '.' && !isDigit(s.peek(1)):
			s.i++
			s.set(false)
			s.dot = true
			return
		default:
			s.nest(at)
		}
		s.set(false)
	case '!', '~':
		if s.peek(0) != '=' {
			s.prefixed(at)
		}
		s.set(false)
	case '+', '-':
		prefix := !s.operand
		if s.peek(0) == c {
			s.i++
			if prefix {
				s.prefixed(at)
			}
			return // x++ still ends an operand; ++x opens one
		}
		if prefix {
			s.prefixed(at)
		}
		s.set(false)
	case '.':
		s.set(false)
		s.dot = true
	default:
		s.set(false)
	}
}

var (
	prefixKeywords    = map[string]bool{"typeof": true, "void": true, "delete": true, "await": true, "new": true, "yield": true}
	statementKeywords = map[string]bool{"var": true, "let": true, "const": true, "if": true, "for": true, "while": true,
		"return": true, "throw": true, "switch": true, "try": true, "break": true, "continue": true}
	// operatorKeywords are followed by an operand, so a / after them starts a
	// regular expression.
	operatorKeywords = map[string]bool{"return": true, "throw": true, "case": true, "in": true, "of": true,
		"instanceof": true, "else": true, "do": true, "extends": true}
)

func (s *scanner) word() {
	at := s.i
	for s.i < len(s.code) {
		c := s.code[s.i]
		if c == '\\' {
			s.i += 2
			continue
		}
		if !isWordByte(c) && c < utf8.RuneSelf {
			break
		}
		s.i++
	}
	if s.i > len(s.code) {
		s.i = len(s.code)
	}
	w := s.code[at:s.i]
	label := s.start && !s.dot
	defer func() { s.label = label }()
	if s.dot {
		s.set(true)
		return
	}
	switch {
	case prefixKeywords[w]:
		s.prefixed(at)
		s.set(false)
	case statementKeywords[w]:
		s.reset()
		s.set(!operatorKeywords[w])
	default:
		s.set(!operatorKeywords[w])
	}
}

// quoted skips a string literal; a newline ends an unterminated one.
func (s *scanner) quoted(q byte) {
	s.i++
	for s.i < len(s.code) {
		switch s.code[s.i] {
		case '\\':
			s.i++
			if s.i < len(s.code) && s.code[s.i] == '\n' {
				s.newline(s.i + 1)
			}
		case q:
			s.i++
			return
		case '\n':
			return
		}
		s.i++
	}
}

// template skips template text up to its closing backtick, or up to a ${,
// which opens a level like a bracket; the } that closes it resumes here.
func (s *scanner) template() {
	for s.i < len(s.code) {
		switch s.code[s.i] {
		case '\\':
			s.i++
			if s.peek(0) == '\n' {
				s.newline(s.i + 1)
			}
		case '\n':
			s.newline(s.i + 1)
		case '`':
			s.i++
			s.set(true)
			return
		case '$':
			if s.peek(1) == '{' {
				s.open('$', s.i)
				s.i += 2
				s.set(false)
				return
			}
		}
		s.i++
	}
}

// regexp skips a regular expression literal: up to an unescaped / outside a
// character class, or the end of the line.
func (s *scanner) regexp() {
	s.i++
	class := false
	for s.i < len(s.code) {
		switch s.code[s.i] {
		case '\\':
			s.i++
		case '[':
			class = true
		case ']':
			class = false
		case '\n':
			return
		case '/':
			if !class {
				s.i++
				for s.i < len(s.code) && isWordByte(s.code[s.i]) {
					s.i++
				}
				return
			}
		}
		s.i++
	}
}

func (s *scanner) open(kind byte, at int) {
	s.frames = append(s.frames, frame{})
	s.kinds = append(s.kinds, kind)
	s.depth++
	s.check(at)
}

// close ends the innermost bracket and every level opened inside it. An
// unbalanced closer is left for the parser to report.
func (s *scanner) close() {
	if len(s.kinds) == 0 {
		return
	}
	s.reset()
	s.frames = s.frames[:len(s.frames)-1]
	s.kinds = s.kinds[:len(s.kinds)-1]
	s.depth--
}

// frame is an open bracket (or the top level) and the levels opened inside
// it by operators.
type frame struct {
	ops    int // arrows and ternaries since the last , ; or statement keyword
	prefix int // prefix operators still waiting for their operand
}

// nest opens a level that lasts until the next , ; or statement keyword.
func (s *scanner) nest(at int) {
	s.frames[len(s.frames)-1].ops++
	s.depth++
	s.check(at)
}

// prefixed opens a level that lasts until the operand it applies to.
func (s *scanner) prefixed(at int) {
	s.frames[len(s.frames)-1].prefix++
	s.depth++
	s.check(at)
}

func (s *scanner) reset() {
	top := &s.frames[len(s.frames)-1]
	s.depth -= top.ops + top.prefix
	top.ops, top.prefix = 0, 0
}

func (s *scanner) check(at int) {
	if s.depth <= MaxNesting || s.err != nil {
		return
	}
	line, col := s.position(at)
	s.err = &Error{Code: CodeLimitExceeded, Line: line, Column: col,
		Message: fmt.Sprintf("the code nests more than %d levels deep (brackets, template substitutions, arrow functions, ternaries, labels and prefix operators each count one)", MaxNesting)}
}

// position is the line and column (in characters) of byte at, which is on
// the current line.
func (s *scanner) position(at int) (int, int) {
	return s.line, utf8.RuneCountInString(s.code[s.lineAt:at]) + 1
}

func (s *scanner) set(operand bool) {
	s.start, s.label = false, false
	if operand {
		top := &s.frames[len(s.frames)-1]
		s.depth -= top.prefix
		top.prefix = 0
	}
	s.operand = operand
	s.dot = false
}

func (s *scanner) newline(next int) {
	s.line++
	s.lineAt = next
}

func (s *scanner) peek(k int) byte {
	if s.i+k < len(s.code) {
		return s.code[s.i+k]
	}
	return 0
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || isDigit(c) || c == '_' || c == '$'
}
