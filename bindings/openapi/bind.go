package openapi

import (
	"fmt"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/internal/strictjson"
)

// DefaultTimeout bounds one call when the configuration does not.
const DefaultTimeout = 30 * time.Second

// BindOptions are a host's choices about its APIs that are not part of
// their configuration.
type BindOptions struct {
	// LookupEnv finds the environment variables headers name as ${NAME};
	// nil uses os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// Client makes the calls; nil uses a client of its own.
	Client *http.Client
}

// MinEnvChars is the shortest value a header may take from the
// environment. Such a value is a secret, hidden from every result and
// error whatever its length (see Options.Secrets); one of a character or
// three would be hidden wherever it occurs ("1", "id", "the"), garbling
// every answer, and is no secret besides. A short value that is no
// secret (an API version) belongs in the config file, written as is.
const MinEnvChars = 4

// envProblem is what is wrong with a header's value from the environment
// (after "the environment variable NAME"), or "": checked at Bind, so that
// a stray newline is one error naming the variable, not every call's
// "invalid header field value".
func envProblem(val string) string {
	if n := utf8.RuneCountInString(val); n < MinEnvChars {
		return fmt.Sprintf("is %d characters: a value from the environment is hidden from every answer as a secret, and one under %d would garble them (write a value that is no secret in the file)", n, MinEnvChars)
	}
	if strings.ContainsFunc(val, func(r rune) bool { return r != '\t' && (r < ' ' || r == 0x7f) }) {
		return "holds a line break or another control character: a header value is one line"
	}
	return ""
}

// Bind makes the tools of the config file's API entry name: its document
// loaded, its headers' ${NAME}s expanded from the environment in one
// pass (a variable that is not set, or whose value could not be sent or
// hidden, is an error naming it, never showing a value).
func Bind(name string, cfg engine.OpenAPI, opts BindOptions) ([]engine.Tool, error) {
	if err := cfg.Check(name); err != nil {
		return nil, err
	}
	lookup := opts.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	at := strictjson.Member("openapi", name)
	headers := make(map[string]string, len(cfg.Headers))
	var secrets []string // what came from the environment is hidden, whatever the header
	var problems strictjson.Problems
	for _, h := range slices.Sorted(maps.Keys(cfg.Headers)) {
		hat := strictjson.Member(strictjson.Member(at, "headers"), h)
		used := map[string]string{}
		v, unset := engine.ExpandEnv(cfg.Headers[h], func(env string) (string, bool) {
			val, ok := lookup(env)
			if ok {
				used[env] = val
			}
			return val, ok
		})
		for _, env := range slices.Sorted(maps.Keys(used)) {
			if problem := envProblem(used[env]); problem != "" {
				problems.Addf(hat, "the environment variable %s %s", env, problem)
			}
			secrets = append(secrets, used[env])
		}
		for _, env := range unset {
			problems.Addf(hat, "the environment variable %s is not set", env)
		}
		headers[h] = v
	}
	if err := problems.Err(); err != nil {
		return nil, engine.WrapError(engine.CodeBadRequest, err)
	}
	spec, err := Load(cfg.Spec)
	if err != nil {
		return nil, engine.Errorf(engine.CodeBadRequest, "%s: %s", at, engine.AsError(err, engine.CodeBadRequest).Message)
	}
	timeout := cfg.Timeout.D()
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	tools, err := Tools(name, spec, Options{BaseURL: cfg.BaseURL, Headers: headers, Secrets: secrets, Client: opts.Client,
		MaxResponseBytes: cfg.MaxResponseBytes, Timeout: timeout, Origin: "OpenAPI " + strictjson.Quote(name)})
	if err != nil {
		return nil, engine.Errorf(engine.CodeBadRequest, "%s: %s", at, engine.AsError(err, engine.CodeBadRequest).Message)
	}
	return tools, nil
}
