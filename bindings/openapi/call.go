package openapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/internal/strictjson"
)

// caller makes a document's HTTP calls.
type caller struct {
	client   *http.Client
	base     *url.URL
	headers  http.Header
	secrets  []string // the credentials among the headers, in every form hide replaces
	longest  int      // the bytes of the longest of secrets
	maxBytes int64
	timeout  time.Duration
}

func newCaller(spec *Spec, opts Options) (*caller, error) {
	base, err := baseURL(spec, opts)
	if err != nil {
		return nil, err
	}
	c := &caller{base: base, headers: http.Header{}, maxBytes: opts.MaxResponseBytes, timeout: opts.Timeout}
	client := http.Client{}
	if opts.Client != nil {
		client = *opts.Client // a copy, for its CheckRedirect
	}
	if client.CheckRedirect == nil {
		client.CheckRedirect = sameHost(base)
	}
	c.client = &client
	if c.maxBytes <= 0 {
		c.maxBytes = DefaultMaxResponseBytes
	}
	for k, v := range opts.Headers {
		c.headers.Set(k, v)
		if sensitiveHeader(k) {
			c.addSecret(v, minSecret)
		}
	}
	for _, v := range opts.Secrets {
		c.addSecret(v, 1) // a secret by its origin: hidden whatever its length (Bind refuses one under MinEnvChars)
	}
	return c, nil
}

// minSecret is the shortest value of a credential's header, or its
// "Bearer TOKEN" token, hidden: a shorter one would hide common words of a
// response ("true", a date) and break it. Options.Secrets are hidden
// whatever their length: they were named as secrets.
const minSecret = 8

// sensitiveHeader reports whether a header's value is a credential by its
// name (Authorization, Cookie, X-Api-Key, X-Auth-Token, …): those values
// are hidden, besides Options.Secrets; an X-GitHub-Api-Version is not.
func sensitiveHeader(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"authorization", "cookie", "key", "token", "secret", "auth", "password", "signature", "session"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// addSecret adds v, the token of "Bearer TOKEN", and the forms a response
// may quote them in (JSON's \u003c and \/ escapes, URL escaping) to what
// hide replaces, those of at least min bytes.
func (c *caller) addSecret(v string, min int) {
	vals := []string{v}
	if _, token, ok := strings.Cut(v, " "); ok {
		vals = append(vals, token)
	}
	for _, s := range vals {
		if len(s) < min {
			continue
		}
		quoted, _ := json.Marshal(s)
		for _, form := range []string{s, string(quoted[1 : len(quoted)-1]), strings.ReplaceAll(s, "/", `\/`), url.QueryEscape(s), url.PathEscape(s)} {
			if !slices.Contains(c.secrets, form) {
				c.secrets = append(c.secrets, form)
				c.longest = max(c.longest, len(form))
			}
		}
	}
	// The longest first, so that a value is hidden whole, not around a
	// shorter one it holds.
	slices.SortFunc(c.secrets, func(a, b string) int { return len(b) - len(a) })
}

// sameHost follows a redirect only within the API's scheme and host: Go's
// client drops Authorization on a redirect elsewhere, but not an
// X-Api-Key, which an API (or whoever answers for it) could otherwise send
// to a host of its choosing.
func sameHost(base *url.URL) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if req.URL.Scheme != base.Scheme || req.URL.Host != base.Host {
			return fmt.Errorf("redirected to another host (%s), which is not followed: the API's headers go to %s only", req.URL.Host, base.Host)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
}

// maxErrorBody bounds the body an HTTP error's message quotes, in
// characters; maxErrorRead bounds what is read of an error's body to
// quote it (its first 1,000 characters are at most 4,000 bytes, with
// room for a secret across the cut): an 8 MiB 500 page is not read whole
// to quote its start.
const (
	maxErrorBody = 1000
	maxErrorRead = 64 << 10
)

// handler is an operation's tool handler: the call's arguments made an
// HTTP request, its response the result.
func (c *caller) handler(op *Operation, plan argPlan) engine.Handler {
	return func(ctx context.Context, raw json.RawMessage) (json.RawMessage, error) {
		var args map[string]json.RawMessage
		if len(raw) > 0 {
			if err := json.Unmarshal(raw, &args); err != nil {
				return nil, engine.Errorf(engine.CodeInvalidArgs, "arguments: %v", err)
			}
		}
		callCtx := ctx
		if c.timeout > 0 {
			var cancel context.CancelFunc
			callCtx, cancel = context.WithTimeout(ctx, c.timeout)
			defer cancel()
		}
		req, err := c.request(callCtx, op, plan, args)
		if err != nil {
			return nil, err
		}
		res, err := c.do(req)
		if err != nil && ctx.Err() == nil && callCtx.Err() != nil {
			return nil, engine.Errorf(engine.CodeTimeout, "%s %s: no answer within %v, the API's timeout", req.Method, req.URL.Path, c.timeout)
		}
		return res, err
	}
}

// request builds the HTTP request of a call.
func (c *caller) request(ctx context.Context, op *Operation, plan argPlan, args map[string]json.RawMessage) (*http.Request, error) {
	pathArgs := map[string]string{}
	query := c.base.Query() // a baseUrl's own ?api-version=… stays
	if query == nil {
		query = url.Values{}
	}
	headers := http.Header{}
	var cookies []string
	var body map[string]json.RawMessage
	var bodyRaw json.RawMessage
	for _, key := range slices.Sorted(maps.Keys(args)) { // in order, for a request that is the same each time
		v := args[key]
		p, isParam := plan.params[key]
		switch {
		case isParam && p.In == "path":
			s, err := text(v, p.JSON)
			if err != nil {
				return nil, engine.Errorf(engine.CodeInvalidArgs, "%s: %v", key, err)
			}
			if s == "" { // DELETE /items/ is not DELETE /items/{id}
				return nil, engine.Errorf(engine.CodeInvalidArgs, "%s: a path argument cannot be empty", key)
			}
			pathArgs[p.Name] = pathSegment(s)
		case isParam && p.In == "query":
			if err := addQuery(query, p, v); err != nil {
				return nil, engine.Errorf(engine.CodeInvalidArgs, "%s: %v", key, err)
			}
		case isParam:
			s, err := text(v, p.JSON)
			if err != nil {
				return nil, engine.Errorf(engine.CodeInvalidArgs, "%s: %v", key, err)
			}
			if p.In == "header" {
				headers.Set(p.Name, s)
			} else {
				cookies = append(cookies, p.Name+"="+url.QueryEscape(s))
			}
		case key == plan.body && plan.body != "":
			bodyRaw = v
		case plan.flat:
			if body == nil {
				body = map[string]json.RawMessage{}
			}
			body[key] = v
		}
	}
	// The path escaped: the template's text and each argument escaped
	// within its segment, so that an issue title's "/" stays in it.
	path := fillPath(op.Path, pathArgs)
	u := *c.base
	unescaped, err := url.PathUnescape(path)
	if err != nil {
		return nil, engine.Errorf(engine.CodeInvalidArgs, "%s %s: %v", op.Method, op.Path, err)
	}
	u.Path = strings.TrimSuffix(c.base.Path, "/") + unescaped
	u.RawPath = strings.TrimSuffix(c.base.EscapedPath(), "/") + path
	u.RawQuery = query.Encode()
	if body == nil && bodyRaw == nil && plan.flat && op.Body.Required {
		// A required body whose members are all optional, none given
		// (GitHub's repos/update-webhook with only owner, repo and
		// hook_id): the API wants a body still, and an empty object is
		// what the arguments say.
		body = map[string]json.RawMessage{}
	}
	var rd io.Reader
	contentType := ""
	switch {
	case body != nil:
		b, err := json.Marshal(body)
		if err != nil {
			return nil, engine.Errorf(engine.CodeInvalidArgs, "body: %v", err)
		}
		rd, contentType = bytes.NewReader(b), op.Body.MediaType
	case bodyRaw != nil && op.Body.JSON():
		rd, contentType = bytes.NewReader(bodyRaw), op.Body.MediaType
	case bodyRaw != nil:
		var s string
		if err := json.Unmarshal(bodyRaw, &s); err != nil {
			return nil, engine.Errorf(engine.CodeInvalidArgs, "%s: want a string", plan.body)
		}
		rd, contentType = strings.NewReader(s), op.Body.MediaType
	}
	if contentType == "*/*" { // the document takes anything; JSON is what is sent
		contentType = "application/json"
	}
	req, err := http.NewRequestWithContext(ctx, op.Method, u.String(), rd)
	if err != nil {
		return nil, engine.Errorf(engine.CodeInvalidArgs, "%s %s: %v", op.Method, path, err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "codemode")
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	// The model's header arguments, then the configured headers, which
	// win: a model cannot replace the credentials it was given.
	for k, v := range headers {
		req.Header[k] = v
	}
	for k, v := range c.headers {
		req.Header[k] = v
	}
	if len(cookies) > 0 {
		if own := req.Header.Get("Cookie"); own != "" {
			cookies = append([]string{own}, cookies...)
		}
		req.Header.Set("Cookie", strings.Join(cookies, "; "))
	}
	return req, nil
}

// fillPath is a path template's escaped form with the arguments (escaped
// already) in their places; a placeholder without one stays, escaped.
func fillPath(template string, args map[string]string) string {
	var b strings.Builder
	last := 0
	for _, m := range pathParam.FindAllStringSubmatchIndex(template, -1) {
		b.WriteString(escapeLiteral(template[last:m[0]]))
		if v, ok := args[template[m[2]:m[3]]]; ok {
			b.WriteString(v)
		} else {
			b.WriteString(escapeLiteral(template[m[0]:m[1]]))
		}
		last = m[1]
	}
	b.WriteString(escapeLiteral(template[last:]))
	return b.String()
}

// escapeLiteral escapes a template's own text segment by segment, keeping
// its slashes ("/café/" → "/caf%C3%A9/"): with an unescaped character in
// it, Go would drop the escaped path and escape the decoded one, letting
// an argument's "%2F.." become "/..".
func escapeLiteral(s string) string {
	parts := strings.Split(s, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return strings.Join(parts, "/")
}

// pathSegment is an argument escaped as one path segment: "/" and the
// like escaped, and "." or ".." too, which a server would otherwise take
// as a step up the path (out of the API's base path).
func pathSegment(s string) string {
	if s == "." || s == ".." {
		return strings.Repeat("%2E", len(s))
	}
	return url.PathEscape(s)
}

// do sends a call's request and makes its result: the response's JSON, a
// text response as a JSON string, nothing as null; a status that is not
// 2xx is the call's tool_error, with the status and the body's start.
func (c *caller) do(req *http.Request) (json.RawMessage, error) {
	what := req.Method + " " + req.URL.Path
	resp, err := c.client.Do(req)
	if err != nil {
		if ctxErr := req.Context().Err(); ctxErr != nil {
			return nil, ctxErr
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // its URL may carry credentials; the call names the path
		}
		return nil, engine.Errorf(engine.CodeToolError, "%s: %s", what, c.hide(err.Error()))
	}
	defer resp.Body.Close()
	failed := resp.StatusCode < 200 || resp.StatusCode > 299
	limit := c.maxBytes
	if failed {
		limit = maxErrorRead
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		if ctxErr := req.Context().Err(); ctxErr != nil {
			return nil, ctxErr
		}
		return nil, engine.Errorf(engine.CodeToolError, "%s: reading the response: %s", what, c.hide(err.Error()))
	}
	if failed {
		cut := int64(len(data)) > limit
		if cut {
			data = data[:limit]
		}
		return nil, engine.Errorf(engine.CodeToolError, "%s: HTTP %s%s", what, resp.Status, c.quoteBody(data, cut))
	}
	if int64(len(data)) > c.maxBytes {
		return nil, engine.Errorf(engine.CodeToolError, "%s: the response is over %d bytes, the most a call returns: ask for less (a page size, a filter)", what, c.maxBytes)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return json.RawMessage("null"), nil
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if isJSON(mt) || mt == "" {
		if json.Valid(data) {
			// JSON's strings must be UTF-8, which json.Valid does not
			// check, and a model's API refuses.
			return json.RawMessage(c.hide(string(bytes.ToValidUTF8(data, []byte("\uFFFD"))))), nil
		}
		if isJSON(mt) {
			return nil, engine.Errorf(engine.CodeToolError, "%s: the response says it is JSON but is not%s", what, c.quoteBody(data, false))
		}
	}
	if !utf8.Valid(data) {
		return nil, engine.Errorf(engine.CodeToolError, "%s: the response is %d bytes of %s, not text; it is not returned", what, len(data), mt)
	}
	return json.Marshal(c.hide(string(data)))
}

// quoteBody is ": BODY" for an error's message, its first maxErrorBody
// characters with the secrets hidden, or "" for an empty body; cut says
// the body went on past data. Only the start is hidden and quoted: data
// is cut first, at maxErrorBody characters and the longest secret's
// length (so that one across the cut is hidden whole), so that quoting
// costs the same whatever the body's size.
func (c *caller) quoteBody(data []byte, cut bool) string {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return ""
	}
	if cut {
		data = dropPartialRune(data)
	}
	head := data
	for i, k := 0, 0; i < len(data); k++ {
		if k == maxErrorBody+c.longest {
			head = data[:i]
			break
		}
		_, size := utf8.DecodeRune(data[i:])
		i += size
	}
	if !utf8.Valid(head) {
		if cut {
			return fmt.Sprintf(": (over %d bytes, not text)", len(data))
		}
		return fmt.Sprintf(": (%d bytes, not text)", len(data))
	}
	s := c.hide(string(head))
	quoted := strictjson.Clip(s, maxErrorBody)
	if quoted == s && (len(head) < len(data) || cut) {
		quoted += "…" // hiding shortened the head, which is not the whole body
	}
	if cut {
		quoted += fmt.Sprintf(" (the body is over %d KiB; only its start was read)", maxErrorRead>>10)
	}
	return ": " + quoted
}

// dropPartialRune is b without the start of a character that a cut left
// at its end.
func dropPartialRune(b []byte) []byte {
	for n := 1; n < utf8.UTFMax && n <= len(b); n++ {
		if utf8.RuneStart(b[len(b)-n]) {
			if !utf8.FullRune(b[len(b)-n:]) {
				return b[:len(b)-n]
			}
			break
		}
	}
	return b
}

// hide replaces every configured header value in s (an API that echoes
// the request, an error that quotes it) with "[hidden]".
func (c *caller) hide(s string) string {
	for _, secret := range c.secrets {
		s = strings.ReplaceAll(s, secret, "[hidden]")
	}
	return s
}

// text is a parameter's value as the text a URL or header carries: a
// string as it is, a number or boolean as written, a list's items joined
// by commas, an object (or a content parameter) as JSON.
func text(v json.RawMessage, asJSON bool) (string, error) {
	if asJSON {
		return string(v), nil
	}
	var x any
	d := json.NewDecoder(bytes.NewReader(v))
	d.UseNumber()
	if err := d.Decode(&x); err != nil {
		return "", err
	}
	switch x := x.(type) {
	case string:
		return x, nil
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			b, _ := json.Marshal(e)
			parts[i] = scalar(e, b)
		}
		return strings.Join(parts, ","), nil
	case nil:
		return "", nil
	default:
		b, _ := json.Marshal(x)
		return scalar(x, b), nil
	}
}

// scalar is a decoded JSON value as URL text: a string unquoted, anything
// else its JSON.
func scalar(v any, b []byte) string {
	if s, ok := v.(string); ok {
		return s
	}
	return string(b)
}

// addQuery adds a query parameter's value: a list repeated when the
// parameter explodes (form style's default), else joined by commas.
func addQuery(q url.Values, p *Param, v json.RawMessage) error {
	if bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
		return nil // a null for an optional parameter: left out
	}
	var list []json.RawMessage
	if !p.JSON && p.Explode && json.Unmarshal(v, &list) == nil {
		for _, e := range list {
			s, err := text(e, false)
			if err != nil {
				return err
			}
			q.Add(p.Name, s)
		}
		return nil
	}
	s, err := text(v, p.JSON)
	if err != nil {
		return err
	}
	q.Set(p.Name, s)
	return nil
}
