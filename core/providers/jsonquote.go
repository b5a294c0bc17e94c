package providers

import (
	"bytes"
	"encoding/json"
)

// jsonQuote is s as a JSON string, with <, > and & left as they are.
func jsonQuote(s string) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return "", err
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n"))), nil
}

func jsonUnquote(b []byte, s *string) error { return json.Unmarshal(b, s) }
