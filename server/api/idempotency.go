package api

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/formbridge/formbridge/app/wire"
	"github.com/formbridge/formbridge/server/internal/later"
)

// A person may take minutes to answer, and a long poll that long breaks:
// a proxy's idle timeout, the caller redeployed, a network change.
// Without a key, the question goes with the connection and a retry asks
// the person again. With an Idempotency-Key header the question outlives
// its caller's connection, and a retry with the same key on the same
// channel waits for that question, or gets its answer at once if the
// person gave it meanwhile. Since no connection's end withdraws a keyed
// question, its caller withdraws it by its key (DELETE). Keys live in
// this bridge's memory: a restart forgets them, as it forgets the
// questions.

// keyedRetention is how long an answer stays for a retry after the
// question settled; maxKeyedSettled and maxKeyedBytes bound how many
// stay at once, and their size (an answer may be tens of KB): the oldest
// go first.
const (
	keyedRetention  = 15 * time.Minute
	maxKeyedSettled = 10000
	maxKeyedBytes   = 32 << 20
)

// maxKeyLength bounds an Idempotency-Key, as common APIs do.
const maxKeyLength = 255

// errKeyHeader is a malformed Idempotency-Key header.
var errKeyHeader = errors.New("the Idempotency-Key header must be 1 to 255 visible ASCII characters")

// idempotencyKey reads the Idempotency-Key header: "" when there is none.
// The header's draft standard quotes it as a structured-field string;
// a bare token is taken too.
func idempotencyKey(r *http.Request) (string, error) {
	values := r.Header.Values("Idempotency-Key")
	if len(values) == 0 {
		return "", nil
	}
	if len(values) > 1 {
		return "", errKeyHeader
	}
	key := strings.TrimSpace(values[0])
	if len(key) >= 2 && key[0] == '"' && key[len(key)-1] == '"' {
		key = key[1 : len(key)-1]
	}
	if key == "" || len(key) > maxKeyLength {
		return "", errKeyHeader
	}
	for i := range len(key) {
		if key[i] < 0x21 || key[i] > 0x7e {
			return "", errKeyHeader
		}
	}
	return key, nil
}

// keyedID names a keyed question: keys are the caller's, per channel.
type keyedID struct{ channel, key string }

// keyed is one keyed question: pending until done is closed, then its
// outcome, kept for retries until expires.
type keyed struct {
	id   keyedID
	body [sha256.Size]byte // what was asked, to refuse a key reused for another question
	// ctx is the question's in the hub: it outlives every caller's
	// connection, and withdraw ends it.
	ctx      context.Context
	withdraw context.CancelFunc
	// submitted is closed once the hub has the question, or refused it:
	// a withdrawal waits for it, so a refusal is never taken for one.
	submitted chan struct{}
	done      chan struct{}
	res       *wire.ElicitResult
	err       error
	// withdrawn says the caller withdrew the question before anyone
	// answered it: res is then a cancel. Read once done is closed.
	withdrawn bool
	expires   time.Time
	size      int // the answer's bytes, roughly
}

// keyedQuestions holds the keyed questions: those pending, and those
// settled in the last keyedRetention, oldest first.
type keyedQuestions struct {
	mu      sync.Mutex
	byID    map[keyedID]*keyed
	settled []*keyed
	bytes   int // of the answers in settled
	now     func() time.Time
	// sweepAt is when the sweep that forgets the oldest kept answer is
	// due (zero when none is set): what a person typed leaves memory on
	// time even when no other keyed call comes to forget it.
	sweepAt time.Time
}

func newKeyedQuestions() *keyedQuestions {
	return &keyedQuestions{byID: map[keyedID]*keyed{}, now: time.Now}
}

// claim returns the question asked with key on channel. fresh says it is
// new: the caller asks it in k.ctx (made from parent, without its end),
// then calls settle. A key already used for a different body returns
// errKeyReused.
func (q *keyedQuestions) claim(parent context.Context, channel, key string, body [sha256.Size]byte) (k *keyed, fresh bool, err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.forgetLocked()
	id := keyedID{channel, key}
	if k := q.byID[id]; k != nil {
		if k.body != body {
			return nil, false, errKeyReused
		}
		return k, false, nil
	}
	k = &keyed{id: id, body: body, submitted: make(chan struct{}), done: make(chan struct{})}
	k.ctx, k.withdraw = context.WithCancel(context.WithoutCancel(parent))
	q.byID[id] = k
	return k, true, nil
}

// find returns the question asked with key on channel, pending or kept
// settled; nil when there is none.
func (q *keyedQuestions) find(channel, key string) *keyed {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.forgetLocked()
	return q.byID[keyedID{channel, key}]
}

var errKeyReused = errors.New("this Idempotency-Key was used for a different request on this channel")

// settle records k's outcome and wakes its callers. A refusal is not
// kept: a retry is checked again (a rate limit may have passed); nor is
// the outcome of a question whose channel was deleted meanwhile.
func (q *keyedQuestions) settle(k *keyed, res *wire.ElicitResult, err error) {
	if errors.Is(err, context.Canceled) && k.ctx.Err() != nil {
		// Its caller withdrew it (nothing else ends k.ctx): kept as the
		// cancel a retry with the key should hear, not asked again.
		res, err, k.withdrawn = &wire.ElicitResult{Action: wire.ActionCancel}, nil, true
	}
	q.mu.Lock()
	k.res, k.err = res, err
	switch {
	case q.byID[k.id] != k:
	case err != nil:
		delete(q.byID, k.id)
	default:
		if b, err := json.Marshal(res); err == nil {
			k.size = len(b)
		}
		k.expires = q.now().Add(keyedRetention)
		q.settled = append(q.settled, k)
		q.bytes += k.size
		q.forgetLocked()
		q.armLocked()
	}
	q.mu.Unlock()
	k.withdraw() // its context's resources
	close(k.done)
}

// forgetLocked drops the answers kept too long, or beyond the bounds.
func (q *keyedQuestions) forgetLocked() {
	now, n := q.now(), 0
	for n < len(q.settled) && (len(q.settled)-n > maxKeyedSettled || q.bytes > maxKeyedBytes || !now.Before(q.settled[n].expires)) {
		k := q.settled[n]
		if q.byID[k.id] == k {
			delete(q.byID, k.id)
		}
		q.bytes -= k.size
		q.settled[n] = nil
		n++
	}
	q.settled = q.settled[n:]
}

// armLocked sets the sweep for the oldest answer kept, unless one is set
// for it (later answers expire later).
func (q *keyedQuestions) armLocked() {
	if len(q.settled) > 0 {
		later.Sweep(&q.sweepAt, q.now(), q.settled[0].expires, q, (*keyedQuestions).sweepNow)
	}
}

// sweepNow forgets the answers whose time is up, and sets the sweep for
// the next.
func (q *keyedQuestions) sweepNow() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.sweepAt = time.Time{}
	q.forgetLocked()
	q.armLocked()
}

// forgetChannel drops every key of a deleted channel: a channel made
// later under the same name is another, whose person must be asked.
func (q *keyedQuestions) forgetChannel(channel string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for id := range q.byID {
		if id.channel == channel {
			delete(q.byID, id)
		}
	}
}

// bodyDigest is what a retry must repeat: the params (compacted, so
// spacing does not count), the requester and the timeout.
func bodyDigest(b *elicitBody) [sha256.Size]byte {
	var buf bytes.Buffer
	if json.Compact(&buf, b.Params) != nil {
		buf.Write(b.Params)
	}
	requester, _ := json.Marshal(b.Requester)
	buf.WriteByte(0)
	buf.Write(requester)
	buf.WriteByte(0)
	bits := math.Float64bits(b.TimeoutSeconds)
	for i := range 8 {
		buf.WriteByte(byte(bits >> (8 * i)))
	}
	return sha256.Sum256(buf.Bytes())
}
