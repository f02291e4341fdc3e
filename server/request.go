package server

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"io"
	"mime"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/codemode-dev/codemode/internal/strictjson"
)

// bodyReadTimeout bounds reading a request's body, from the start of the
// request (ServeHTTP), so that a client that sends its headers and then
// trickles (or stops) cannot hold a handler or its connection. A variable so
// that tests can shorten it.
var bodyReadTimeout = 30 * time.Second

// readJSONBody checks a POST's Content-Type and reads its body, at most
// maxBody bytes. Only application/json is accepted, also for an empty body:
// a browser page of another site can send a form or text/plain without
// asking (no CORS preflight), but not JSON, so this is what keeps other
// sites from driving a loopback server. An empty body reads as {}.
func (s *Server) readJSONBody(w http.ResponseWriter, r *http.Request) ([]byte, *httpError) {
	ct := r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if ct == "" || err != nil || mt != "application/json" {
		got := "none"
		if ct != "" {
			got = strictjson.Quote(ct)
		}
		return nil, badRequest("Content-Type must be application/json (got %s), also for an empty body", got)
	}
	if r.ContentLength > s.maxBody {
		return nil, tooLarge(s.maxBody)
	}
	// ServeHTTP set the read deadline (bodyReadTimeout). It stays after a
	// failed read, so that what net/http reads of the rest is bounded too;
	// after a whole body it goes, so that it never ends a long run.
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.maxBody))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return nil, tooLarge(s.maxBody)
	case errors.Is(err, os.ErrDeadlineExceeded):
		return nil, badRequest("the request body did not come within %v", bodyReadTimeout)
	case err != nil:
		return nil, badRequest("reading the request body: %v", err)
	}
	http.NewResponseController(w).SetReadDeadline(time.Time{}) // not every ResponseWriter can
	switch strings.TrimSpace(string(data)) {
	case "":
		data = []byte("{}")
	case "null":
		// Read as {} by the decoders, which would take it for an empty
		// request; every body here is an object.
		return nil, badRequest("want an object, got null")
	}
	return data, nil
}

func tooLarge(limit int64) *httpError {
	return newHTTPError(http.StatusRequestEntityTooLarge, "limit_exceeded", "the request body is larger than this server's limit of %d bytes", limit)
}

// authorize checks that r carries the server's token, if it has one: nil
// when it does, else a 401 saying whether the token is missing or wrong.
// The token is compared in constant time, through fixed-length digests, so
// that neither its bytes nor its length leak through timing; telling a
// wrong token from none tells nothing about the token.
func (s *Server) authorize(r *http.Request) *httpError {
	if s.token == "" {
		return nil
	}
	scheme, got, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	got = strings.TrimSpace(got)
	if !ok || !strings.EqualFold(scheme, "Bearer") || got == "" {
		return unauthorized(`this server needs a token: send "Authorization: Bearer TOKEN"`, "")
	}
	a, b := sha256.Sum256([]byte(got)), sha256.Sum256([]byte(s.token))
	if subtle.ConstantTimeCompare(a[:], b[:]) != 1 {
		return unauthorized(`the token does not match this server's: send "Authorization: Bearer TOKEN" with the token the server was started with`, "invalid_token")
	}
	return nil
}

// unauthorized is a 401 with WWW-Authenticate (RFC 6750: error names what
// was wrong with a token that was sent).
func unauthorized(message, errorCode string) *httpError {
	e := newHTTPError(http.StatusUnauthorized, "bad_request", "%s", message)
	challenge := `Bearer realm="codemode"`
	if errorCode != "" {
		challenge += `, error="` + errorCode + `"`
	}
	e.header = http.Header{"Www-Authenticate": {challenge}}
	return e
}

// exposed are the response headers a cross-origin page may read.
const exposed = "Codemode-Run-Id, Codemode-Board-Version, Codemode-Board-Committed, Location, Retry-After"

// cors adds the CORS headers for an allowed origin and reports whether r
// is a preflight it has answered. Origins not listed get no CORS header, so
// their pages cannot read any answer.
//
// With origins allowed, every answer says "Vary: Origin", also one without
// CORS headers: a cache between must not give an answer made for one
// origin (or for none) to a request from another.
func (s *Server) cors(w http.ResponseWriter, r *http.Request, allow []string) bool {
	if len(s.origins) == 0 {
		return false
	}
	h := w.Header()
	h.Add("Vary", "Origin")
	origin := r.Header.Get("Origin")
	if origin == "" || !s.origins[origin] {
		return false
	}
	h.Set("Access-Control-Allow-Origin", origin)
	if len(allow) == 0 || r.Method != http.MethodOptions || r.Header.Get("Access-Control-Request-Method") == "" {
		h.Set("Access-Control-Expose-Headers", exposed)
		return false
	}
	h.Set("Access-Control-Allow-Methods", strings.Join(allow, ", "))
	h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Last-Event-ID")
	h.Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
	return true
}

// validBoardID reports whether id is a board id: 1 to 64 of A-Z a-z 0-9 _ -.
func validBoardID(id string) bool {
	if len(id) == 0 || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// wantsStream reports whether the client asked for server-sent events.
func wantsStream(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept") {
		for part := range strings.SplitSeq(v, ",") {
			mt, _, _ := mime.ParseMediaType(strings.TrimSpace(part))
			if mt == "text/event-stream" {
				return true
			}
		}
	}
	return false
}
