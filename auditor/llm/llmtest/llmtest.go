// Package llmtest speaks the OpenAI chat completions wire format for the
// tests that fake a language model: what criteria an audit request asks
// about, and the answers a model would give.
package llmtest

import "encoding/json"

// Criteria returns the criterion ids an audit request asks verdicts for
// (the required properties of its response format's schema); nil when the
// body is not such a request.
func Criteria(request []byte) []string {
	var req struct {
		ResponseFormat struct {
			JSONSchema struct {
				Schema struct {
					Required []string `json:"required"`
				} `json:"schema"`
			} `json:"json_schema"`
		} `json:"response_format"`
	}
	if json.Unmarshal(request, &req) != nil {
		return nil
	}
	return req.ResponseFormat.JSONSchema.Schema.Required
}

// Completion is a chat completion response whose message is content.
func Completion(content string) []byte {
	b, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": content}}},
	})
	return b
}

// Verdicts is the completion that judges every criterion of ids the same
// way, with explanation and no evidence.
func Verdicts(ids []string, complies bool, explanation string) []byte {
	out := make(map[string]any, len(ids))
	for _, id := range ids {
		out[id] = map[string]any{"complies": complies, "explanation": explanation, "evidence": ""}
	}
	content, _ := json.Marshal(out)
	return Completion(string(content))
}
