package modeltest

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Images a vision model is sent, on both wires, as the real servers take
// them:
//
//   - Ollama: a message's "images", an array of base64 strings (no data:
//     prefix); a string that is not base64 fails the request's decoding,
//     400, as in Ollama's handler.
//   - OpenAI: a user message's content is an array of parts, each
//     {"type": "text", "text": ...} or {"type": "image_url", "image_url":
//     {"url": "data:image/png;base64,..."}} (Ollama's /v1 also takes the
//     url as a bare string); a part of another shape, an http(s) URL or a
//     data: URL that is not base64 of png, jpeg, webp or gif is a 400.
//
// A model without the "vision" capability answers images as Ollama's
// runner does for a text-only model (ErrNoVisionModel), a 500 "this model
// is missing data required for image input"; on the OpenAI wire a 400, as
// vLLM refuses images for a model that is not multimodal.
//
// The images are recorded decoded (Request.Images) and counted ImageTokens
// each in the prompt.

// ImageTokens is what the server counts an image in a prompt: what Ollama
// counts one when it fits a prompt to the window (server/prompt.go).
const ImageTokens = 768

// errNoVision is the message Ollama's runner gives for images sent to a
// model that cannot see them.
const errNoVision = "this model is missing data required for image input"

// imageWire is the part of a message of either wire that carries images.
type imageWire struct {
	Content json.RawMessage `json:"content"`
	Images  []string        `json:"images"`
}

// contentPart is one part of an OpenAI message's content.
type contentPart struct {
	Type     string          `json:"type"`
	Text     *string         `json:"text"`
	ImageURL json.RawMessage `json:"image_url"`
}

// messageImages returns the images of one recorded message, decoded, and
// an error that says what a real server would refuse.
func messageImages(wire string, raw json.RawMessage) ([][]byte, error) {
	var m imageWire
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, nil // not an object: the counting reports it
	}
	var out [][]byte
	if wire == "ollama" {
		for _, s := range m.Images {
			b, err := base64.StdEncoding.DecodeString(s)
			if err != nil {
				return nil, fmt.Errorf("illegal base64 data in images: %v", err)
			}
			out = append(out, b)
		}
		return out, nil
	}
	parts, isParts, err := contentParts(m.Content)
	if err != nil || !isParts {
		return nil, err
	}
	for _, p := range parts {
		if p.Type != "image_url" {
			continue
		}
		b, err := decodeImageURL(p.ImageURL)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// contentParts reads an OpenAI message's content as parts; isParts is
// false for a string or null content.
func contentParts(content json.RawMessage) (parts []contentPart, isParts bool, err error) {
	c := strings.TrimSpace(string(content))
	if !strings.HasPrefix(c, "[") {
		return nil, false, nil
	}
	if err := json.Unmarshal(content, &parts); err != nil {
		return nil, true, fmt.Errorf("invalid content parts: %v", err)
	}
	for i, p := range parts {
		switch {
		case p.Type == "text" && p.Text != nil:
		case p.Type == "image_url" && len(p.ImageURL) > 0:
		default:
			return nil, true, fmt.Errorf("invalid content part %d: want {\"type\": \"text\", \"text\": ...} or {\"type\": \"image_url\", \"image_url\": {\"url\": ...}}", i)
		}
	}
	return parts, true, nil
}

// decodeImageURL reads an image_url value, {"url": "data:..."} or the
// bare string, as Ollama's /v1 does.
func decodeImageURL(raw json.RawMessage) ([]byte, error) {
	var url string
	var obj struct {
		URL *string `json:"url"`
	}
	if json.Unmarshal(raw, &url) != nil {
		if err := json.Unmarshal(raw, &obj); err != nil || obj.URL == nil {
			return nil, errors.New("invalid image_url: want {\"url\": \"data:image/...;base64,...\"}")
		}
		url = *obj.URL
	}
	if strings.HasPrefix(url, "http://") || strings.HasPrefix(url, "https://") {
		return nil, errors.New("image URLs are not supported: send the image as a base64 data: URL")
	}
	for _, t := range []string{"png", "jpeg", "jpg", "webp", "gif"} {
		if rest, ok := strings.CutPrefix(url, "data:image/"+t+";base64,"); ok {
			b, err := base64.StdEncoding.DecodeString(rest)
			if err != nil {
				return nil, errors.New("invalid image input: the data: URL is not base64")
			}
			return b, nil
		}
	}
	return nil, errors.New("invalid image input: want a data:image/png (jpeg, webp, gif);base64 URL")
}

// requestImages returns every image of a request's messages, in order.
func requestImages(wire string, messages []json.RawMessage) ([][]byte, error) {
	var out [][]byte
	for i, m := range messages {
		imgs, err := messageImages(wire, m)
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		out = append(out, imgs...)
	}
	return out, nil
}

// partsText is the text of content parts, joined by line breaks, and how
// many images they hold.
func partsText(parts []contentPart) (text string, images int) {
	var texts []string
	for _, p := range parts {
		switch {
		case p.Type == "text" && p.Text != nil:
			texts = append(texts, *p.Text)
		case p.Type == "image_url":
			images++
		}
	}
	return strings.Join(texts, "\n"), images
}
