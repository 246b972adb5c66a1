package hub

import (
	"crypto/sha256"
	"encoding/json"

	"github.com/formbridge/formbridge/app/wire"
)

// maxRecent is how many settled requests a channel remembers, to tell a
// widget that answers late (a retry after a dropped connection) what
// happened instead of "unknown request".
const maxRecent = 256

// recentRing remembers the last settled requests of a channel. It grows
// only as requests settle, so an idle channel costs nothing.
type recentRing struct {
	entries []recentEntry
	next    int
}

type recentEntry struct {
	id       string
	outcome  string   // what widgets that did not answer heard
	action   string   // and the action it named, if any
	answer   [32]byte // digest of the winning answer; zero unless answered
	answered bool
}

func (r *recentRing) add(id, outcome, action string, res wire.ElicitResult, answered bool) {
	e := recentEntry{id: id, outcome: outcome, action: action, answered: answered}
	if answered {
		e.answer = digest(res)
	}
	if len(r.entries) < maxRecent {
		r.entries = append(r.entries, e)
		return
	}
	r.entries[r.next] = e
	r.next = (r.next + 1) % maxRecent
}

// lookup returns the outcome (and its action) to tell a widget whose
// answer res arrives after request id settled: "answered" when it is the
// answer that won (the same answer sent twice), else what the other
// widgets heard.
func (r *recentRing) lookup(id string, res wire.ElicitResult) (outcome, action string, ok bool) {
	for i := range r.entries {
		e := &r.entries[i]
		if e.id != id {
			continue
		}
		if e.answered && e.answer == digest(res) {
			return wire.OutcomeAnswered, "", true
		}
		return e.outcome, e.action, true
	}
	return "", "", false
}

// digest identifies an answer: encoding/json sorts map keys, so equal
// answers encode equally.
func digest(res wire.ElicitResult) [32]byte {
	b, _ := json.Marshal(res)
	return sha256.Sum256(b)
}
