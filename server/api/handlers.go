package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/formbridge/formbridge/app/elicit"
	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/hub"
)

// maxBody bounds a request body: the largest elicitation MCP lets
// through, plus room for the envelope.
const maxBody = elicit.MaxRequestBytes + 16<<10

// maxTimeout bounds timeoutSeconds: a person's answer a day later is
// no longer an answer to the question.
const maxTimeout = 24 * time.Hour

// elicitBody is the body of POST .../elicitations.
type elicitBody struct {
	Params         json.RawMessage     `json:"params"`
	Requester      wire.Implementation `json:"requester"`
	TimeoutSeconds float64             `json:"timeoutSeconds"`
}

func (a *api) elicit(w http.ResponseWriter, r *http.Request) {
	var body elicitBody
	if !decode(w, r, &body) {
		return
	}
	if len(body.Params) == 0 || string(body.Params) == "null" {
		writeError(w, http.StatusBadRequest, codeBadRequest, `the body needs "params": the MCP ElicitRequestParams`, nil)
		return
	}
	t := body.TimeoutSeconds
	if t < 0 || math.IsNaN(t) || t > maxTimeout.Seconds() {
		writeError(w, http.StatusBadRequest, codeBadRequest,
			fmt.Sprintf("timeoutSeconds must be between 0 (the bridge's default) and %d", int(maxTimeout.Seconds())), nil)
		return
	}
	key, err := idempotencyKey(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, codeBadRequest, err.Error(), nil)
		return
	}
	// The answer may take minutes: lift the server's write deadline for
	// this request, or the answer could not be sent. (Its read deadline
	// cannot end the request: net/http lifts it once the body has been
	// read, as readBody does, and over HTTP/2 it bounds only the body;
	// TestServerDeadlinesLifted sets both deadlines.)
	http.NewResponseController(w).SetWriteDeadline(time.Time{})
	channel := r.PathValue("channel")
	opts := &hub.ElicitOptions{Timeout: time.Duration(t * float64(time.Second))}
	var res *wire.ElicitResult
	if key == "" {
		res, err = a.ask(r.Context(), channel, &body, opts)
		if err != nil && r.Context().Err() != nil {
			// The caller left; the request was withdrawn from the widgets.
			a.log.Info("elicitation withdrawn: the caller disconnected", "channel", channel)
			return
		}
	} else {
		k, replayed, ok := a.askKeyed(w, r, channel, key, &body, opts)
		if !ok {
			return
		}
		res, err = k.res, k.err
		if replayed && err == nil {
			w.Header().Set("Idempotent-Replayed", "true")
		}
	}
	if err != nil {
		a.hubError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

// ask puts the question to the channel and waits until it settles, or
// ctx ends and withdraws it.
func (a *api) ask(ctx context.Context, channel string, body *elicitBody, opts *hub.ElicitOptions) (*wire.ElicitResult, error) {
	// Submit, not Elicit: the request waits on this handler's goroutine,
	// which waits anyway, and holds none of its own in the hub.
	type outcome struct {
		res *wire.ElicitResult
		err error
	}
	settled := make(chan outcome, 1)
	a.h.Submit(ctx, channel, body.Requester, body.Params, opts,
		func(res *wire.ElicitResult, err error) { settled <- outcome{res, err} })
	o := <-settled
	return o.res, o.err
}

// askKeyed is ask for a question with an Idempotency-Key: the first
// request with the key asks, and the question stays when its caller
// leaves; a retry waits for the same question, or gets the answer kept.
// It returns the settled question and whether an earlier request asked
// it, or ok false when it has answered already or the caller has left.
func (a *api) askKeyed(w http.ResponseWriter, r *http.Request, channel, key string, body *elicitBody, opts *hub.ElicitOptions) (_ *keyed, replayed, ok bool) {
	a.deleting.RLock()
	k, fresh, err := a.keyed.claim(r.Context(), channel, key, bodyDigest(body))
	if err == nil && fresh {
		// Not the request's context: the question outlives this
		// connection, for a retry with the same key.
		a.h.Submit(k.ctx, channel, body.Requester, body.Params, opts,
			func(res *wire.ElicitResult, err error) { a.keyed.settle(k, res, err) })
		close(k.submitted)
	}
	a.deleting.RUnlock()
	if err != nil {
		writeError(w, http.StatusUnprocessableEntity, codeKeyReused, err.Error(), nil)
		return nil, false, false
	}
	select {
	case <-k.done:
		return k, !fresh, true
	case <-r.Context().Done():
		a.log.Info("the caller disconnected; the elicitation stays pending for a retry with its Idempotency-Key", "channel", channel)
		return nil, false, false
	}
}

// noQuestion is withdraw's 404.
const noQuestion = "no question asked with this Idempotency-Key on this channel is pending or kept"

// withdraw takes back a keyed question, named by its Idempotency-Key:
// no connection's end withdraws one, so its caller does it this way when
// the answer is no longer needed. The widgets hear it cancelled, callers
// waiting with the key get a cancel, and the key keeps that outcome for
// retries, as it keeps an answer.
func (a *api) withdraw(w http.ResponseWriter, r *http.Request) {
	key, err := idempotencyKey(r)
	if err == nil && key == "" {
		err = errors.New("name the question to withdraw with the Idempotency-Key header it was asked with")
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, codeBadRequest, err.Error(), nil)
		return
	}
	channel := r.PathValue("channel")
	k := a.keyed.find(channel, key)
	if k == nil {
		writeError(w, http.StatusNotFound, codeNoQuestion, noQuestion, nil)
		return
	}
	if !closedBefore(k.submitted, r) {
		return
	}
	k.withdraw() // no effect on a question settled already
	if !closedBefore(k.done, r) {
		return
	}
	switch {
	case k.err != nil:
		// Refused as it was asked (its caller heard why): nothing is kept.
		writeError(w, http.StatusNotFound, codeNoQuestion, noQuestion, nil)
		return
	case !k.withdrawn:
		writeError(w, http.StatusConflict, codeSettled,
			"the question was settled before it could be withdrawn; while its outcome is kept, asking again with the same Idempotency-Key returns it", nil)
		return
	}
	a.log.Info("elicitation withdrawn by its caller", "channel", channel)
	w.WriteHeader(http.StatusNoContent)
}

// closedBefore waits until c is closed, and reports false when r's
// caller left first.
func closedBefore(c <-chan struct{}, r *http.Request) bool {
	select {
	case <-c:
		return true
	case <-r.Context().Done():
		return false
	}
}

// hubError maps a hub error to a status and an error body.
func (a *api) hubError(w http.ResponseWriter, err error) {
	var werr *wire.Error
	switch {
	case errors.Is(err, hub.ErrNoChannel):
		writeError(w, http.StatusNotFound, codeNoChannel, "no such channel", nil)
	case errors.As(err, &werr) && werr.Code == wire.CodeInvalidParams:
		writeError(w, http.StatusBadRequest, codeInvalidParams, werr.Message, werr.Data)
	case errors.As(err, &werr) && werr.Code == wire.CodeTooManyPending:
		writeError(w, http.StatusTooManyRequests, codeTooManyPending, werr.Message, nil)
	case errors.As(err, &werr) && werr.Code == wire.CodeRateLimited:
		if d, ok := werr.Data.(hub.RateLimitData); ok {
			w.Header().Set("Retry-After", strconv.Itoa(d.RetryAfterSeconds))
		}
		writeError(w, http.StatusTooManyRequests, codeRateLimited, werr.Message, werr.Data)
	case errors.Is(err, hub.ErrClosed):
		writeError(w, http.StatusServiceUnavailable, codeUnavailable, err.Error(), nil)
	default:
		a.log.Error("elicitation failed", "err", err)
		writeError(w, http.StatusInternalServerError, "internal", "the bridge failed to hold the request", nil)
	}
}

func (a *api) complete(w http.ResponseWriter, r *http.Request) {
	var body struct {
		ElicitationID string `json:"elicitationId"`
	}
	if !decode(w, r, &body) {
		return
	}
	if body.ElicitationID == "" {
		writeError(w, http.StatusBadRequest, codeBadRequest, `the body needs "elicitationId"`, nil)
		return
	}
	if err := a.h.Complete(r.PathValue("channel"), body.ElicitationID); err != nil {
		a.hubError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// channelCreated is the body of a 201 from POST /api/v1/channels.
type channelCreated struct {
	Channel   string `json:"channel"`
	Token     string `json:"token"`
	WidgetURL string `json:"widgetUrl"`
}

func (a *api) createChannel(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Name string `json:"name"`
	}
	if !decodeOptional(w, r, &body) {
		return
	}
	ch, err := a.h.CreateChannel(body.Name)
	switch {
	case errors.Is(err, hub.ErrBadChannelName):
		writeError(w, http.StatusBadRequest, codeBadRequest, err.Error(), nil)
		return
	case errors.Is(err, hub.ErrChannelExists):
		writeError(w, http.StatusConflict, codeConflict, err.Error(), nil)
		return
	case errors.Is(err, hub.ErrTooManyChannels):
		writeError(w, http.StatusConflict, codeTooManyChans, err.Error(), nil)
		return
	case err != nil:
		a.hubError(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, channelCreated{Channel: ch.Name, Token: ch.Token, WidgetURL: a.widgetURL(r, ch.Name, ch.Token)})
}

// channelStatus is the body of a 200 from GET /api/v1/channels/{channel}.
type channelStatus struct {
	Channel string `json:"channel"`
	Widgets int    `json:"widgets"` // widget pages connected now: someone could answer
	Pending int    `json:"pending"` // requests waiting for an answer
}

// channelStatus reports whether anyone has the channel's widget open and
// how much waits. It changes nothing, so a program may also call it to
// check its key and the bridge's address before it asks anything.
func (a *api) channelStatus(w http.ResponseWriter, r *http.Request) {
	channel := r.PathValue("channel")
	st, err := a.h.Status(channel)
	if err != nil {
		a.hubError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, channelStatus{Channel: channel, Widgets: st.Widgets, Pending: st.Pending})
}

func (a *api) deleteChannel(w http.ResponseWriter, r *http.Request) {
	channel := r.PathValue("channel")
	a.deleting.Lock()
	err := a.h.DeleteChannel(channel)
	if err == nil {
		a.keyed.forgetChannel(channel)
	}
	a.deleting.Unlock()
	switch {
	case errors.Is(err, hub.ErrDefaultChannel):
		writeError(w, http.StatusConflict, codeConflict, err.Error(), nil)
	case err != nil:
		a.hubError(w, err)
	default:
		w.WriteHeader(http.StatusNoContent)
	}
}

// decode reads a JSON body strictly: one object, known fields only, at
// most maxBody bytes. On failure it has answered 400 or 413.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	data, ok := readBody(w, r)
	if !ok {
		return false
	}
	return decodeData(w, data, v)
}

// decodeOptional is decode for bodies that may be empty.
func decodeOptional(w http.ResponseWriter, r *http.Request, v any) bool {
	data, ok := readBody(w, r)
	if !ok {
		return false
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return true
	}
	return decodeData(w, data, v)
}

func readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeError(w, http.StatusRequestEntityTooLarge, codeBadRequest, fmt.Sprintf("the body is larger than %d bytes", maxBody), nil)
		} else {
			writeError(w, http.StatusBadRequest, codeBadRequest, "failed to read the body", nil)
		}
		return nil, false
	}
	return data, true
}

func decodeData(w http.ResponseWriter, data []byte, v any) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		// Not dec.More(), which is false before a stray "}" or "]".
		if _, end := dec.Token(); end != io.EOF {
			err = errors.New("trailing data after the JSON object")
		}
	}
	if err == nil {
		err = exactKeys(data, reflect.TypeOf(v))
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, codeBadRequest, bodyProblem(err), nil)
		return false
	}
	return true
}

// bodyProblem says what is wrong with a body in the API's terms (its
// fields, JSON's types), not encoding/json's (Go's types and structs).
func bodyProblem(err error) string {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.Is(err, io.EOF):
		return "the body is empty: send a JSON object"
	case errors.As(err, &syntaxErr):
		return fmt.Sprintf("the body is not valid JSON (at byte %d): %s", syntaxErr.Offset, syntaxErr.Error())
	case errors.As(err, &typeErr) && typeErr.Field != "":
		return fmt.Sprintf("%s must be %s, not %s", typeErr.Field, jsonKind(typeErr.Type), typeErr.Value)
	case errors.As(err, &typeErr):
		return fmt.Sprintf("the body must be a JSON object, not %s", typeErr.Value)
	}
	return "the body is not the JSON expected: " + strings.TrimPrefix(err.Error(), "json: ")
}

// jsonKind names the JSON value a Go type is decoded from.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "a list"
	}
	return "an object"
}

// exactKeys refuses a key of data's objects that names a field of t's
// structs in other letter case ("PARAMS"): encoding/json matches it all
// the same, and the API refuses what it does not know, so that a typo
// does not pass unnoticed. Keys it does not know at all are refused by
// DisallowUnknownFields; values that are not objects are not looked at.
func exactKeys(data []byte, t reflect.Type) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(data, &obj) != nil {
		return nil // not an object: decoding said what was wrong
	}
	for key, val := range obj {
		f, ok := jsonField(t, key)
		if !ok {
			return fmt.Errorf("json: unknown field %q", key)
		}
		if err := exactKeys(val, f.Type); err != nil {
			return err
		}
	}
	return nil
}

// jsonField is t's field whose JSON name is exactly key.
func jsonField(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			name = f.Name
		}
		if f.IsExported() && name == key {
			return f, true
		}
	}
	return reflect.StructField{}, false
}
