package demo

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// travelSchema uses every primitive kind: text, an untitled select, date,
// date-time, integer and number ranges, a titled multi select, email, uri,
// and a boolean whose default is false.
const travelSchema = `{
  "type": "object",
  "properties": {
    "destination": {"type": "string", "title": "Destination city", "minLength": 2, "maxLength": 60},
    "reason": {"type": "string", "title": "Reason for the trip", "enum": ["Customer visit", "Conference", "Team meeting", "Training"]},
    "departure": {"type": "string", "format": "date", "title": "Departure date"},
    "return": {"type": "string", "format": "date", "title": "Return date"},
    "flight": {"type": "string", "format": "date-time", "title": "Preferred flight time on the way out", "description": "We book the flight closest to this time."},
    "travellers": {"type": "integer", "title": "Number of travellers", "minimum": 1, "maximum": 6, "default": 1},
    "budget": {"type": "number", "title": "Budget per person, in euros", "minimum": 100, "maximum": 5000, "default": 800},
    "extras": {
      "type": "array",
      "title": "Also book",
      "items": {"anyOf": [
        {"const": "hotel", "title": "Hotel"},
        {"const": "car", "title": "Rental car"},
        {"const": "rail", "title": "Airport train tickets"}
      ]},
      "default": ["hotel"]
    },
    "email": {"type": "string", "format": "email", "title": "Send the confirmation to"},
    "agenda": {"type": "string", "format": "uri", "title": "Link to the event or agenda", "description": "If there is one: it helps your manager decide."},
    "flexible": {"type": "boolean", "title": "My dates can move by a day", "default": false}
  },
  "required": ["destination", "reason", "departure", "return", "travellers", "email"]
}`

var extraNames = map[string]string{"hotel": "a hotel", "car": "a rental car", "rail": "airport train tickets"}

func requestTravel(ctx context.Context, req *mcp.CallToolRequest) (string, error) {
	res, err := ask(ctx, req, "Please fill in your travel request. Your manager approves it next.", travelSchema)
	if err != nil {
		return "", err
	}
	switch res.Action {
	case "decline":
		return "You chose not to send a travel request.", nil
	case "accept":
	default:
		return "The travel form was closed without being sent.", nil
	}
	c := res.Content
	dep, err1 := time.Parse(time.DateOnly, str(c, "departure"))
	ret, err2 := time.Parse(time.DateOnly, str(c, "return"))
	if err1 != nil || err2 != nil {
		return "", fmt.Errorf("the dates came back in an unexpected form (%q, %q)", str(c, "departure"), str(c, "return"))
	}
	if ret.Before(dep) {
		return fmt.Sprintf("The return date (%s) is before the departure date (%s), so the request was not sent. Please try again.",
			longDate(ret), longDate(dep)), nil
	}

	var b strings.Builder
	fmt.Fprintf(&b, "Travel request sent: %s to %s, from %s to %s",
		str(c, "reason"), str(c, "destination"), longDate(dep), longDate(ret))
	if flexible, _ := c["flexible"].(bool); flexible {
		b.WriteString(" (dates can move by a day)")
	}
	b.WriteString(".")
	if f := str(c, "flight"); f != "" {
		if t, err := time.Parse(time.RFC3339, f); err == nil {
			fmt.Fprintf(&b, " Preferred flight: %s.", t.Format("Mon 2 January 2006 at 15:04 (UTC-07:00)"))
		}
	}
	n, _ := c["travellers"].(float64)
	budget, _ := c["budget"].(float64)
	people := "1 traveller"
	if n != 1 {
		people = fmt.Sprintf("%d travellers", int(n))
	}
	fmt.Fprintf(&b, " %s, budget €%s per person.", people, money(budget))
	if extras := list(c, "extras"); len(extras) > 0 {
		var names []string
		for _, e := range extras {
			names = append(names, extraNames[e])
		}
		fmt.Fprintf(&b, " Also booking %s.", joinAnd(names))
	}
	fmt.Fprintf(&b, " The confirmation goes to %s.", str(c, "email"))
	if a := str(c, "agenda"); a != "" {
		fmt.Fprintf(&b, " Agenda: %s.", a)
	}
	b.WriteString(" (This is a demo: nothing was booked.)")
	return b.String(), nil
}

func str(c map[string]any, key string) string {
	s, _ := c[key].(string)
	return s
}

func list(c map[string]any, key string) []string {
	var out []string
	switch v := c[key].(type) {
	case []any:
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
	case []string:
		out = v
	}
	return out
}

func longDate(t time.Time) string { return t.Format("Mon 2 January 2006") }

// money prints whole euros without cents, and cents when there are some.
func money(v float64) string {
	if v == float64(int64(v)) {
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf("%.2f", v)
}

// joinAnd joins words as a person would: "a, b and c".
func joinAnd(words []string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}
