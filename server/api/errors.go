package api

import (
	"encoding/json"
	"net/http"
)

// Error codes of the API's error bodies. They are stable: hosts match them.
const (
	codeAPIOff           = "api_off"
	codeUnauthorized     = "unauthorized"
	codeNotFound         = "not_found"
	codeMethodNotAllowed = "method_not_allowed" // the route exists for other methods (Allow lists them)
	codeBadRequest       = "bad_request"
	codeInvalidParams    = "invalid_params" // the elicitation was refused; data lists the problems
	codeTooManyPending   = "too_many_pending"
	codeRateLimited      = "rate_limited"
	codeNoChannel        = "unknown_channel"
	codeConflict         = "conflict"
	codeTooManyChans     = "too_many_channels" // the bridge holds hub.Options.MaxChannels
	codeUnavailable      = "unavailable"
	codeKeyReused        = "key_reused"       // an Idempotency-Key already used for another question
	codeNoQuestion       = "unknown_question" // no keyed question to withdraw under that Idempotency-Key
	codeSettled          = "already_settled"  // the keyed question settled before it could be withdrawn
)

// errorBody is every error response: {"error": {"code", "message", "data"?}}.
type errorBody struct {
	Error errorObject `json:"error"`
}

type errorObject struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func writeError(w http.ResponseWriter, status int, code, message string, data any) {
	writeJSON(w, status, errorBody{Error: errorObject{Code: code, Message: message, Data: data}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error":{"code":"internal","message":"failed to encode the response"}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}
