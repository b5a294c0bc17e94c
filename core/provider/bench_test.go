package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func isJSON(b []byte) bool { return json.Valid(b) }

// openAIStream is a realistic Chat Completions stream of n small deltas.
func openAIStream(n int) string {
	var b strings.Builder
	words := []string{"The", " quick", " brown", " fox", " jumps", " over", " the", " lazy", " dog", ".\\n"}
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `data: {"id":"chatcmpl-AbCdEf123456","object":"chat.completion.chunk","created":1730000000,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_abc123","choices":[{"index":0,"delta":{"content":"%s"},"logprobs":null,"finish_reason":null}]}`+"\n\n", words[i%len(words)])
	}
	b.WriteString(`data: {"id":"chatcmpl-AbCdEf123456","object":"chat.completion.chunk","created":1730000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n")
	b.WriteString(`data: {"id":"chatcmpl-AbCdEf123456","object":"chat.completion.chunk","created":1730000000,"model":"gpt-4o-2024-08-06","choices":[],"usage":{"prompt_tokens":900,"completion_tokens":2000}}` + "\n\n")
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

func BenchmarkSSEParse(b *testing.B) {
	data := []byte(openAIStream(2000))
	r := bytes.NewReader(data)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r.Reset(data)
		s := newSSEReader(r, 0)
		n := 0
		for {
			_, d, err := s.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n += len(d)
		}
		if n == 0 {
			b.Fatal("no data")
		}
	}
}

func BenchmarkOpenAIStreamDecode(b *testing.B) {
	data := []byte(openAIStream(2000))
	r := bytes.NewReader(data)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r.Reset(data)
		s := newSSEReader(r, 0)
		st := &state{}
		d := &oaDecoder{st: st}
		for !st.finished {
			typ, data, err := s.Next()
			if err != nil {
				b.Fatal(err)
			}
			if err := d.handle(typ, data); err != nil {
				b.Fatal(err)
			}
		}
		if st.stop != StopEnd {
			b.Fatal("not finished")
		}
	}
}

// BenchmarkLoad measures what every Resolve, picker and status bar pays:
// parsing the built-in catalogue and reading models.json, auth.json and
// settings.json.
func BenchmarkLoad(b *testing.B) {
	dir := b.TempDir()
	os.WriteFile(filepath.Join(dir, "models.json"), []byte(modelsJSON), 0o600)
	os.WriteFile(filepath.Join(dir, "auth.json"), []byte(`{"openai":{"type":"api_key","key":"sk-x"},"anthropic":{"type":"oauth"}}`), 0o600)
	env := envOf(map[string]string{"ANTHROPIC_API_KEY": "k"})
	b.ReportAllocs()
	for b.Loop() {
		if r := Load(dir, env); r.Err() != nil || len(r.Models()) == 0 {
			b.Fatal(r.Err())
		}
	}
}
