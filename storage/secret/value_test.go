package secret

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

const testSecret = "sk-proj-0123456789abcdef"

// A Value never shows itself: not through any fmt verb, inside a struct
// or not, nor through log/slog or encoding/json.
func TestValueNeverShowsItself(t *testing.T) {
	v := New(testSecret)
	holder := struct {
		Name string
		Key  Value
	}{"openai", v}
	var texts []string
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d"} {
		texts = append(texts, fmt.Sprintf(verb, v), fmt.Sprintf(verb, holder), fmt.Sprintf(verb, &holder))
	}
	texts = append(texts, fmt.Sprint(v), fmt.Sprintln(holder), v.String(), fmt.Errorf("call failed with %v", v).Error())
	var logged bytes.Buffer
	slog.New(slog.NewTextHandler(&logged, nil)).Info("settings", "key", v, "holder", holder)
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("settings", "key", v, "holder", holder)
	texts = append(texts, logged.String())
	js, err := json.Marshal(holder)
	if err != nil {
		t.Fatal(err)
	}
	texts = append(texts, string(js))
	for _, s := range texts {
		if strings.Contains(s, testSecret) || strings.Contains(s, fmt.Sprintf("%x", testSecret)) {
			t.Errorf("the secret shows in %q", s)
		}
	}
	if string(js) != `{"Name":"openai","Key":"[redacted]"}` {
		t.Errorf("JSON = %s", js)
	}
	if v.Reveal() != testSecret || v.IsZero() || !(Value{}).IsZero() || fmt.Sprint(Value{}) != "" {
		t.Error("Reveal or IsZero is wrong")
	}
}

func TestValueReadsJSONWithoutQuotingIt(t *testing.T) {
	var body struct {
		Key *Value `json:"key"`
	}
	if err := json.Unmarshal([]byte(`{"key":"`+testSecret+`"}`), &body); err != nil || body.Key == nil || body.Key.Reveal() != testSecret {
		t.Fatalf("decoded %v, %v", body.Key, err)
	}
	err := json.Unmarshal([]byte(`{"key":["`+testSecret+`"]}`), &body)
	if err == nil || strings.Contains(err.Error(), testSecret) {
		t.Errorf("error for a non-string = %v", err)
	}
}

// Redact takes the secret out of texts that echo it, such as a server's
// error body quoting the Authorization header, or a URL with the key.
func TestRedact(t *testing.T) {
	v := New(testSecret)
	err := errors.New(`401 Unauthorized: {"error":"bad header Authorization: Bearer ` + testSecret + `"} from https://x.example/v1/models?api_key=` + testSecret)
	got := Redact(err.Error(), v, Value{})
	if strings.Contains(got, testSecret) || strings.Count(got, "[redacted]") != 2 {
		t.Errorf("Redact = %q", got)
	}
	if Redact("a b c", New("b")) != "a b c" {
		t.Error("a secret too short to matter garbled the text")
	}
}
