package guest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
)

// MaxArgs bounds the arguments read from stdin, so that a huge input fails
// with a message instead of exhausting the module's memory.
const MaxArgs = 16 << 20

// Handler runs one tool call: args is the raw JSON the host wrote to stdin;
// result is encoded as JSON to stdout. A non-nil error fails the call with
// its message.
type Handler func(args []byte) (result any, err error)

// Typed adapts f to a Handler that decodes the arguments strictly (unknown
// fields, trailing data and a top-level null are errors) before calling it.
// Decoding errors read "invalid arguments: ..." and name the field.
func Typed[In, Out any](f func(In) (Out, error)) Handler {
	return func(args []byte) (any, error) {
		var in In
		if err := decode(args, &in); err != nil {
			return nil, fmt.Errorf("invalid arguments: %w", err)
		}
		return f(in)
	}
}

// Main runs h on stdin and stdout and exits with status 1 if the call
// failed. Call it from main in a command build.
func Main(h Handler) {
	if code := run(h, os.Stdin, os.Stdout, os.Stderr); code != 0 {
		os.Exit(code)
	}
}

// Call runs h like Main but returns the status instead of exiting, for the
// function a reactor exports as codemode_call. It keeps no state between
// calls: each reads stdin to its end afresh.
func Call(h Handler) int32 {
	return int32(run(h, os.Stdin, os.Stdout, os.Stderr))
}

// run is Main and Call with injectable I/O. It returns 0 on success, 1 when
// the call failed and 2 when the handler panicked: a pooled instance must
// survive a buggy handler, so a panic is reported, not propagated.
func run(h Handler, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			report(stderr, fmt.Errorf("internal error: %v", r))
			code = 2
		}
	}()
	args, err := io.ReadAll(io.LimitReader(stdin, MaxArgs+1))
	if err != nil {
		report(stderr, fmt.Errorf("reading arguments: %w", err))
		return 1
	}
	if len(args) > MaxArgs {
		report(stderr, fmt.Errorf("arguments larger than %d MiB", MaxArgs>>20))
		return 1
	}
	res, err := h(args)
	if err != nil {
		report(stderr, err)
		return 1
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf) // Encode ends the value with a newline
	enc.SetEscapeHTML(false)
	if err := enc.Encode(res); err != nil {
		report(stderr, fmt.Errorf("internal error: encoding the result: %w", err))
		return 2
	}
	if _, err := stdout.Write(buf.Bytes()); err != nil {
		report(stderr, fmt.Errorf("writing the result: %w", err))
		return 1
	}
	return 0
}

// report writes err's message as one line: the host shows it to the caller.
func report(w io.Writer, err error) {
	msg := strings.Join(strings.Fields(err.Error()), " ")
	if msg == "" {
		msg = "tool failed"
	}
	io.WriteString(w, msg+"\n")
}

// decode unmarshals one JSON value into v, rejecting unknown fields,
// trailing data and a top-level null (which would silently leave v zero).
func decode(data []byte, v any) error {
	trimmed := bytes.TrimSpace(data)
	switch {
	case len(trimmed) == 0:
		return errors.New("no input, want a JSON object")
	case string(trimmed) == "null":
		return errors.New("got null, want a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return describe(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

// describe rewords encoding/json errors in JSON terms: the field's path and
// JSON types rather than Go type names.
func describe(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		where := te.Field
		if where == "" {
			where = "the arguments"
		}
		return fmt.Errorf("%s: got %s, want %s", where, te.Value, jsonType(te.Type))
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("truncated JSON")
	}
	return errors.New(strings.TrimPrefix(err.Error(), "json: "))
}

// jsonType names the JSON type that decodes into t.
func jsonType(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool:
		return "boolean"
	case reflect.String:
		return "string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Struct, reflect.Map:
		return "object"
	}
	return t.String()
}
