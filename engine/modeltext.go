package engine

import (
	"bytes"
	"encoding/json"
)

// ModelText is the compact rendering of the result for a model, as JSON
// text: success, result, truncated, logs, error and warnings — never the
// call trace, whose size no output limit bounds. Logs are "level: message"
// lines. It is what HandleToolCalls answers an execute_code call with; send
// it as the tool result's text.
func (res *ExecuteResult) ModelText() string {
	logs := make([]string, len(res.Logs))
	for i, l := range res.Logs {
		logs[i] = l.Level + ": " + l.Message
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // a model reads "->", not "-\u003e"
	_ = enc.Encode(struct {
		Success   bool            `json:"success"`
		Result    json.RawMessage `json:"result"`
		Truncated bool            `json:"truncated,omitempty"`
		Logs      []string        `json:"logs,omitempty"`
		Error     *Error          `json:"error,omitempty"`
		Warnings  []string        `json:"warnings,omitempty"`
	}{res.Success, res.Result, res.Truncated, logs, res.Error, res.Warnings})
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}
