// Package openapi turns an OpenAPI 3.x description of an HTTP API into
// codemode tools: one tool per operation, named NAMESPACE.operationId, whose
// input schema gathers the operation's path, query and header parameters
// and its JSON request body, and whose call is an HTTP request to the API.
//
// It is how a Go server offers its own HTTP API to a model, and how the
// CLI binds the config file's "openapi" entries. A catalog of a thousand
// operations is the case it is built for: the document is read once,
// every component schema is converted once and shared by the operations
// that use it, and the engine's search_tools finds the few a task needs.
//
// What a model sees follows the document: the operation's summary and
// description, JSON Schema converted from OpenAPI 3.0's dialect (nullable,
// boolean exclusiveMinimum) or taken as is from 3.1, $refs to component
// schemas kept as $defs (so a recursive schema stays finite), read-only for
// GET and HEAD (the default approval policy asks for the others). See
// docs/openapi.md.
package openapi
