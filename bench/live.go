package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/codemode-dev/codemode/engine"
)

// OpenAIOptions says where a live model is: any endpoint that speaks
// OpenAI's Chat Completions API with tools (OpenAI, and the many servers and
// gateways compatible with it).
type OpenAIOptions struct {
	// BaseURL is the API's base, e.g. https://api.openai.com/v1; requests
	// go to BaseURL + "/chat/completions".
	BaseURL string
	// Model is the model's name, sent as "model".
	Model string
	// APIKey, if set, is sent as "Authorization: Bearer APIKEY".
	APIKey string
	// Client sends the requests; nil means one with a 5-minute timeout
	// per turn.
	Client *http.Client
}

// NewOpenAIModel is a Model that asks a live model each turn. The
// provider's reported usage is the turn's token counts, and its measured
// latency the turn's wall time. It is safe for concurrent use: it keeps no
// state between turns (the whole chat is in each request).
func NewOpenAIModel(o OpenAIOptions) (Model, error) {
	if o.BaseURL == "" || o.Model == "" {
		return nil, errors.New("bench: a live model needs a base URL and a model name")
	}
	if !strings.HasPrefix(o.BaseURL, "http://") && !strings.HasPrefix(o.BaseURL, "https://") {
		return nil, fmt.Errorf("bench: base URL %q: want http:// or https://", o.BaseURL)
	}
	if o.Client == nil {
		o.Client = &http.Client{Timeout: 5 * time.Minute}
	}
	return &openAIModel{o: o, url: strings.TrimSuffix(o.BaseURL, "/") + "/chat/completions"}, nil
}

type openAIModel struct {
	o   OpenAIOptions
	url string
}

// chatRequest is the body of a Chat Completions request.
type chatRequest struct {
	Model      string              `json:"model"`
	Messages   []Message           `json:"messages"`
	Tools      []engine.OpenAITool `json:"tools,omitempty"`
	ToolChoice string              `json:"tool_choice,omitempty"`
}

// chatResponse is the part of a Chat Completions answer a turn needs.
type chatResponse struct {
	Choices []struct {
		Message struct {
			Content   *string    `json:"content"`
			ToolCalls []ToolCall `json:"tool_calls"`
		} `json:"message"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

func (m *openAIModel) Complete(ctx context.Context, req Request) (Reply, error) {
	body, err := json.Marshal(chatRequest{Model: m.o.Model, Messages: req.Messages, Tools: req.Tools, ToolChoice: "auto"})
	if err != nil {
		return Reply{}, err
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, m.url, bytes.NewReader(body))
	if err != nil {
		return Reply{}, err
	}
	hreq.Header.Set("Content-Type", "application/json")
	if m.o.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+m.o.APIKey)
	}
	start := time.Now()
	res, err := m.o.Client.Do(hreq)
	if err != nil {
		return Reply{}, err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, 32<<20))
	took := time.Since(start)
	if err != nil {
		return Reply{}, fmt.Errorf("reading the answer: %w", err)
	}
	var out chatResponse
	jerr := json.Unmarshal(data, &out)
	switch {
	case res.StatusCode != http.StatusOK && jerr == nil && out.Error != nil:
		return Reply{}, fmt.Errorf("%s: HTTP %d: %s", m.url, res.StatusCode, out.Error.Message)
	case res.StatusCode != http.StatusOK:
		return Reply{}, fmt.Errorf("%s: HTTP %d: %.300s", m.url, res.StatusCode, data)
	case jerr != nil:
		return Reply{}, fmt.Errorf("%s: the answer is not a chat completion: %v", m.url, jerr)
	case len(out.Choices) == 0:
		return Reply{}, fmt.Errorf("%s: the answer has no choices", m.url)
	}
	msg := Message{Role: "assistant", ToolCalls: out.Choices[0].Message.ToolCalls}
	if c := out.Choices[0].Message.Content; c != nil {
		msg.Content = *c
	}
	reply := Reply{Message: msg, Latency: took}
	if u := out.Usage; u != nil {
		reply.Usage = Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens}
	}
	return reply, nil
}
