package openapi

import (
	"net/http"
	"os"
	"strings"
	"time"

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

// Bind makes the tools of the config file's API entry name: its document
// loaded, its headers' ${NAME}s expanded from the environment (a variable
// that is not set is an error naming it, never showing a value).
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
	var missing strictjson.Problems
	for h, v := range cfg.Headers {
		for _, env := range engine.EnvNames(v) {
			val, ok := lookup(env)
			if !ok {
				missing.Addf(strictjson.Member(strictjson.Member(at, "headers"), h), "the environment variable %s is not set", env)
				continue
			}
			v = strings.ReplaceAll(v, "${"+env+"}", val)
			secrets = append(secrets, val)
		}
		headers[h] = v
	}
	if err := missing.Err(); err != nil {
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
