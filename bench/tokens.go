package bench

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"

	"github.com/codemode-dev/codemode/engine"

	"github.com/tiktoken-go/tokenizer"
)

// tokenizerName is the encoding tokens are counted in: GPT-4o's and later
// OpenAI models', built into tiktoken-go (no network).
const tokenizerName = "o200k_base"

// counter counts tokens of what goes to and comes from the model.
type counter struct {
	codec tokenizer.Codec
	// toolCounts are tool lists' counts by the SHA-256 of their JSON: a
	// catalog's thousand definitions, sent every turn, are counted once,
	// and two engines' lists of the same names (every engine's
	// execute_code, declaring different tools) are counted apart.
	toolCounts map[[sha256.Size]byte]int
}

func newCounter() (*counter, error) {
	c, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		return nil, fmt.Errorf("bench: the %s tokenizer: %w", tokenizerName, err)
	}
	return &counter{codec: c, toolCounts: map[[sha256.Size]byte]int{}}, nil
}

// tools counts a tool list as a request's JSON carries it.
func (c *counter) tools(tools []engine.OpenAITool) int {
	data, _ := json.Marshal(tools)
	key := sha256.Sum256(data)
	n, ok := c.toolCounts[key]
	if !ok {
		n = c.count(string(data))
		c.toolCounts[key] = n
	}
	return n
}

// count is the tokens of s (0 for a text the tokenizer refuses, which
// valid UTF-8 never is).
func (c *counter) count(s string) int {
	n, err := c.codec.Count(s)
	if err != nil {
		return 0
	}
	return n
}

// request counts a turn's input: the chat and the tool definitions as
// the request's JSON carries them. Providers add a few tokens of framing
// per message; those are left out, the same for every strategy.
func (c *counter) request(req Request) int {
	msgs, _ := json.Marshal(req.Messages)
	return c.count(string(msgs)) + c.tools(req.Tools)
}

// message counts a turn's output: the text the model wrote and its tool
// calls (names and argument texts).
func (c *counter) message(m Message) int {
	n := c.count(m.Content)
	for _, tc := range m.ToolCalls {
		n += c.count(tc.Function.Name) + c.count(tc.Function.Arguments)
	}
	return n
}
