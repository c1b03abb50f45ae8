package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/docent/docent/agent/provider"
	"github.com/docent/docent/storage/fault"
)

// Every code the API answers with has its status in the one table, and the
// body carries the error's own message under its code.
func TestErrorAnswerMapsEachCodeToItsStatus(t *testing.T) {
	for _, tc := range []struct {
		err    error
		status int
		code   fault.Code
		msg    string
	}{
		{fault.Errorf(fault.NotFound, "document doc_x not found"), http.StatusNotFound, fault.NotFound, "document doc_x not found"},
		{fmt.Errorf("create tag: %w", fault.Errorf(fault.Conflict, `tag "x" exists`)), http.StatusConflict, fault.Conflict, `tag "x" exists`},
		{fault.Errorf(fault.Invalid, "the message is empty"), http.StatusBadRequest, fault.Invalid, "the message is empty"},
		{fault.Errorf(fault.Unavailable, "this server runs without the agent"), http.StatusServiceUnavailable, fault.Unavailable, "this server runs without the agent"},
		{fault.Errorf(codeUnauthorized, "token"), http.StatusUnauthorized, codeUnauthorized, "token"},
		{fault.Errorf(codeForbiddenOrigin, "origin"), http.StatusForbidden, codeForbiddenOrigin, "origin"},
		{fault.Errorf(codeMisdirected, "host"), http.StatusMisdirectedRequest, codeMisdirected, "host"},
		{fault.Errorf(codeTooLarge, "body"), http.StatusRequestEntityTooLarge, codeTooLarge, "body"},
		{fault.Errorf(codeBodyTimeout, "slow"), http.StatusRequestTimeout, codeBodyTimeout, "slow"},
		{fmt.Errorf("stop: %w", context.Canceled), http.StatusServiceUnavailable, fault.Canceled, "interrupted"},
		{context.DeadlineExceeded, http.StatusGatewayTimeout, fault.Timeout, "timed out"},
		{&provider.Error{Kind: provider.KindUnreachable, Message: "Ollama is not running: start it"}, http.StatusBadGateway, "unreachable", "Ollama is not running: start it"},
		{&provider.Error{Kind: provider.KindContextOverflow, Message: "the prompt is too long"}, http.StatusRequestEntityTooLarge, "context_overflow", "the prompt is too long"},
		{fault.Errorf("no_such_code", "odd"), http.StatusInternalServerError, "no_such_code", "odd"},
		{errors.New("disk on fire"), http.StatusInternalServerError, fault.Internal, fault.InternalMessage},
	} {
		status, body := errorAnswer(context.Background(), slog.New(slog.DiscardHandler), "GET /x", tc.err)
		if status != tc.status || body.Code != string(tc.code) || body.Error != tc.msg {
			t.Errorf("%v → %d %+v, want %d {%q %q}", tc.err, status, body, tc.status, tc.msg, tc.code)
		}
	}
}

// Every kind of provider error has a status: the model server's failure
// (502), or for a prompt too large for the window, the request's (413).
func TestEveryProviderKindHasAStatus(t *testing.T) {
	for _, kind := range []provider.Kind{
		provider.KindUnreachable, provider.KindModelNotFound, provider.KindNoToolSupport, provider.KindContextOverflow,
		provider.KindRateLimited, provider.KindServerError, provider.KindStreamInterrupted, provider.KindTimeout,
		provider.KindAuth, provider.KindBadResponse, provider.KindRejected,
	} {
		if status, ok := statusOf[fault.Code(kind)]; !ok || status < 400 {
			t.Errorf("provider kind %q has no status in statusOf", kind)
		}
	}
}

// An internal error is logged once, with the request and its chain; the
// answer is one sentence, and an error event made later from the same
// error (after the agent reported it) logs nothing more.
func TestAnInternalErrorIsLoggedOnceAndAnsweredWithOneSentence(t *testing.T) {
	var log bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&log, nil))
	err := fmt.Errorf("append messages: %w", errors.New("database is locked"))

	status, body := errorAnswer(context.Background(), logger, "POST /api/documents/doc_1/chat", err)
	if status != http.StatusInternalServerError || body.Code != "internal" || body.Error != fault.InternalMessage {
		t.Errorf("answer = %d %+v", status, body)
	}
	if strings.Contains(body.Error, "locked") {
		t.Errorf("the answer shows the details: %q", body.Error)
	}
	if n := strings.Count(log.String(), "level=ERROR"); n != 1 || !strings.Contains(log.String(), "database is locked") || !strings.Contains(log.String(), "POST /api/documents/doc_1/chat") {
		t.Errorf("logged %d times, want once with the chain and the request:\n%s", n, log.String())
	}

	log.Reset()
	reported := fault.Report(context.Background(), logger, "chat turn", err)
	log.Reset()
	_, body = errorAnswer(context.Background(), logger, "POST /api/documents/doc_1/chat", reported)
	if log.Len() != 0 || body.Error != fault.InternalMessage || body.Code != "internal" {
		t.Errorf("an error already reported was logged again or shown otherwise: %+v\n%s", body, log.String())
	}
}
